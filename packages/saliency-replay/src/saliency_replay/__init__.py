"""Saliency-driven Experience Replay (SER): saliency-modulated classifiers wrapping ER, DER++ and
ER-ACE for online continual learning (Bellitto et al., NeurIPS 2024)."""

from importlib.metadata import version as _version

from .buffer import BufferSample, ReservoirBuffer
from .losses import kld_saliency_loss, proxy_saliency
from .models import ModulatedClassifier, SaliencyEncoderDecoder, small_cnn
from .scenario import Task, accuracy, average_accuracy, forgetting, run_stream, split_dataset
from .strategies import ER, ERACE, SER, DERpp

__version__ = _version("saliency-replay")
__all__ = [
    "DERpp",
    "ER",
    "ERACE",
    "SER",
    "BufferSample",
    "ModulatedClassifier",
    "ReservoirBuffer",
    "SaliencyEncoderDecoder",
    "Task",
    "__version__",
    "accuracy",
    "average_accuracy",
    "forgetting",
    "kld_saliency_loss",
    "proxy_saliency",
    "run_stream",
    "small_cnn",
    "split_dataset",
]
