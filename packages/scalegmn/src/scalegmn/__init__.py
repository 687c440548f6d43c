"""ScaleGMN: scale- and permutation-equivariant graph metanetworks that process MLP and CNN weights, in pure PyTorch."""

from importlib.metadata import version as _version

from . import datasets, train, zoo
from .cnn import cnn_apply_permutation, cnn_apply_scaling, forward_cnn
from .graph import NNGraph, cnn_to_graph, graph_to_mlp, mlp_to_graph
from .layers import EdgeUpdate, ReScaleEqMessage, ScaleEq, ScaleInv
from .model import GMNLayer, ScaleGMN, ScaleGMNEquivariant
from .symmetry import (
    apply_permutation,
    apply_scaling,
    canonicalize_sign,
    canonicalize_sine_phase,
    forward_mlp,
    random_permutation,
    random_scaling,
)

__version__ = _version("scalegmn")
__all__ = [
    "EdgeUpdate",
    "GMNLayer",
    "NNGraph",
    "ReScaleEqMessage",
    "ScaleEq",
    "ScaleGMN",
    "ScaleGMNEquivariant",
    "ScaleInv",
    "__version__",
    "apply_permutation",
    "apply_scaling",
    "canonicalize_sign",
    "canonicalize_sine_phase",
    "datasets",
    "cnn_apply_permutation",
    "cnn_apply_scaling",
    "cnn_to_graph",
    "forward_cnn",
    "forward_mlp",
    "graph_to_mlp",
    "mlp_to_graph",
    "random_permutation",
    "random_scaling",
    "train",
    "zoo",
]
