"""DEPICT: white-box, fully attentional MSSA/MSCA segmentation decoders for ViT patch tokens, with the Segmenter baseline and compression diagnostics."""

from importlib.metadata import version as _version

from .attention import MSSA, SubspaceTransformer
from .decoder import DepictDecoder, SegmenterMaskTransformer, TransformerBlock
from .encoder import SegmentationModel, TimmPatchTokens, TinyViTEncoder
from .metrics import (
    coding_rate,
    mean_iou,
    orthogonality_gap,
    perturb_params,
    subspace_coding_rates,
)

__version__ = _version("depict-seg")
__all__ = [
    "MSSA",
    "DepictDecoder",
    "SegmentationModel",
    "SegmenterMaskTransformer",
    "SubspaceTransformer",
    "TimmPatchTokens",
    "TinyViTEncoder",
    "TransformerBlock",
    "__version__",
    "coding_rate",
    "mean_iou",
    "orthogonality_gap",
    "perturb_params",
    "subspace_coding_rates",
]
