"""disco-filter: the DISCO-10M "does this video carry this track?" filter, streaming.

Records are dicts with DISCO-10M's fields. Exact similarities (:func:`cosine_rows`,
:func:`duration_similarity`), stages that score and filter (:class:`DurationStage`,
:class:`AudioStage`, :class:`TextStage`, :class:`ThresholdStage`, :class:`DedupStage`,
:class:`PredicateStage`), a lazy :class:`Pipeline` with a per-stage :class:`Report`, exact
threshold calibration (:func:`fit_threshold`), subsets (:func:`random_subset`,
:func:`top_subset`) and an exact cosine kNN index (:class:`EmbeddingIndex`).
"""

from importlib.metadata import version as _version

from .calibrate import Threshold, auroc, fit_threshold
from .encoders import AudioEncoder, LogMelStatsAudio, SentenceTransformerText, TextEncoder
from .index import EmbeddingIndex
from .jsonl import RecordError, read_jsonl
from .pipeline import (
    AudioStage,
    DedupStage,
    DurationStage,
    Pipeline,
    PredicateStage,
    Report,
    Stage,
    StageCount,
    TextStage,
    ThresholdStage,
)
from .schema import EMBEDDING_DIM, EMBEDDING_FIELDS, FIELDS, DiscoRecord
from .similarity import cosine_rows, duration_similarity
from .subsets import random_subset, top_subset

__version__ = _version("disco-filter")
__all__ = [
    "EMBEDDING_DIM",
    "EMBEDDING_FIELDS",
    "FIELDS",
    "AudioEncoder",
    "AudioStage",
    "DedupStage",
    "DiscoRecord",
    "DurationStage",
    "EmbeddingIndex",
    "LogMelStatsAudio",
    "Pipeline",
    "PredicateStage",
    "RecordError",
    "Report",
    "SentenceTransformerText",
    "Stage",
    "StageCount",
    "TextEncoder",
    "TextStage",
    "Threshold",
    "ThresholdStage",
    "__version__",
    "auroc",
    "cosine_rows",
    "duration_similarity",
    "fit_threshold",
    "random_subset",
    "read_jsonl",
    "top_subset",
]
