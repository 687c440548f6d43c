"""SGFormer (Wu et al., NeurIPS 2023) in pure PyTorch: one-layer simple global attention that is
linear in the number of nodes, a GCN branch, their mixture, block mini-batching and a dense
O(N^2) reference for tests."""

from importlib.metadata import version as _version

from . import graph, synthetic, train
from .attention import (
    SimpleGlobalAttention,
    dense_reference_attention,
    simple_global_attention,
    softmax_attention,
)
from .graph import gcn_norm, induced_subgraph, propagate, random_node_blocks
from .model import GCNBranch, GlobalBranch, SGFormer
from .synthetic import NodeData, csbm, long_range_task, split_nodes
from .train import FitResult, evaluate, fit

batching = graph  # ``sgformer.batching.random_node_blocks`` as in the brief

__version__ = _version("sgformer")
__all__ = [
    "FitResult",
    "GCNBranch",
    "GlobalBranch",
    "NodeData",
    "SGFormer",
    "SimpleGlobalAttention",
    "__version__",
    "batching",
    "graph",
    "synthetic",
    "train",
    "csbm",
    "dense_reference_attention",
    "evaluate",
    "fit",
    "gcn_norm",
    "induced_subgraph",
    "long_range_task",
    "propagate",
    "random_node_blocks",
    "simple_global_attention",
    "softmax_attention",
    "split_nodes",
]
