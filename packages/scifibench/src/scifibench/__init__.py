"""SciFIBench (Roberts et al., NeurIPS 2024 D&B) as a toolkit: mined-negative curation,
question building, the paper's prompts, offline answer extraction, bootstrap and evaluation of
any multimodal model or dual encoder."""

from importlib.metadata import version as _version

from ._question import LETTERS, TASKS, Question, letters
from .alignment import augment
from .curate import (
    Tiers,
    dedupe_captions,
    difficulty,
    joint_embedding,
    knn_negatives,
    make_questions,
    random_negatives,
    strip_figure_number,
    tiered_split,
)
from .data import from_records
from .evaluate import ChatSolver, ClipStyleSolver, Report, evaluate, shuffle_options
from .extract import EXTRACTION_PROMPT, LLMExtractor, extract_letter
from .llm import LLMChatModel, ScriptedLLM
from .prompts import build_prompt
from .stats import bootstrap
from .synthetic import LookupEncoder, SyntheticWorld, synthetic_world

__version__ = _version("scifibench")
__all__ = [
    "EXTRACTION_PROMPT",
    "LETTERS",
    "TASKS",
    "ChatSolver",
    "ClipStyleSolver",
    "LLMChatModel",
    "LLMExtractor",
    "LookupEncoder",
    "Question",
    "Report",
    "ScriptedLLM",
    "SyntheticWorld",
    "Tiers",
    "__version__",
    "augment",
    "bootstrap",
    "build_prompt",
    "dedupe_captions",
    "difficulty",
    "evaluate",
    "extract_letter",
    "from_records",
    "joint_embedding",
    "knn_negatives",
    "letters",
    "make_questions",
    "random_negatives",
    "shuffle_options",
    "strip_figure_number",
    "synthetic_world",
    "tiered_split",
]
