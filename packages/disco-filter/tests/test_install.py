"""The package is installed alone with its declared dependencies only."""

import importlib.util
import tomllib
from pathlib import Path

PYPROJECT = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text())


def test_torch_free_means_no_torch():
    # tests_extras installs the `st` extra (sentence-transformers brings torch); the plain
    # test environment has the package and its numpy dependency only
    if importlib.util.find_spec("sentence_transformers") is not None:
        return
    if PYPROJECT.get("tool", {}).get("papershelf", {}).get("torch-free", False):
        assert importlib.util.find_spec("torch") is None, "torch is installed in a torch-free env"


def test_import_does_not_import_optional_backends():
    import subprocess
    import sys

    code = "import disco_filter, sys; print('torch' in sys.modules, 'sentence_transformers' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]
