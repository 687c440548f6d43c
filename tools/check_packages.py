"""Package hygiene check (run by `nox -s check`; `python tools/check_packages.py [NAME ...]`).

For every package under packages/ it checks:
- metadata: name, version, description, license, readme, requires-python; [tool.papershelf] paper,
  venue, paper-url, status;
- src/<import_name>/__init__.py exists, sets __version__ and __all__ (import name = dist name);
- README.md: a ```python quick example, the install line, a link to the paper;
- CHANGELOG.md: a `## <version>` heading for the current version;
- tests/ with test files; reproduce.py taking --json;
- every third-party import in src/ is declared: module-level imports in `dependencies`, imports
  inside functions / try blocks in `dependencies` or an optional extra;
- torch-free packages: torch is not in the locked dependency closure (from uv.lock);
- the MIT LICENSE (identical to the root one) is in the package and in `license-files`;
- src/<import_name>/_checks.py is byte-identical to the template's (tools/sync_checks.py), and
  src/<import_name>/_optim.py, where a package has one, to tools/vendor/_optim.py;
- README.md has no relative links (it is the PyPI page) and says where the scripts live;
- only files of the anatomy table (docs/contributing.md) sit at the package root;
- the scripts use the harness: reproduce.py/bench.py call reproduce_main/bench_main, the
  `bench` and `test` groups list papershelf-harness, tests/test_scripts.py calls check_scripts,
  tests/test_bad_input.py exists.
Exit status 1 lists every problem.
"""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _workspace import Package, canonical, discover, requirement_name

ROOT = Path(__file__).resolve().parents[1]

# import name -> distribution name, where they differ
IMPORT_TO_DIST = {
    "sklearn": "scikit-learn",
    "open_clip": "open-clip-torch",
    "faiss": "faiss-cpu",
    "yaml": "pyyaml",
    "PIL": "pillow",
    "cv2": "opencv-python",
    "ppi_py": "ppi-python",
    "attr": "attrs",
    "google": "protobuf",
    "mpl_toolkits": "matplotlib",
    "skimage": "scikit-image",
    "dateutil": "python-dateutil",
}
REQUIRED_PROJECT = ["name", "version", "description", "license", "readme", "requires-python"]
REQUIRED_TOOL = ["paper", "venue", "paper-url", "status"]
STATUSES = {"complete", "in progress", "partial", "infrastructure"}
#: Files and folders a package may carry at its root (the anatomy table of docs/contributing.md).
ANATOMY = {
    "pyproject.toml",
    "README.md",
    "CHANGELOG.md",
    "LICENSE",
    "src",
    "tests",
    "reproduce.py",
    "bench.py",
    "gpu_check.py",
    "BENCHMARKS.md",
    "figures",
    "conftest.py",
}
#: Build and tool leftovers that git ignores.
IGNORED = {"__pycache__", ".pytest_cache", ".hypothesis", ".ruff_cache", "dist", "build", ".venv"}
HARNESS = "papershelf-harness"
CHECKS_TEMPLATE = (
    Path(__file__).resolve().parent / "template" / "src" / "__import_name__" / "_checks.py"
)
#: the vendored optimiser, copied into the torch packages that train (opt-in: copy the file)
OPTIM_VENDOR = Path(__file__).resolve().parent / "vendor" / "_optim.py"
LINK = re.compile(
    r"\[[^\]]*\]\(\s*<?([^)\s>]+)>?[^)]*\)|<img[^>]*\bsrc=[\"']([^\"']+)[\"']|^\[[^\]]+\]:\s*(\S+)",
    re.M,
)


def relative_links(text: str) -> list[str]:
    """Targets of Markdown links and images that are not absolute URLs (they break on PyPI)."""
    out = []
    for m in LINK.finditer(text):
        target = next(g for g in m.groups() if g)
        if not re.match(r"(https?:|mailto:|#)", target):
            out.append(target)
    return out


def _imports(tree: ast.AST) -> tuple[set[str], set[str]]:
    """(module-level imports, guarded imports) as top-level module names.

    Guarded means inside a function, a try block or an if block (optional integrations)."""
    top: set[str] = set()
    guarded: set[str] = set()
    guards = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.Try, ast.If)

    def visit(node: ast.AST, is_guarded: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import):
                (guarded if is_guarded else top).update(a.name.split(".")[0] for a in child.names)
            elif isinstance(child, ast.ImportFrom):
                if child.level == 0 and child.module:
                    (guarded if is_guarded else top).add(child.module.split(".")[0])
            else:
                visit(child, is_guarded or isinstance(child, guards))

    visit(tree, False)
    return top, guarded - top


def _module_name(src: Path, f: Path) -> str:
    rel = f.relative_to(src.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _eager_modules(src: Path) -> set[str]:
    """First-party modules executed by `import <package>`: module-level imports followed from __init__."""
    files = {_module_name(src, f): f for f in src.rglob("*.py")}
    pkg = src.name
    seen: set[str] = set()
    stack = [pkg]
    while stack:
        mod = stack.pop()
        if mod in seen or mod not in files:
            continue
        seen.add(mod)
        is_pkg = files[mod].name == "__init__.py"
        base = mod if is_pkg else mod.rsplit(".", 1)[0]
        # a submodule's parent packages run first
        parts = mod.split(".")
        stack += [".".join(parts[:i]) for i in range(1, len(parts))]
        tree = ast.parse(files[mod].read_text())
        for node in tree.body:  # module level only (not functions, not guarded blocks)
            if isinstance(node, ast.Import):
                stack += [a.name for a in node.names if a.name.split(".")[0] == pkg]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    anchor = base.split(".")
                    anchor = anchor[: len(anchor) - (node.level - 1)] if node.level > 1 else anchor
                    target = ".".join(anchor + ([node.module] if node.module else []))
                elif node.module and node.module.split(".")[0] == pkg:
                    target = node.module
                else:
                    continue
                stack.append(target)
                stack += [f"{target}.{a.name}" for a in node.names]
    return seen


def _locked_closure(lock: dict, name: str) -> set[str]:
    by_name = {canonical(p["name"]): p for p in lock.get("package", [])}
    seen: set[str] = set()
    stack = [canonical(name)]
    while stack:
        n = stack.pop()
        if n in seen or n not in by_name:
            continue
        seen.add(n)
        for d in by_name[n].get("dependencies", []):
            stack.append(canonical(d["name"]))
    return seen


def check(pkg: Package, lock: dict | None) -> list[str]:
    errs: list[str] = []
    proj = pkg.pyproject.get("project", {})
    tool = pkg.pyproject.get("tool", {}).get("papershelf", {})
    for key in REQUIRED_PROJECT:
        if not proj.get(key):
            errs.append(f"pyproject [project] lacks {key!r}")
    infrastructure = tool.get("status") == "infrastructure"
    for key in REQUIRED_TOOL:
        if infrastructure and key in ("paper", "paper-url", "venue"):
            continue
        v = tool.get(key)
        if not v or "TITLE" in str(v) or "XXXX" in str(v):
            errs.append(f"pyproject [tool.papershelf] lacks a real {key!r}")
    if tool.get("status") and tool["status"] not in STATUSES:
        errs.append(f"[tool.papershelf] status must be one of {sorted(STATUSES)}")
    if pkg.path.name != pkg.name:
        errs.append(f"directory {pkg.path.name!r} != distribution name {pkg.name!r}")

    src = pkg.path / "src" / pkg.import_name
    init = src / "__init__.py"
    if not init.exists():
        errs.append(
            f"src/{pkg.import_name}/__init__.py missing (import name must match the dist name)"
        )
    else:
        text = init.read_text()
        if "__version__" not in text:
            errs.append("__init__.py does not set __version__")
        if "__all__" not in text:
            errs.append("__init__.py has no __all__")

    readme = pkg.path / "README.md"
    if not readme.exists():
        errs.append("README.md missing")
    else:
        text = readme.read_text()
        if not re.search(r"```python\n.*?```", text, flags=re.S):
            errs.append("README.md has no ```python quick example")
        if "XXXX" in text or "*TITLE*" in text or "NeurIPS YEAR" in text:
            errs.append("README.md still has template placeholders (TITLE / YEAR / XXXX)")
        if f"pip install {pkg.name}" not in text:
            errs.append(f"README.md lacks the install line `pip install {pkg.name}`")
        if not infrastructure and tool.get("paper-url") and tool["paper-url"] not in text:
            errs.append("README.md does not link the paper (paper-url)")

    changelog = pkg.path / "CHANGELOG.md"
    if not changelog.exists():
        errs.append("CHANGELOG.md missing")
    elif not re.search(rf"^## \[?{re.escape(pkg.version)}\]?\b", changelog.read_text(), flags=re.M):
        errs.append(f"CHANGELOG.md has no '## {pkg.version}' entry")

    tests = pkg.path / "tests"
    if not tests.is_dir() or not list(tests.glob("test_*.py")):
        errs.append("tests/ has no test_*.py")
    if not (tests / "test_readme.py").exists():
        errs.append("tests/test_readme.py (runs the README example) missing")
    rep = pkg.path / "reproduce.py"
    if not rep.exists():
        if not infrastructure:
            errs.append("reproduce.py missing")
    elif "--json" not in rep.read_text():
        errs.append("reproduce.py does not take --json")
    if (pkg.path / "bench.py").exists() and "--quick" not in (pkg.path / "bench.py").read_text():
        errs.append("bench.py does not take --quick")

    errs += _release_checks(pkg, infrastructure)

    # declared imports
    declared = {requirement_name(d) for d in pkg.dependencies}
    optional = {requirement_name(d) for reqs in pkg.optional.values() for d in reqs}
    stdlib = set(sys.stdlib_module_names) | {"__future__"}
    if src.exists():
        eager = _eager_modules(src)
        for f in sorted(src.rglob("*.py")):
            # a submodule that `import <package>` never executes is an optional integration: its
            # module-level imports may come from an extra (e.g. bsr_dp.torch_optim needs bsr-dp[torch])
            lazy_module = _module_name(src, f) not in eager
            try:
                top, guarded = _imports(ast.parse(f.read_text(), filename=str(f)))
            except SyntaxError as e:
                errs.append(f"{f.relative_to(pkg.path)}: syntax error {e}")
                continue
            if lazy_module:
                top, guarded = set(), top | guarded
            if f.name == "_checks.py" or pkg.name == HARNESS:
                # the vendored vocabulary and the harness touch torch only for a caller's tensor
                # or CUDA device, lazily
                guarded.discard("torch")
            for mods, allowed, where in (
                (top, declared, "dependencies"),
                (guarded, declared | optional, "dependencies or an extra"),
            ):
                for m in sorted(mods):
                    if m in stdlib or m == pkg.import_name:
                        continue
                    dist = canonical(IMPORT_TO_DIST.get(m, m))
                    if dist not in allowed:
                        errs.append(
                            f"{f.relative_to(pkg.path)} imports {m!r} (dist {dist!r}) not declared in {where}"
                        )

    if pkg.torch_free:
        if "torch" in declared:
            errs.append("torch-free package declares torch")
        if lock is not None:
            closure = _locked_closure(lock, pkg.name)
            if not closure:
                errs.append("package missing from uv.lock (run `uv lock`)")
            elif "torch" in closure:
                errs.append("torch-free package brings torch through its locked dependencies")
    return errs


def _groups_have_harness(pkg: Package, group: str) -> bool:
    return any(
        isinstance(r, str) and requirement_name(r) == HARNESS for r in pkg.groups.get(group, [])
    )


def _release_checks(pkg: Package, infrastructure: bool) -> list[str]:
    errs: list[str] = []
    root_license = ROOT / "LICENSE"
    lic = pkg.path / "LICENSE"
    if not lic.exists():
        errs.append("LICENSE missing (copy the root MIT LICENSE)")
    elif root_license.exists() and lic.read_bytes() != root_license.read_bytes():
        errs.append("LICENSE differs from the root LICENSE")
    if "LICENSE" not in pkg.pyproject.get("project", {}).get("license-files", []):
        errs.append('pyproject [project] lacks license-files = ["LICENSE"]')
    for entry in sorted(pkg.path.iterdir()):
        if (
            entry.name not in ANATOMY
            and entry.name not in IGNORED
            and not entry.name.endswith(".json")
        ):
            errs.append(f"{entry.name}: not in the anatomy table of docs/contributing.md")
    readme = pkg.path / "README.md"
    if readme.exists():
        text = readme.read_text()
        for target in relative_links(text):
            errs.append(
                f"README.md links {target!r}: use an absolute URL (the README is the PyPI page)"
            )
        if (pkg.path / "reproduce.py").exists() and "not in the wheel" not in " ".join(
            text.split()
        ):
            errs.append("README.md does not say that reproduce.py/bench.py are not in the wheel")
    if pkg.name == HARNESS:
        return errs
    checks = pkg.path / "src" / pkg.import_name / "_checks.py"
    if not checks.exists():
        errs.append(f"src/{pkg.import_name}/_checks.py missing (python tools/sync_checks.py)")
    elif checks.read_bytes() != CHECKS_TEMPLATE.read_bytes():
        errs.append(
            f"src/{pkg.import_name}/_checks.py differs from the template's (edit the template, "
            "then python tools/sync_checks.py)"
        )
    optim = pkg.path / "src" / pkg.import_name / "_optim.py"
    if optim.exists() and optim.read_bytes() != OPTIM_VENDOR.read_bytes():
        errs.append(
            f"src/{pkg.import_name}/_optim.py differs from tools/vendor/_optim.py (edit that, "
            "then python tools/sync_checks.py)"
        )
    tests = pkg.path / "tests"
    scripts_test = tests / "test_scripts.py"
    has_scripts = any((pkg.path / f).exists() for f in ("reproduce.py", "bench.py"))
    if has_scripts and (
        not scripts_test.exists() or "check_scripts" not in scripts_test.read_text()
    ):
        errs.append("tests/test_scripts.py does not call papershelf_harness.testing.check_scripts")
    if not (tests / "test_bad_input.py").exists():
        errs.append("tests/test_bad_input.py (the hypothesis bad-input test) missing")
    for script, entries in (
        ("reproduce.py", ("reproduce_cli", "reproduce_main")),
        ("bench.py", ("bench_cli", "bench_main")),
    ):
        f = pkg.path / script
        if f.exists() and not any(e in f.read_text() for e in entries):
            errs.append(f"{script} does not use papershelf_harness.{entries[0]}")
    for group in ("bench", "test"):
        if not _groups_have_harness(pkg, group):
            errs.append(f"dependency group {group!r} does not list {HARNESS}")
    return errs


def main(argv: list[str] | None = None) -> int:
    import argparse

    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("names", nargs="*", help="packages to check (default: all)")
    names = set(ap.parse_args(argv).names)
    packages = [p for p in discover(ROOT) if not names or p.name in names]
    unknown = names - {p.name for p in packages}
    if unknown:
        print(f"unknown packages: {sorted(unknown)}")
        return 2
    lock_path = ROOT / "uv.lock"
    lock = tomllib.loads(lock_path.read_text()) if lock_path.exists() else None
    failed = 0
    for pkg in packages:
        errs = check(pkg, lock)
        status = "ok" if not errs else f"{len(errs)} problem(s)"
        print(f"{pkg.name:24s} {status}")
        for e in errs:
            print(f"    - {e}")
        failed += bool(errs)
    print(f"\n{len(packages) - failed}/{len(packages)} packages pass the hygiene check")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
