"""Dynamic rescaling of rescale-invariant GATv2 networks (Mustafa & Burkholz, NeurIPS 2024):
exact neuron rescaling, balancing by weight norms or relative gradients, conserved quantities,
layer focusing and an invariance checker."""

from importlib.metadata import version as _version

from . import data, init
from .model import GATv2Layer, GATv2Net
from .rescale import (
    DynamicRescaler,
    InvarianceReport,
    balance_relative_gradients_,
    balance_weight_norms_,
    check_rescale_invariance,
    conserved_quantity,
    focus_layer_,
    imbalance,
    neuron_rescale_,
    relative_gradient_balance,
    relative_gradient_norms,
)
from .training import TrainResult, train_node_classifier

__version__ = _version("gnn-rescale")
__all__ = [
    "DynamicRescaler",
    "GATv2Layer",
    "GATv2Net",
    "InvarianceReport",
    "TrainResult",
    "__version__",
    "balance_relative_gradients_",
    "balance_weight_norms_",
    "check_rescale_invariance",
    "conserved_quantity",
    "data",
    "focus_layer_",
    "imbalance",
    "init",
    "neuron_rescale_",
    "relative_gradient_balance",
    "relative_gradient_norms",
    "train_node_classifier",
]
