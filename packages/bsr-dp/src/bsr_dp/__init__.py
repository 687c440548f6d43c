"""bsr-dp: banded square-root (BSR) matrix factorization for differentially private training.

Kalinin & Lampert, "Banded Square Root Matrix Factorization for Differentially Private Model
Training", NeurIPS 2024 - https://arxiv.org/abs/2405.13763

The numpy/scipy core (`functional`, `baselines`, `noise`) needs no torch; `DPMFSGD`, the PyTorch
optimizer, is imported lazily and needs the ``bsr-dp[torch]`` extra.
"""

from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as _version

from .baselines import DenseErrors, aof, dpsgd_coefs, matrix_se, optimize_banded_toeplitz
from .functional import (
    brute_force_sensitivity,
    bsr_coefs,
    inverse_toeplitz_coefs,
    max_se,
    mean_se,
    minsep_sensitivity,
    per_step_error,
    sqrt_toeplitz_coefs,
    toeplitz_matrix,
    workload_momentum,
)
from .noise import CorrelatedNoise

try:
    __version__ = _version("bsr-dp")
except PackageNotFoundError:  # running from a source tree
    __version__ = "0+unknown"

# DPMFSGD (torch extra) is reachable as bsr_dp.DPMFSGD but kept out of __all__, so that
# `from bsr_dp import *` never imports torch.
__all__ = [
    "CorrelatedNoise",
    "DenseErrors",
    "__version__",
    "aof",
    "brute_force_sensitivity",
    "bsr_coefs",
    "dpsgd_coefs",
    "inverse_toeplitz_coefs",
    "matrix_se",
    "max_se",
    "mean_se",
    "minsep_sensitivity",
    "optimize_banded_toeplitz",
    "per_step_error",
    "sqrt_toeplitz_coefs",
    "toeplitz_matrix",
    "workload_momentum",
]


def __getattr__(name: str):
    if name == "DPMFSGD":  # torch is an optional extra: import it only when asked for
        try:
            from .torch_optim import DPMFSGD
        except ModuleNotFoundError as err:
            if err.name != "torch":
                raise
            raise ImportError("DPMFSGD needs PyTorch: pip install 'bsr-dp[torch]'") from err
        return DPMFSGD
    raise AttributeError(f"module 'bsr_dp' has no attribute {name!r}")


def __dir__():
    return sorted([*globals(), "DPMFSGD"])
