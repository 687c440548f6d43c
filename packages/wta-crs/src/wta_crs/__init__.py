"""Winner-Take-All Column-Row Sampling (WTA-CRS, Liu et al., NeurIPS 2023).

Unbiased, low-variance estimates of a linear layer's weight gradient ``GᵀX`` from k of its n
input rows, and ``WTALinear``, an ``nn.Linear`` that saves only those rows for backward.
"""

from importlib.metadata import version as _version

from .estimators import (
    choose_num_deterministic,
    crs_matmul_grad,
    crs_variance,
    topk_matmul_grad,
    wta_crs_matmul_grad,
    wta_crs_variance,
)
from .layers import (
    GradNormCache,
    WTALinear,
    convert_linear_layers,
    saved_activation_bytes,
    select_rows,
)

__version__ = _version("wta-crs")
__all__ = [
    "GradNormCache",
    "WTALinear",
    "__version__",
    "choose_num_deterministic",
    "convert_linear_layers",
    "crs_matmul_grad",
    "crs_variance",
    "saved_activation_bytes",
    "select_rows",
    "topk_matmul_grad",
    "wta_crs_matmul_grad",
    "wta_crs_variance",
]
