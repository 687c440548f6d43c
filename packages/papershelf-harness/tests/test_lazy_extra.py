"""check_lazy_extra on small generated packages: one that keeps its extra lazy, and the ways a
package can break the contract (each must be caught)."""

import sys

import pytest

from papershelf_harness.testing import check_lazy_extra

GOOD = """
__all__ = ["core"]
LAZY = ("Heavy",)

def core():
    return 1

def __getattr__(name):
    if name in LAZY:
        try:
            import papershelf_no_such_heavy  # noqa: F401
        except ImportError as e:
            raise ImportError(f"{name} needs the extra: pip install 'demo[heavy]'") from e
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

def __dir__():
    return sorted([*globals(), *LAZY])
"""


@pytest.fixture
def make(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))

    def write(name, source):
        (tmp_path / f"{name}.py").write_text(source)
        sys.modules.pop(name, None)
        return name

    yield write


def test_a_lazy_package_passes(make):
    mod = make("lazy_good", GOOD)
    check_lazy_extra(mod, names=["Heavy"], extra="demo[heavy]", heavy=["papershelf_no_such_heavy"])


def test_an_eager_heavy_import_is_caught(make):
    mod = make("lazy_eager", "import json\n" + GOOD)
    with pytest.raises(AssertionError, match="imported"):
        check_lazy_extra(mod, names=["Heavy"], extra="demo[heavy]", heavy=["json"])


def test_a_heavy_import_in_run_is_caught(make):
    mod = make("lazy_run", GOOD + "\ndef load():\n    import json\n")
    with pytest.raises(AssertionError, match="imported"):
        check_lazy_extra(mod, names=["Heavy"], extra="x", heavy=["json"], run="m.load()")


def test_an_error_not_naming_the_extra_is_caught(make):
    mod = make("lazy_vague", GOOD.replace("pip install 'demo[heavy]'", "missing"))
    with pytest.raises(AssertionError, match="does not name"):
        check_lazy_extra(
            mod, names=["Heavy"], extra="demo[heavy]", heavy=["papershelf_no_such_heavy"]
        )


def test_a_name_missing_from_dir_is_caught(make):
    mod = make("lazy_nodir", GOOD.replace("*LAZY", ""))
    with pytest.raises(AssertionError, match="does not list"):
        check_lazy_extra(
            mod, names=["Heavy"], extra="demo[heavy]", heavy=["papershelf_no_such_heavy"]
        )


def test_no_names_is_a_value_error():
    with pytest.raises(ValueError, match="names"):
        check_lazy_extra("json", names=[], extra="x")
