"""Release one package: check, build, smoke-test, tag. Publishing stays a documented command.

    python tools/release.py stratppi            # checks + build into dist/stratppi/ (no tag)
    python tools/release.py stratppi --tag      # ... and create the git tag stratppi-v<version>
    uv publish dist/stratppi/*                   # the actual upload (by a maintainer, by hand)

Checks: the package passes tools/check_packages.py; CHANGELOG.md has a `## <version>` entry; the
tag `<name>-v<version>` does not exist yet and the version is newer than the package's latest tag;
the working tree is clean for that package. The build uses `--no-sources`, so the wheel's metadata
names PyPI versions only, and the wheel is installed alone into a fresh venv and imported.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import check_packages
from _workspace import discover

ROOT = Path(__file__).resolve().parents[1]


def Version(v: str) -> tuple:
    return tuple(int(x) if x.isdigit() else x for x in v.replace("-", ".").split("."))


def _git(*args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.strip()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("package")
    ap.add_argument(
        "--tag", action="store_true", help="create the annotated tag after the checks pass"
    )
    ap.add_argument("--allow-dirty", action="store_true")
    a = ap.parse_args(argv)
    pkgs = {p.name: p for p in discover(ROOT)}
    if a.package not in pkgs:
        print(f"unknown package {a.package!r}; known: {', '.join(sorted(pkgs))}")
        return 2
    pkg = pkgs[a.package]
    tag = f"{pkg.name}-v{pkg.version}"
    problems = check_packages.check(pkg, None)
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
    dist = ROOT / "dist" / pkg.name
    subprocess.run(["rm", "-rf", str(dist)], check=True)
    subprocess.run(
        ["uv", "build", "--package", pkg.name, "--no-sources", "--out-dir", str(dist)],
        cwd=ROOT,
        check=True,
    )
    wheel = next(dist.glob("*.whl"))
    with tempfile.TemporaryDirectory() as venv:
        subprocess.run(["uv", "venv", "-q", venv], check=True)
        find_links = []
        for dep in pkg.workspace_deps:  # unreleased workspace siblings: offer local wheels
            d = ROOT / "dist" / dep
            subprocess.run(
                ["uv", "build", "--package", dep, "--no-sources", "--wheel", "--out-dir", str(d)],
                cwd=ROOT,
                check=True,
            )
            find_links += ["--find-links", str(d)]
        subprocess.run(
            ["uv", "pip", "install", "-q", "--python", venv, *find_links, str(wheel)], check=True
        )
        subprocess.run(
            [
                f"{venv}/bin/python",
                "-c",
                f"import {pkg.import_name} as m; print(m.__name__, m.__version__)",
            ],
            check=True,
        )
    if a.tag:
        _git("tag", "-a", tag, "-m", f"{pkg.name} {pkg.version}")
        print(f"tagged {tag}; push it with: git push origin {tag}")
    print(f"ready: uv publish {dist.relative_to(ROOT)}/*")
    return 0


if __name__ == "__main__":
    sys.exit(main())
