"""Build a package and install its wheel alone into a clean venv: one code path for
`nox -s build` and `tools/release.py`.

The wheel is built with `--no-sources` (its metadata names PyPI versions only). Workspace
siblings it depends on are not on PyPI yet, so their freshly built wheels are offered as a local
index. uv caches wheels by name and version, so ours are refreshed and reinstalled: a rebuilt
0.1.0 is never served stale. The smoke test imports the package, prints its version and fails if
a torch-free package brought torch or if the wheel lacks the licence.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from _workspace import Package

Run = Callable[[Sequence[str]], object]


def smoke_code(pkg: Package) -> str:
    return (
        "import importlib, importlib.metadata as md, importlib.util, sys; "
        f"m = importlib.import_module({pkg.import_name!r}); print(m.__name__, m.__version__); "
        f"files = [str(f) for f in md.files({pkg.name!r}) or []]; "
        "sys.exit('wheel carries no LICENSE') if not any(f.endswith('LICENSE') for f in files) else None; "
        f"sys.exit('torch-free package brought torch') if {pkg.torch_free!r} and importlib.util.find_spec('torch') else None"
    )


def build(pkg: Package, root: Path, run: Run) -> Path:
    """Build wheel + sdist of ``pkg`` into dist/<name>/; return the wheel's path."""
    dist = root / "dist" / pkg.name
    run(["rm", "-rf", str(dist)])
    run(["uv", "build", "--package", pkg.name, "--no-sources", "--out-dir", str(dist)])
    wheels = sorted(dist.glob("*.whl"))
    if not wheels or not list(dist.glob("*.tar.gz")):
        raise RuntimeError(f"{pkg.name}: build produced no wheel or no sdist in {dist}")
    return wheels[0]


def install_alone(pkg: Package, wheel: Path, venv: str, root: Path, run: Run) -> None:
    """Install ``wheel`` with only its declared dependencies into ``venv`` and smoke-test it."""
    find_links: list[str] = []
    for dep in pkg.workspace_deps:
        ddir = root / "dist" / dep
        run(["uv", "build", "--package", dep, "--no-sources", "--wheel", "--out-dir", str(ddir)])
        find_links += ["--find-links", str(ddir)]
    fresh: list[str] = []
    for name in [pkg.name, *pkg.workspace_deps]:
        fresh += ["--refresh-package", name, "--reinstall-package", name]
    run(["uv", "pip", "install", "-q", "--python", venv, *fresh, *find_links, str(wheel)])
    python = str(Path(venv) / "bin" / "python")
    run([python, "-c", smoke_code(pkg)])
