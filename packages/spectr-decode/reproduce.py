"""Reproduce the headline claims of the paper at small scale.

Prints a table (claim | paper | measured | holds) and writes a JSON result that
`tools/collect.py` gathers into docs/reproductions.md.

    python reproduce.py [--full] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from pathlib import Path

PACKAGE = "spectr-decode"
PAPER = "SpecTr: Fast Speculative Decoding via Optimal Transport (NeurIPS 2023)"


def claims(full: bool) -> list[dict]:
    """Each claim: {"claim", "paper", "measured", "holds": bool | None, "note"}."""
    return []


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--full", action="store_true", help="paper-scale version (slow)")
    parser.add_argument("--json", type=Path, default=Path(__file__).with_name("reproduce.json"))
    args = parser.parse_args(argv)
    t0 = time.perf_counter()
    rows = claims(args.full)
    seconds = time.perf_counter() - t0
    print(f"{'claim':60s} {'paper':>16s} {'measured':>16s} holds")
    for r in rows:
        print(f"{r['claim'][:60]:60s} {r['paper']:>16s} {r['measured']:>16s} {r['holds']}")
    result = {
        "package": PACKAGE,
        "paper": PAPER,
        "full": args.full,
        "seconds": round(seconds, 2),
        "machine": f"{platform.machine()} {platform.processor() or ''}".strip(),
        "claims": rows,
    }
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
