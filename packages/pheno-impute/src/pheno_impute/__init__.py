"""MPI phenotype imputation with multi-modal biology via view decoupling: residual-quantized
biological factors, two-view LightGCN, cross-view contrastive distillation, as a scikit-learn
transformer."""

from importlib.metadata import version as _version

from . import data
from .imputer import MPIImputer
from .metrics import hit_at_k, mrr
from .quantize import ResidualQuantizer

__version__ = _version("pheno-impute")
__all__ = ["MPIImputer", "ResidualQuantizer", "__version__", "data", "hit_at_k", "mrr"]
