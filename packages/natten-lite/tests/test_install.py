"""The package is installed alone with its declared dependencies only."""

import importlib.util
import tomllib
from pathlib import Path

PYPROJECT = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text())


def test_torch_free_means_no_torch():
    if PYPROJECT.get("tool", {}).get("papershelf", {}).get("torch-free", False):
        assert importlib.util.find_spec("torch") is None, "torch is installed in a torch-free env"


def test_numpy_is_a_runtime_dependency():
    # backend="triton" on CPU tensors under TRITON_INTERPRET=1 is part of the contract, and
    # Triton's interpreter imports numpy: without it the wheel installed alone fails there.
    deps = PYPROJECT["project"]["dependencies"]
    assert any(d.split(">")[0].split("=")[0].strip() == "numpy" for d in deps), deps
