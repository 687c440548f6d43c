"""spectr-decode: SpecTr multi-draft speculative decoding via optimal transport.

SpecTr: Fast Speculative Decoding via Optimal Transport (Sun, Suresh, Ro, Beirami, Jain, Yu;
NeurIPS 2023) - https://arxiv.org/abs/2310.15141

* :mod:`spectr_decode.core` - K-SEQ draft selection, its closed forms, the exact LP (numpy/scipy).
* :mod:`spectr_decode.decode` - SpecTr decoding and the speculative / autoregressive baselines for
  Hugging Face causal LMs (``hf`` extra) or plain log-prob callables.
* :mod:`spectr_decode.toy` - tabular Markov LMs for exact statistical tests.
"""

from importlib.metadata import version as _version

from .core import (
    acceptance_upper_bound,
    beta,
    kseq_acceptance,
    kseq_output_distribution,
    kseq_residual,
    kseq_select,
    maximal_coupling_acceptance,
    optimal_acceptance_lp,
    optimal_acceptance_mincut,
    solve_rho,
)
from .decode import (
    GenerationStats,
    autoregressive_generate,
    spectr_generate,
    speculative_generate,
    warp,
)
from .toy import MarkovLM

__version__ = _version("spectr-decode")
__all__ = [
    "GenerationStats",
    "MarkovLM",
    "__version__",
    "acceptance_upper_bound",
    "autoregressive_generate",
    "beta",
    "kseq_acceptance",
    "kseq_output_distribution",
    "kseq_residual",
    "kseq_select",
    "maximal_coupling_acceptance",
    "optimal_acceptance_lp",
    "optimal_acceptance_mincut",
    "solve_rho",
    "spectr_generate",
    "speculative_generate",
    "warp",
]
