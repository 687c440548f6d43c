"""Cappy (Tan et al., NeurIPS 2023): a small scorer that classifies by scoring each answer choice
and boosts a black-box LLM by picking the best of its candidates (torch, any Hugging Face
sequence classifier with one output)."""

from importlib.metadata import version as _version

from .data import TrainingPair, build_training_pairs, rouge_l
from .llm import (
    DEFAULT_DECODINGS,
    SelectionReport,
    evaluate_selection,
    generate_candidates,
    self_score,
)
from .scorer import CappyScorer, Selection
from .tokenizer import SPECIAL_TOKENS, roberta_config, word_tokenizer
from .train import train_scorer

__version__ = _version("cappy-scorer")
__all__ = [
    "DEFAULT_DECODINGS",
    "SPECIAL_TOKENS",
    "CappyScorer",
    "Selection",
    "SelectionReport",
    "TrainingPair",
    "__version__",
    "build_training_pairs",
    "evaluate_selection",
    "generate_candidates",
    "roberta_config",
    "rouge_l",
    "self_score",
    "train_scorer",
    "word_tokenizer",
]
