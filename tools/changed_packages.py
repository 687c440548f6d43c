"""Packages touched since a git ref, plus every package that depends on them.

    python tools/changed_packages.py origin/main        # one name per line
    python tools/changed_packages.py HEAD~3 --nox       # nox arguments: -s "tests(package='a')" ...
    python tools/changed_packages.py HEAD~3 --args --session tests_slow   # one argv item per line

A change outside packages/ that affects every environment (uv.lock, the root pyproject,
noxfile.py, tools/) selects every package. Dependents are found through all of a package's
requirements: dependencies, optional extras and dependency groups.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _workspace import Package, canonical, discover, requirement_name

ROOT = Path(__file__).resolve().parents[1]
GLOBAL = ("uv.lock", "pyproject.toml", "noxfile.py", "tools/", ".ci/")


def _requires(pkg: Package) -> set[str]:
    reqs = list(pkg.dependencies)
    reqs += [r for rs in pkg.optional.values() for r in rs]
    reqs += [r for rs in pkg.groups.values() for r in rs if isinstance(r, str)]
    return {requirement_name(r) for r in reqs}


def dependents(packages: list[Package], changed: set[str]) -> set[str]:
    """Close `changed` under "depends on" (transitively)."""
    req = {canonical(p.name): _requires(p) for p in packages}
    out = set(changed)
    grew = True
    while grew:
        grew = False
        for name, deps in req.items():
            if name not in out and deps & out:
                out.add(name)
                grew = True
    return out


def changed_files(ref: str) -> list[str]:
    diff = subprocess.run(
        ["git", "diff", "--name-only", ref, "--"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    untracked = subprocess.run(
        ["git", "ls-files", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    return sorted(set(diff.stdout.split()) | set(untracked.stdout.split()))


def select(files: list[str], packages: list[Package]) -> set[str]:
    names = {canonical(p.name) for p in packages}
    if any(f == g or (g.endswith("/") and f.startswith(g)) for f in files for g in GLOBAL):
        return names
    by_dir = {p.path.name: canonical(p.name) for p in packages}
    touched = {
        by_dir[f.split("/")[1]]
        for f in files
        if f.startswith("packages/") and f.count("/") >= 2 and f.split("/")[1] in by_dir
    }
    return dependents(packages, touched)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "ref", nargs="?", default="HEAD", help="git ref to compare the working tree with"
    )
    ap.add_argument("--nox", action="store_true", help="print nox arguments (one shell line)")
    ap.add_argument(
        "--args", action="store_true", help="print nox arguments one per line (for scripts)"
    )
    ap.add_argument("--session", default="tests", help="the parametrized nox session (tests)")
    a = ap.parse_args(argv)
    packages = discover(ROOT)
    sel = sorted(select(changed_files(a.ref), packages))
    sessions = [f"{a.session}(package={n!r})" for n in sel]
    if a.args:
        if sessions:
            print("\n".join(["-s", *sessions]))
    elif a.nox:
        print(" ".join(["-s"] + [f'"{s}"' for s in sessions]) if sel else "")
    else:
        print("\n".join(sel))
    return 0


if __name__ == "__main__":
    sys.exit(main())
