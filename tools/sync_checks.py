"""Copy the shared validation vocabulary into every package (or check that the copies match),
and refresh the vendored optimiser where a package carries one.

    python tools/sync_checks.py            # write src/<pkg>/_checks.py in every package
    python tools/sync_checks.py --check    # exit 1 if a copy differs from its source

The vocabulary is vendored, not a runtime dependency: see docs/design-notes.md.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
from _workspace import discover  # noqa: E402

TEMPLATE = ROOT / "tools" / "template" / "src" / "__import_name__" / "_checks.py"
#: opt-in: a torch package that trains copies it to src/<pkg>/_optim.py (see docs/design-notes.md)
OPTIM = ROOT / "tools" / "vendor" / "_optim.py"
#: Packages that are not libraries with a public API to validate.
EXEMPT = {"papershelf-harness"}


def targets(root: Path = ROOT) -> list[Path]:
    return [
        p.path / "src" / p.import_name / "_checks.py"
        for p in discover(root)
        if p.name not in EXEMPT
    ]


def stale(root: Path = ROOT) -> list[tuple[Path, Path]]:
    """(copy, source) for every vendored copy that is missing or differs."""
    want = TEMPLATE.read_bytes()
    out = [(t, TEMPLATE) for t in targets(root) if not t.exists() or t.read_bytes() != want]
    optim = OPTIM.read_bytes()
    for p in discover(root):
        copy = p.path / "src" / p.import_name / "_optim.py"
        if copy.exists() and copy.read_bytes() != optim:
            out.append((copy, OPTIM))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--check", action="store_true", help="only report copies that differ")
    a = ap.parse_args(argv)
    bad = stale()
    if a.check:
        for t, src in bad:
            print(f"{t.relative_to(ROOT)} differs from {src.relative_to(ROOT)}")
        return 1 if bad else 0
    for t, src in bad:
        t.write_bytes(src.read_bytes())
        print(f"wrote {t.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
