"""H2O: heavy-hitter KV-cache eviction as a drop-in Hugging Face cache.

Zhang et al., "H2O: Heavy-Hitter Oracle for Efficient Generative Inference of Large Language
Models", NeurIPS 2023, https://arxiv.org/abs/2306.14048.
"""

from importlib.metadata import version as _version

from .cache import H2OCache, H2OLayer, register
from .generation import (
    Generation,
    MaskModeResult,
    h2o_generate,
    h2o_mask_mode,
    h2o_perplexity,
    h2o_token_nll,
)
from .policy import H2OState, select_keep

register()

__version__ = _version("h2o-cache")
__all__ = [
    "Generation",
    "H2OCache",
    "H2OLayer",
    "H2OState",
    "MaskModeResult",
    "__version__",
    "h2o_generate",
    "h2o_mask_mode",
    "h2o_perplexity",
    "h2o_token_nll",
    "register",
    "select_keep",
]
