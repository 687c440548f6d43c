"""SOFTS: multivariate time-series forecasting with STAR series-core fusion (Han et al., NeurIPS 2024)."""

from importlib.metadata import PackageNotFoundError, version

from . import data, metrics, synthetic, train
from .data import StandardScaler, chronological_split, load_csv, sliding_windows
from .forecast import Forecast, forecast
from .metrics import mae, mse, per_horizon
from .model import SOFTS, ChannelLinear, ITransformerLite, SeriesMLP
from .star import POOLINGS, STAR
from .synthetic import make_series
from .train import FitResult, fit, predict

try:
    __version__ = version("softs-ts")
except PackageNotFoundError:  # pragma: no cover
    __version__ = "0.0.0"

__all__ = [
    "POOLINGS",
    "SOFTS",
    "STAR",
    "ChannelLinear",
    "FitResult",
    "Forecast",
    "ITransformerLite",
    "SeriesMLP",
    "StandardScaler",
    "__version__",
    "chronological_split",
    "data",
    "fit",
    "forecast",
    "load_csv",
    "mae",
    "make_series",
    "metrics",
    "mse",
    "per_horizon",
    "predict",
    "sliding_windows",
    "synthetic",
    "train",
]
