"""Packages touched since a git ref, plus every package that depends on them.

    python tools/changed_packages.py origin/main        # one name per line
    python tools/changed_packages.py HEAD~3 --nox       # nox arguments: -s "tests(package='a')" ...
    python tools/changed_packages.py HEAD~3 --args --session tests_slow   # one argv item per line

A change outside packages/ that affects every environment (the root pyproject, noxfile.py,
tools/, .ci/ but for the .ci/slow-base marker) selects every package. A change of uv.lock selects the packages whose locked
environment changed: those that reach, through the lock's dependencies, extras and groups, an
entry that was added, removed or changed (a new workspace package changes no other package's
environment). Dependents are found through all of a package's requirements: dependencies,
optional extras and dependency groups.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tomllib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _workspace import Package, canonical, discover, requirement_name

ROOT = Path(__file__).resolve().parents[1]
GLOBAL = ("pyproject.toml", "noxfile.py", "tools/", ".ci/")
# files under a GLOBAL path that change no environment: the marker of the last landing whose CI
# ran the slow tests is moved at the start of every session and must not select every package
NEUTRAL = (".ci/slow-base",)
LOCK = "uv.lock"


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


def _lock_entries(text: str) -> dict[str, dict]:
    """uv.lock's packages by name (several versions of one name, for several markers, are one
    entry: a list)."""
    out: dict[str, list] = {}
    for entry in tomllib.loads(text).get("package", []):
        out.setdefault(canonical(entry["name"]), []).append(entry)
    return out


def _lock_edges(entries: list[dict]) -> set[str]:
    deps = set()
    for e in entries:
        for d in e.get("dependencies", []):
            deps.add(canonical(d["name"]))
        for group in (e.get("optional-dependencies", {}), e.get("dev-dependencies", {})):
            for ds in group.values():
                deps.update(canonical(d["name"]) for d in ds)
    return deps


def lock_affected(old: str | None, new: str, names: set[str]) -> set[str]:
    """Workspace packages (of ``names``) whose locked environment differs between the two
    uv.lock texts; every package when the old lock is unknown or unreadable."""
    if old is None:
        return set(names)
    try:
        before, after = _lock_entries(old), _lock_entries(new)
    except (tomllib.TOMLDecodeError, KeyError):
        return set(names)
    changed = {n for n in before.keys() | after.keys() if before.get(n) != after.get(n)}
    out = set()
    for name in names:
        seen, todo = set(), [name]
        while todo:
            n = todo.pop()
            if n in seen:
                continue
            seen.add(n)
            todo.extend(_lock_edges(after.get(n, [])))
        # a package's own entry changes with its pyproject (caught by its files); here only what
        # it reaches counts
        if (seen - {name}) & changed:
            out.add(name)
    return out


def _lock_at(ref: str) -> str | None:
    got = subprocess.run(["git", "show", f"{ref}:{LOCK}"], cwd=ROOT, capture_output=True, text=True)
    return got.stdout if got.returncode == 0 else None


def select(
    files: list[str], packages: list[Package], *, lock_change: set[str] | None = None
) -> set[str]:
    """Packages touched by ``files`` (and their dependents). ``lock_change``: the packages whose
    locked environment changed (see ``lock_affected``); a uv.lock change without it selects all."""
    names = {canonical(p.name) for p in packages}
    if any(
        f == g or (g.endswith("/") and f.startswith(g))
        for f in files
        if f not in NEUTRAL
        for g in GLOBAL
    ):
        return names
    if LOCK in files and lock_change is None:
        return names
    by_dir = {p.path.name: canonical(p.name) for p in packages}
    touched = {
        by_dir[f.split("/")[1]]
        for f in files
        if f.startswith("packages/") and f.count("/") >= 2 and f.split("/")[1] in by_dir
    }
    return dependents(packages, touched | (lock_change or set()) if LOCK in files else touched)


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
    files = changed_files(a.ref)
    lock_change = None
    if LOCK in files:
        names = {canonical(p.name) for p in packages}
        lock_change = lock_affected(_lock_at(a.ref), (ROOT / LOCK).read_text(), names)
    sel = sorted(select(files, packages, lock_change=lock_change))
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
