"""Offline behavior distillation (Lei, Zhang, Tao, NeurIPS 2024).

Synthesise a tiny set of (state, action) pairs from sub-optimal offline RL data so that plain
behavior cloning on it performs well: the outer objectives ``DBC``, ``PBC`` and the proposed
action-value weighted ``AvPBC``; the meta-gradient through the inner BC loop (``unroll`` or the
memory-saving ``reverse_hvp``), the outer loop ``distill`` and ``train_bc``; the exact tabular
tools behind the paper's theory (``TabularMDP``, ``q_values``, ``occupancy``, ``policy_value``,
``performance_gap_identity``, ``gap_bounds``); a slippery grid world with sub-optimal offline
data and an exact teacher.
"""

from importlib.metadata import version as _version

from .data import D4RL_KEYS, load_dataset, save_dataset
from .distill import DistillHistory, distill
from .grid import GridMDP, TabularTeacher, epsilon_greedy_dataset, policy_table, slippery_grid
from .metagrad import METHODS, meta_gradient, train_bc
from .objectives import DBC, PBC, AvPBC, bc_loss
from .policies import MLPPolicy, PolicyEnsemble
from .tabular import (
    GapBounds,
    TabularMDP,
    gap_bounds,
    occupancy,
    optimal_policy,
    optimal_q,
    performance_gap_identity,
    policy_return,
    policy_value,
    q_values,
)

__version__ = _version("behavior-distill")
__all__ = [
    "DBC",
    "METHODS",
    "PBC",
    "AvPBC",
    "D4RL_KEYS",
    "DistillHistory",
    "GapBounds",
    "GridMDP",
    "MLPPolicy",
    "PolicyEnsemble",
    "TabularMDP",
    "TabularTeacher",
    "__version__",
    "bc_loss",
    "distill",
    "epsilon_greedy_dataset",
    "gap_bounds",
    "load_dataset",
    "meta_gradient",
    "occupancy",
    "optimal_policy",
    "optimal_q",
    "performance_gap_identity",
    "policy_return",
    "policy_table",
    "policy_value",
    "q_values",
    "save_dataset",
    "slippery_grid",
    "train_bc",
]
