"""LEHD: light-encoder heavy-decoder neural solver for TSP and CVRP with random re-construction (PyTorch)."""

from importlib.metadata import version as _version

__version__ = _version("lehd-routing")
__all__ = ["__version__"]
