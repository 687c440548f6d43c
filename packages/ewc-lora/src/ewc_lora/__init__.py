"""EWC-LoRA (Xiang et al., NeurIPS 2023): a Fisher-weighted (EWC) penalty on LoRA adapter deltas
for any Hugging Face model, a minimal LoRA, the diagonal Fisher, and GridHome, a small household
world with an MCTS planner and random exploration for embodied-experience data."""

from importlib.metadata import version as _version

from .data import (
    make_activity_recognition,
    make_counting_qa,
    make_path_tracking_qa,
    make_plan_examples,
    tokenize_examples,
)
from .ewc import estimate_fisher_diag, ewc_full_penalty, ewc_lora_penalty, lora_layers
from .lora import LoRALinear, apply_lora, merge_lora
from .world import GridHome, Plan, Trajectory, format_action, mcts_plan, random_explore

__version__ = _version("ewc-lora")
__all__ = [
    "GridHome",
    "LoRALinear",
    "Plan",
    "Trajectory",
    "__version__",
    "apply_lora",
    "estimate_fisher_diag",
    "ewc_full_penalty",
    "ewc_lora_penalty",
    "format_action",
    "lora_layers",
    "make_activity_recognition",
    "make_counting_qa",
    "make_path_tracking_qa",
    "make_plan_examples",
    "mcts_plan",
    "merge_lora",
    "random_explore",
    "tokenize_examples",
]
