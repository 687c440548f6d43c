"""H2O: heavy-hitter KV-cache eviction as a drop-in Hugging Face cache.

Zhang et al., "H2O: Heavy-Hitter Oracle for Efficient Generative Inference of Large Language
Models", NeurIPS 2023, https://arxiv.org/abs/2306.14048.
"""

from importlib.metadata import version as _version

from .cache import H2OCache, H2OLayer, register
from .policy import H2OState, select_keep

register()

__version__ = _version("h2o-cache")
__all__ = ["H2OCache", "H2OLayer", "H2OState", "__version__", "register", "select_keep"]
