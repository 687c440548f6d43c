"""LaCLIP (Fan et al., NeurIPS 2023): CLIP training with LLM language rewrites — in-context
rewrite prompts, a text-augmented dataset, CLIP's loss and zero-shot evaluation."""

from importlib.metadata import version as _version

from .clip import clip_loss, zero_shot_accuracy, zero_shot_classifier
from .data import TextAugmentedDataset
from .rewrite import INSTRUCTION, LLMRewriter, build_icl_prompt, parse_rewrite

__version__ = _version("laclip")
__all__ = [
    "INSTRUCTION",
    "LLMRewriter",
    "TextAugmentedDataset",
    "__version__",
    "build_icl_prompt",
    "clip_loss",
    "parse_rewrite",
    "zero_shot_accuracy",
    "zero_shot_classifier",
]
