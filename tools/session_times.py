"""Print the time of every nox session found in one or more nox logs, slowest first.

    uv run --only-group dev nox -s tests 2>&1 | tee ci.log
    python tools/session_times.py ci.log

Reads nox's closing line of each session ("Session tests(package='x') was successful in 12
seconds." / "... failed in ..."); `.ci/run` prints this table at its end.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

LINE = re.compile(
    r"Session (?P<name>\S+(?: \S+)*?) (?P<result>was successful|failed|was skipped)"
    r"(?: in (?:(?P<m>\d+) minutes? )?(?:(?P<s>\d+) seconds?)?)?"
)


def parse(text: str) -> list[tuple[str, str, int]]:
    """(session, result, seconds) for every closing line in ``text``."""
    out = []
    for m in LINE.finditer(text):
        seconds = int(m["m"] or 0) * 60 + int(m["s"] or 0)
        result = {"was successful": "ok", "failed": "FAILED", "was skipped": "skipped"}[m["result"]]
        out.append((m["name"], result, seconds))
    return out


def table(rows: list[tuple[str, str, int]]) -> str:
    rows = sorted(rows, key=lambda r: -r[2])
    width = max([len(r[0]) for r in rows] + [7])
    lines = [f"{'session':{width}s}  result   seconds", f"{'-' * width}  -------  -------"]
    lines += [f"{n:{width}s}  {r:7s}  {s:7d}" for n, r, s in rows]
    lines.append(f"{'total':{width}s}  {'':7s}  {sum(r[2] for r in rows):7d}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("logs", nargs="+", type=Path)
    a = ap.parse_args(argv)
    rows = [r for log in a.logs if log.exists() for r in parse(log.read_text(errors="replace"))]
    if not rows:
        print("no nox sessions found in", ", ".join(map(str, a.logs)))
        return 0
    print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
