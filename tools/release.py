"""Release one package: check, build, smoke-test, tag. Publishing stays a documented command.

    python tools/release.py stratppi            # checks + build into dist/stratppi/ (no tag)
    python tools/release.py stratppi --tag      # ... and create the git tag stratppi-v<version>
    python tools/release.py --check-names       # every package's name: free on PyPI or ours?
    uv publish dist/stratppi/*                   # the actual upload (by a maintainer, by hand)

Checks: the distribution name is free on PyPI or already ours (a project whose metadata points at
our repository); the package passes tools/check_packages.py; CHANGELOG.md has a `## <version>`
entry; the tag `<name>-v<version>` does not exist yet and the version is newer than the package's
latest tag; the working tree is clean for that package. Build and smoke install are the code of
`nox -s build` (tools/_build.py): `--no-sources`, the wheel installed alone into a fresh venv,
imported, its licence present, and a torch-free package must not bring torch.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import tomllib
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _build
import check_packages
from _workspace import discover

ROOT = Path(__file__).resolve().parents[1]
REPOSITORY = "github.com/papershelf/papershelf"
INDEX = "https://pypi.org/pypi/{name}/json"


def Version(v: str) -> tuple:
    return tuple(int(x) if x.isdigit() else x for x in v.replace("-", ".").split("."))


def _git(*args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.strip()


def fetch_index(name: str) -> dict | None:
    """The index's JSON for ``name``; None when the index has no such project (HTTP 404)."""
    try:
        with urllib.request.urlopen(INDEX.format(name=name), timeout=30) as r:
            return json.load(r)
    except urllib.error.HTTPError as e:
        if e.code == 404:
            return None
        raise


def name_status(name: str, fetch: Callable[[str], dict | None] = fetch_index) -> tuple[str, str]:
    """("free" | "ours" | "taken", detail). Ours: the project's URLs point at our repository."""
    data = fetch(name)
    if data is None:
        return "free", "no project of that name on the index"
    info = data.get("info") or {}
    urls = " ".join(
        str(u) for u in [*(info.get("project_urls") or {}).values(), info.get("home_page") or ""]
    )
    if REPOSITORY in urls:
        return "ours", f"{info.get('version')} points at {REPOSITORY}"
    return "taken", f"{info.get('name')} {info.get('version')}: {info.get('summary') or ''}".strip()


def check_names(fetch: Callable[[str], dict | None] = fetch_index) -> int:
    bad = 0
    for pkg in discover(ROOT):
        status, detail = name_status(pkg.name, fetch)
        bad += status == "taken"
        print(f"{pkg.name:24s} {status:6s} {detail}")
    return 1 if bad else 0


def _run(cmd) -> None:
    subprocess.run(list(cmd), cwd=ROOT, check=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("package", nargs="?")
    ap.add_argument(
        "--tag", action="store_true", help="create the annotated tag after the checks pass"
    )
    ap.add_argument("--allow-dirty", action="store_true")
    ap.add_argument("--check-names", action="store_true", help="check every package's name")
    a = ap.parse_args(argv)
    if a.check_names:
        return check_names()
    pkgs = {p.name: p for p in discover(ROOT)}
    if a.package not in pkgs:
        print(f"unknown package {a.package!r}; known: {', '.join(sorted(pkgs))}")
        return 2
    pkg = pkgs[a.package]
    tag = f"{pkg.name}-v{pkg.version}"
    lock = tomllib.loads((ROOT / "uv.lock").read_text())
    problems = check_packages.check(pkg, lock)
    status, detail = name_status(pkg.name)
    if status == "taken":
        problems.append(f"the name {pkg.name!r} is taken on PyPI by another project ({detail})")
    tags = [t for t in _git("tag", "--list", f"{pkg.name}-v*").splitlines() if t]
    if tag in tags:
        problems.append(
            f"tag {tag} already exists: bump the version (uv version --package {pkg.name} --bump patch)"
        )
    older = [Version(t.rsplit("-v", 1)[1]) for t in tags]
    if older and Version(pkg.version) <= max(older):
        problems.append(f"version {pkg.version} is not newer than the latest release {max(older)}")
    if not a.allow_dirty and _git("status", "--porcelain", "--", str(pkg.path)):
        problems.append(f"uncommitted changes under {pkg.path.relative_to(ROOT)}")
    if problems:
        print(f"{pkg.name} {pkg.version}: not releasable")
        for p in problems:
            print(f"  - {p}")
        return 1
    wheel = _build.build(pkg, ROOT, _run)
    with tempfile.TemporaryDirectory() as venv:
        _run(["uv", "venv", "-q", venv])
        _build.install_alone(pkg, wheel, venv, ROOT, _run)
    if a.tag:
        _git("tag", "-a", tag, "-m", f"{pkg.name} {pkg.version}")
        print(f"tagged {tag}; push it with: git push origin {tag}")
    print(f"ready: uv publish {(ROOT / 'dist' / pkg.name).relative_to(ROOT)}/*")
    return 0


if __name__ == "__main__":
    sys.exit(main())
