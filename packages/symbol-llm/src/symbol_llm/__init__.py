"""Symbol-LLM: LLM-built symbol-rule bases and vectorised fuzzy reasoning for visual human
activity recognition (Wu et al., NeurIPS 2023)."""

from importlib.metadata import PackageNotFoundError, version

from ._llm import HFLLM, LLM, ScriptedLLM
from .fuse import fuse, tune_weights
from .generate import (
    CHOICES,
    HashingEncoder,
    TextEncoder,
    condition_prompt,
    entailment_prompt,
    generate_rules,
    initial_prompt,
    parse_condition,
    parse_probability_choice,
    parse_symbols,
)
from .logic import TNORMS, activity_scores, rule_scores, t_norm, yes_no_prob
from .metrics import ap_11pt, mean_ap
from .rules import Rule, RuleBase, RuleMatrix

try:
    __version__ = version("symbol-llm")
except PackageNotFoundError:  # pragma: no cover
    __version__ = "0.0.0"

__all__ = [
    "CHOICES",
    "HFLLM",
    "LLM",
    "TNORMS",
    "HashingEncoder",
    "Rule",
    "RuleBase",
    "RuleMatrix",
    "ScriptedLLM",
    "TextEncoder",
    "activity_scores",
    "ap_11pt",
    "condition_prompt",
    "entailment_prompt",
    "fuse",
    "generate_rules",
    "initial_prompt",
    "mean_ap",
    "parse_condition",
    "parse_probability_choice",
    "parse_symbols",
    "rule_scores",
    "t_norm",
    "tune_weights",
    "yes_no_prob",
]
