"""pecl-detect: PECL pseudo-label selection for sparsely annotated oriented object detection.

The numpy core (sparsifier, oriented-box geometry, VOC AP, clues, evaluator, exploration loop)
needs no torch; :class:`DDPGExplorer` needs the ``torch`` extra and is imported on first use.
"""

from importlib.metadata import PackageNotFoundError, version

from .baselines import (
    DOTA_RELEASE_THRESHOLDS,
    global_threshold,
    oracle_best_threshold,
    per_class_threshold,
    top_k_per_class,
)
from .clues import (
    build_state,
    conformal_clue,
    entropy_bits,
    evaluator_delta,
    multi_clue_reward,
    prototype_similarity,
)
from .dota import DotaLabels, read_dota, write_dota
from .geometry import enlarge_obb, obb_iou, obb_to_poly, poly_to_obb
from .loop import (
    Candidates,
    DetectorBackend,
    LoopResult,
    ProgressiveLoop,
    RoundRecord,
    ToyDetector,
    explore_and_learn,
    explore_image,
)
from .metrics import MapResult, dota_map, voc_ap
from .prototypes import PrototypeBank, sinkhorn
from .sparse import Patch, patch_origins, patchify_boxes, sparsify
from .toy import ToySAOD, make_toy_saod

try:
    __version__ = version("pecl-detect")
except PackageNotFoundError:  # pragma: no cover - source tree without metadata
    __version__ = "0.0.0"

__all__ = [
    "DOTA_RELEASE_THRESHOLDS",
    "global_threshold",
    "oracle_best_threshold",
    "per_class_threshold",
    "top_k_per_class",
    "Candidates",
    "DDPGExplorer",
    "DetectorBackend",
    "DotaLabels",
    "LoopResult",
    "MapResult",
    "Patch",
    "ProgressiveLoop",
    "PrototypeBank",
    "RoundRecord",
    "ToyDetector",
    "ToySAOD",
    "dota_map",
    "enlarge_obb",
    "make_toy_saod",
    "read_dota",
    "sinkhorn",
    "write_dota",
    "__version__",
    "build_state",
    "conformal_clue",
    "entropy_bits",
    "evaluator_delta",
    "explore_and_learn",
    "explore_image",
    "multi_clue_reward",
    "obb_iou",
    "patch_origins",
    "patchify_boxes",
    "obb_to_poly",
    "poly_to_obb",
    "prototype_similarity",
    "sparsify",
    "voc_ap",
]


def __getattr__(name):
    if name == "DDPGExplorer":
        try:
            from .explorer import DDPGExplorer
        except ModuleNotFoundError as e:  # pragma: no cover - depends on the environment
            if e.name == "torch":
                raise ImportError(
                    "DDPGExplorer needs torch: pip install 'pecl-detect[torch]'"
                ) from e
            raise
        return DDPGExplorer
    raise AttributeError(f"module 'pecl_detect' has no attribute {name!r}")
