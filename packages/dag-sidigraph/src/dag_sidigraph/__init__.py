"""Learning representations for hierarchies with minimal support (Rozonoyer et al., NeurIPS 2024).

The numpy/scipy core (no torch): transitive closure and reduction of dense adjacency matrices
(``adj[u, v]`` = u above v), the TC-DAG test, the minimal distinguishing sidigraph
(``minimal_sidigraph``: transitive reduction + minimal negatives E_{H*}), an exact
``is_distinguishing`` verifier, ``stats``, generators (``balanced_tree``, ``ncrp``, ``price_dag``,
``enumerate_posets``), the ``PairSampler`` of training pairs and the metrics ``best_f1`` and
``auf1c``. The ``[torch]`` extra adds ``SimVec``, ``BoxEmbedding``, ``train`` and ``TrainHistory``
(``dag_sidigraph.models``), imported lazily on first access: ``dag_sidigraph.BoxEmbedding``
works when torch is installed, and ``import dag_sidigraph`` never imports torch.
"""

from importlib.metadata import version as _version

from .generators import balanced_tree, enumerate_posets, ncrp, num_posets, price_dag
from .graph import (
    Sidigraph,
    SidigraphStats,
    is_distinguishing,
    is_tc_dag,
    minimal_negatives,
    minimal_sidigraph,
    stats,
    topological_levels,
    transitive_closure,
    transitive_reduction,
)
from .metrics import auf1c, best_f1
from .sampling import PairSampler

__version__ = _version("dag-sidigraph")
__all__ = [
    "PairSampler",
    "Sidigraph",
    "SidigraphStats",
    "__version__",
    "auf1c",
    "balanced_tree",
    "best_f1",
    "enumerate_posets",
    "is_distinguishing",
    "is_tc_dag",
    "minimal_negatives",
    "minimal_sidigraph",
    "ncrp",
    "num_posets",
    "price_dag",
    "stats",
    "topological_levels",
    "transitive_closure",
    "transitive_reduction",
]

#: Names of the torch extra (``dag_sidigraph.models``), imported on first access.
TORCH_NAMES = ("BoxEmbedding", "SimVec", "TrainHistory", "train")


def __getattr__(name):
    if name in TORCH_NAMES:
        try:
            from . import models
        except ImportError as e:  # pragma: no cover - depends on the environment
            raise ImportError(
                f"dag_sidigraph.{name} needs PyTorch: pip install 'dag-sidigraph[torch]' ({e})"
            ) from None
        return getattr(models, name)
    raise AttributeError(f"module 'dag_sidigraph' has no attribute {name!r}")


def __dir__():
    return sorted([*__all__, *TORCH_NAMES])
