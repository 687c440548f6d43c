"""papershelf-tinylm: small byte-level Llama models trained offline in about a minute.

A test bed for the LLM packages of papershelf (speculative decoding, KV-cache eviction,
compression): real trained language models, with a realistic draft/target agreement, without
downloading weights. Text is the Python standard library's own source; weights are cached on disk
under a content key and stored as safetensors only.
"""

from importlib.metadata import version as _version

from .data import corpus, corpus_digest, header_recall_batch, lm_batch
from .models import (
    CONFIGS,
    DEFAULT_TRAIN,
    Pair,
    TrainSpec,
    cache_dir,
    content_key,
    heldout_loss,
    is_cached,
    load_model,
    load_pair,
    load_saved,
    model_config,
    model_spec,
    save_model,
    train_model,
)
from .tokenizer import BOS_ID, EOS_ID, PAD_ID, VOCAB_SIZE, ByteTokenizer, decode, encode

__version__ = _version("papershelf-tinylm")
__all__ = [
    "BOS_ID",
    "CONFIGS",
    "DEFAULT_TRAIN",
    "EOS_ID",
    "PAD_ID",
    "VOCAB_SIZE",
    "Pair",
    "ByteTokenizer",
    "TrainSpec",
    "__version__",
    "cache_dir",
    "content_key",
    "corpus",
    "corpus_digest",
    "decode",
    "encode",
    "header_recall_batch",
    "heldout_loss",
    "is_cached",
    "lm_batch",
    "load_model",
    "load_pair",
    "load_saved",
    "model_config",
    "model_spec",
    "save_model",
    "train_model",
]
