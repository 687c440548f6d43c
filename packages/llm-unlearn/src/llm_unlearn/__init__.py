"""Large language model unlearning (Yao et al., NeurIPS 2024): gradient ascent on forget data,
random mismatch and KL to the original model, for any Hugging Face causal LM."""

from importlib.metadata import version as _version

from ._data import DEFAULT_TEMPLATE, IGNORE_INDEX, encode_qa, render_prompt, sample_mismatch
from ._generate import generate_answers
from ._losses import answer_nll, forget_loss, kl_to_reference, mismatch_loss
from ._unlearner import Unlearner, UnlearnResult

__version__ = _version("llm-unlearn")
__all__ = [
    "DEFAULT_TEMPLATE",
    "IGNORE_INDEX",
    "UnlearnResult",
    "Unlearner",
    "__version__",
    "answer_nll",
    "encode_qa",
    "forget_loss",
    "generate_answers",
    "kl_to_reference",
    "mismatch_loss",
    "render_prompt",
    "sample_mismatch",
]
