"""LEHD: light-encoder heavy-decoder neural solver for TSP and CVRP with random re-construction
(PyTorch).

``lehd_routing.tsp`` and ``lehd_routing.cvrp`` hold the problem utilities (numpy); the model,
its training and its decoders are at the top level.
"""

from importlib.metadata import version as _version

from . import cvrp, tsp
from .model import LEHD, FitResult, fit, greedy, greedy_cvrp, rrc
from .subproblems import sample_subpaths

# the issue names these inside the problem modules too
tsp.sample_subpaths = sample_subpaths
cvrp.greedy_cvrp = greedy_cvrp

__version__ = _version("lehd-routing")
__all__ = [
    "LEHD",
    "FitResult",
    "__version__",
    "cvrp",
    "fit",
    "greedy",
    "greedy_cvrp",
    "rrc",
    "sample_subpaths",
    "tsp",
]
