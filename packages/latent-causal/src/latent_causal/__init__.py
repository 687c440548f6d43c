"""Learning nonparametric latent causal graphs (measurement models) from unknown latent interventions."""

from importlib.metadata import version as _version

from ._metrics import match_hidden, shd
from ._model import (
    MeasurementModel,
    oracle_shift_set,
    oracle_udg,
    random_measurement_model,
    sample,
    sample_environments,
)
from ._recover import LearnResult, equivalence_class, learn, recover_bipartite, recover_latent_dag
from ._stats import chatterjee_xi, estimate_shift_set, estimate_udg, hsic_pvalue

__version__ = _version("latent-causal")
__all__ = [
    "LearnResult",
    "MeasurementModel",
    "__version__",
    "chatterjee_xi",
    "estimate_shift_set",
    "equivalence_class",
    "estimate_udg",
    "hsic_pvalue",
    "learn",
    "match_hidden",
    "oracle_shift_set",
    "oracle_udg",
    "random_measurement_model",
    "recover_bipartite",
    "recover_latent_dag",
    "sample",
    "sample_environments",
    "shd",
]
