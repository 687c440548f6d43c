"""clipped-sgd: streaming heavy-tailed statistical estimation with Clipped-SGD.

Near-Optimal Streaming Heavy-Tailed Statistical Estimation with Clipped SGD
(Das, Nagaraj, Pal, Suggala, Varshney; NeurIPS 2024) - https://arxiv.org/abs/2410.20135

* :class:`ClippedSGD` - the optimizer state (one step per sample or mini-batch, O(d) memory);
  :class:`PlainSGD` - the unclipped baseline with the same step sizes.
* :class:`StreamingMean`, :class:`StreamingLinearRegression`, :class:`StreamingLogisticRegression` -
  scikit-learn estimators with ``fit`` / ``partial_fit``.
* :func:`sample_mean`, :func:`median_of_means`, :func:`geometric_median_of_means`,
  :func:`geometric_median` - batch baselines.
* :func:`clip_norm`, :func:`clip_level`, :func:`strongly_convex_step`, :func:`project_ball`,
  :func:`estimate_noise_trace` - the functional core; :func:`heavy_tailed_noise` - test noise.
"""

from importlib.metadata import version as _version

from .baselines import geometric_median, geometric_median_of_means, median_of_means, sample_mean
from .data import heavy_tailed_noise
from .estimators import StreamingLinearRegression, StreamingLogisticRegression, StreamingMean
from .functional import (
    ClipResult,
    clip_level,
    clip_norm,
    estimate_noise_trace,
    project_ball,
    strongly_convex_step,
)
from .optimizer import ClippedSGD, PlainSGD

__version__ = _version("clipped-sgd")
__all__ = [
    "ClipResult",
    "ClippedSGD",
    "PlainSGD",
    "StreamingLinearRegression",
    "StreamingLogisticRegression",
    "StreamingMean",
    "__version__",
    "clip_level",
    "clip_norm",
    "estimate_noise_trace",
    "geometric_median",
    "geometric_median_of_means",
    "heavy_tailed_noise",
    "median_of_means",
    "project_ball",
    "sample_mean",
    "strongly_convex_step",
]
