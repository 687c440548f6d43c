"""The package is installed alone with its declared dependencies only."""

import importlib.util
import tomllib
from pathlib import Path

PYPROJECT = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text())


def test_torch_free_means_no_torch():
    if PYPROJECT.get("tool", {}).get("papershelf", {}).get("torch-free", False):
        assert importlib.util.find_spec("torch") is None, "torch is installed in a torch-free env"
