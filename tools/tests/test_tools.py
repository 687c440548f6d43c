"""Tests of the repository tooling: scaffold -> hygiene check, changed-package selection, catalogue."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

TOOLS = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(TOOLS))

import changed_packages  # noqa: E402
import check_packages  # noqa: E402
import new_package  # noqa: E402
from _workspace import discover  # noqa: E402


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "packages").mkdir()
    return tmp_path


def _scaffold(root: Path, name: str, **kw) -> Path:
    return new_package.scaffold(
        name,
        "A one-line description.",
        paper="A Paper",
        paper_url="https://arxiv.org/abs/0000.00000",
        root=root,
        **kw,
    )


def test_scaffold_passes_the_hygiene_check(root):
    _scaffold(root, "my-method")
    (pkg,) = discover(root)
    assert pkg.import_name == "my_method"
    assert check_packages.check(pkg, None) == []


def test_check_reports_undeclared_imports_and_missing_changelog(root):
    dest = _scaffold(root, "my-method")
    (dest / "src" / "my_method" / "core.py").write_text(
        "import scipy\n\ndef f():\n    import pandas\n"
    )
    (dest / "CHANGELOG.md").write_text("# Changelog\n")
    (pkg,) = discover(root)
    errs = "\n".join(check_packages.check(pkg, None))
    assert "'scipy'" in errs and "'pandas'" in errs
    assert "CHANGELOG.md has no '## 0.1.0' entry" in errs


def _add_torch_extra(dest):
    pp = dest / "pyproject.toml"
    extra = '[project.optional-dependencies]\ntorch = ["torch>=2.4"]\n\n[dependency-groups]'
    pp.write_text(pp.read_text().replace("[dependency-groups]", extra))


def test_guarded_import_may_come_from_an_extra(root):
    dest = _scaffold(root, "my-method")
    _add_torch_extra(dest)
    (dest / "src" / "my_method" / "core.py").write_text(
        "def f():\n    import torch\n    return torch\n"
    )
    (pkg,) = discover(root)
    assert check_packages.check(pkg, None) == []
    (dest / "src" / "my_method" / "top.py").write_text("import torch\n")
    init = dest / "src" / "my_method" / "__init__.py"
    init.write_text(init.read_text() + "\nfrom . import top\n")
    (pkg,) = discover(root)
    assert any("'torch'" in e for e in check_packages.check(pkg, None))


def test_torch_free_package_must_not_lock_torch(root):
    _scaffold(root, "my-method")
    (pkg,) = discover(root)
    lock = {
        "package": [
            {"name": "my-method", "dependencies": [{"name": "helper"}]},
            {"name": "helper", "dependencies": [{"name": "torch"}]},
            {"name": "torch"},
        ]
    }
    assert any("brings torch" in e for e in check_packages.check(pkg, lock))


def test_changed_packages_adds_dependents(root):
    _scaffold(root, "base-kernels", torch=True)
    user = _scaffold(root, "user-pkg", torch=True)
    pp = user / "pyproject.toml"
    pp.write_text(pp.read_text().replace('"torch>=2.4"]', '"torch>=2.4", "base-kernels>=0.1"]'))
    _scaffold(root, "other")
    pkgs = discover(root)
    assert changed_packages.select(["packages/base-kernels/src/x.py"], pkgs) == {
        "base-kernels",
        "user-pkg",
    }
    assert changed_packages.select(["packages/user-pkg/README.md"], pkgs) == {"user-pkg"}
    assert changed_packages.select(["uv.lock"], pkgs) == {"base-kernels", "user-pkg", "other"}
    assert changed_packages.select(["docs/index.md"], pkgs) == set()
    # moving the slow-base marker changes no environment; any other .ci/ file selects all
    assert changed_packages.select([".ci/slow-base"], pkgs) == set()
    assert changed_packages.select([".ci/slow-base", ".ci/run"], pkgs) == {
        "base-kernels",
        "user-pkg",
        "other",
    }
    # a lock change selects what it reaches, plus dependents of what it selects
    assert changed_packages.select(["uv.lock"], pkgs, lock_change={"base-kernels"}) == {
        "base-kernels",
        "user-pkg",
    }
    assert changed_packages.select(["uv.lock"], pkgs, lock_change=set()) == set()


def _lock(*entries):
    out = []
    for name, version, deps, groups in entries:
        out.append(f'[[package]]\nname = "{name}"\nversion = "{version}"')
        if deps:
            out.append("dependencies = [" + ", ".join(f'{{ name = "{d}" }}' for d in deps) + "]")
        if groups:
            out.append("[package.dev-dependencies]")
            out += [f'{g} = [{{ name = "{d}" }}]' for g, d in groups.items()]
        out.append("")
    return "\n".join(out)


def test_lock_affected_follows_dependencies_groups_and_new_packages():
    names = {"a", "b", "c"}
    old = _lock(
        ("a", "0.1.0", ["numpy"], {}),
        ("b", "0.1.0", [], {"test": "pytest"}),
        ("c", "0.1.0", ["a"], {}),
        ("numpy", "2.0.0", [], {}),
        ("pytest", "8.0.0", [], {}),
    )
    same = changed_packages.lock_affected(old, old, names)
    assert same == set()
    bumped = old.replace('name = "numpy"\nversion = "2.0.0"', 'name = "numpy"\nversion = "2.1.0"')
    assert changed_packages.lock_affected(old, bumped, names) == {"a", "c"}  # c reaches numpy via a
    grouped = old.replace('"8.0.0"', '"8.1.0"')
    assert changed_packages.lock_affected(old, grouped, names) == {"b"}  # through a test group
    added = old + "\n" + _lock(("d", "0.1.0", ["numpy"], {}))
    assert changed_packages.lock_affected(old, added, names) == set()  # a new package: no one else
    assert changed_packages.lock_affected(None, old, names) == names  # unknown old lock: all


def test_template_has_no_unfilled_placeholders(root):
    dest = _scaffold(root, "my-method")
    for f in dest.rglob("*"):
        if f.is_file():
            assert "{{" not in f.read_text(), f


def test_repository_packages_are_discovered():
    names = [p.name for p in discover(TOOLS.parent)]
    assert names == sorted(names) and len(names) == len(set(names))


def test_module_never_imported_eagerly_may_use_an_extra(root):
    dest = _scaffold(root, "my-method")
    _add_torch_extra(dest)
    (dest / "src" / "my_method" / "torch_optim.py").write_text("import torch\n")
    (pkg,) = discover(root)
    assert check_packages.check(pkg, None) == []
    init = dest / "src" / "my_method" / "__init__.py"
    init.write_text(init.read_text() + "\nfrom .torch_optim import torch as _t\n")
    (pkg,) = discover(root)
    assert any("'torch'" in e for e in check_packages.check(pkg, None))
