"""SUGARCREPE++ (Dumpala et al., NeurIPS 2024 Datasets and Benchmarks): the shipped caption
triplets, the exact TOT/ITT metrics, pluggable encoders and an evaluation harness (numpy core).
"""

from importlib.metadata import version as _version

from .data import CATEGORIES, SIZES, Triplet, data_dir, load_triplets
from .encoders import (
    BagOfWordsEncoder,
    ImageEncoder,
    ImageFolder,
    OpenCLIPEncoder,
    SentenceTransformerEncoder,
    TextEncoder,
    shipped_vocabulary,
    tokenize,
)
from .evaluate import TASKS, Report, evaluate, evaluate_triplets
from .lexical import dataset_stats, jaccard
from .metrics import METRICS, accuracy, cosine, itt_correct, tot_correct

__version__ = _version("sugarcrepe-pp")
__all__ = [
    "CATEGORIES",
    "METRICS",
    "SIZES",
    "TASKS",
    "BagOfWordsEncoder",
    "ImageEncoder",
    "ImageFolder",
    "OpenCLIPEncoder",
    "Report",
    "SentenceTransformerEncoder",
    "TextEncoder",
    "Triplet",
    "__version__",
    "accuracy",
    "cosine",
    "data_dir",
    "dataset_stats",
    "evaluate",
    "evaluate_triplets",
    "itt_correct",
    "jaccard",
    "load_triplets",
    "shipped_vocabulary",
    "tokenize",
    "tot_correct",
]
