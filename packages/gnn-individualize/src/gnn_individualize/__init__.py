"""Node individualization schemes for GNNs (Tinhofer, Tinhofer_W, relational pooling, RNI),
deterministic 1-WL colour refinement, and torch GraphConv/EGONN models.

The numpy core (``wl``, ``schemes``, ``data``, ``ego``, ``theory``) never imports torch;
``gnn_individualize.models`` needs the ``torch`` extra and is imported on first use.
"""

from importlib import import_module
from importlib.metadata import version as _version

from . import data, ego, theory
from .ego import EgoBatch, ego_batch, ego_nets
from .schemes import binary_code, relational_pooling, rni, tinhofer, tinhofer_order, tinhofer_w
from .theory import count_distinct_inputs, covering_number, individualize
from .wl import color_refinement, stable_partition, wl_equivalent

__version__ = _version("gnn-individualize")
__all__ = [
    "EgoBatch",
    "__version__",
    "binary_code",
    "color_refinement",
    "count_distinct_inputs",
    "covering_number",
    "data",
    "ego",
    "ego_batch",
    "ego_nets",
    "individualize",
    "relational_pooling",
    "rni",
    "stable_partition",
    "theory",
    "tinhofer",
    "tinhofer_order",
    "tinhofer_w",
    "wl_equivalent",
]


def __getattr__(name: str):
    if name == "models":  # torch extra, imported lazily
        return import_module(".models", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
