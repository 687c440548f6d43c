"""Offline training text: the Python standard library's own source files.

The file selection is deterministic (sorted top-level ``*.py`` files of
``sysconfig.get_paths()["stdlib"]``, split into train / held-out by a hash of the file name), and
the SHA-256 of the bytes actually used enters the cache key, so a different Python version
(different stdlib text) trains and caches a different model instead of silently reusing one.
"""

from __future__ import annotations

import hashlib
import sysconfig
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

import numpy as np

from ._checks import check_int, check_option, check_rng
from .tokenizer import BOS_ID, PAD_ID

TRAIN_BYTES = 2_000_000  # cap on training text (the top-level stdlib has ~4.7 MB)
HELDOUT_BYTES = 200_000

BatchFn = Callable[[np.random.Generator, int, int], np.ndarray]
"""``batch_fn(rng, batch_size, seq_len) -> int64[batch_size, seq_len]`` token ids (PAD_ID = no loss)."""


def _stdlib_files() -> list[Path]:
    root = Path(sysconfig.get_paths()["stdlib"])
    files = sorted(p for p in root.glob("*.py") if p.is_file())
    if not files:
        raise RuntimeError(f"no *.py files found in the standard library directory {root}")
    return files


def _is_heldout(path: Path) -> bool:
    # about one file in eight is held out, chosen by a stable hash of its name
    return hashlib.sha256(path.name.encode()).digest()[0] % 8 == 0


SPLITS = ("train", "heldout")


def corpus(split: str = "train") -> np.ndarray:
    """Bytes of the training or held-out text as ``uint8[n]`` (files joined by blank lines).

    Args:
        split: ``"train"`` or ``"heldout"`` (disjoint sets of files).
    """
    return _corpus(check_option(split, "split", SPLITS))


@lru_cache(maxsize=2)
def _corpus(split: str) -> np.ndarray:
    cap = TRAIN_BYTES if split == "train" else HELDOUT_BYTES
    chunks: list[bytes] = []
    total = 0
    for path in _stdlib_files():
        if _is_heldout(path) != (split == "heldout"):
            continue
        data = path.read_bytes() + b"\n\n"
        chunks.append(data)
        total += len(data)
        if total >= cap:
            break
    buf = np.frombuffer(b"".join(chunks)[:cap], dtype=np.uint8).copy()
    buf.flags.writeable = False
    return buf


def corpus_digest() -> str:
    """SHA-256 of the train and held-out text (part of every cache key)."""
    h = hashlib.sha256()
    for split in SPLITS:
        h.update(_corpus(split).tobytes())
    return h.hexdigest()


def lm_batch(
    rng: np.random.Generator | int | None, batch_size: int, seq_len: int, *, split: str = "train"
) -> np.ndarray:
    """Random windows of stdlib text, each preceded by ``BOS_ID``: ``int64[batch_size, seq_len]``.

    ``rng`` is a ``numpy.random.Generator`` (used as is, so successive calls continue its
    stream), an int seed or None.
    """
    rng = check_rng(rng)
    batch_size = check_int(batch_size, "batch_size", minimum=1)
    text = corpus(split)
    seq_len = check_int(seq_len, "seq_len", minimum=1, maximum=len(text))
    n = seq_len - 1
    starts = rng.integers(0, len(text) - n, size=batch_size)
    out = np.empty((batch_size, seq_len), dtype=np.int64)
    out[:, 0] = BOS_ID
    for r, s in enumerate(starts):
        out[r, 1:] = text[s : s + n]
    return out


_KEY_ALPHABET = np.frombuffer(b"abcdefghijklmnopqrstuvwxyz0123456789", dtype=np.uint8)


def header_recall_batch(
    rng: np.random.Generator | int | None,
    batch_size: int,
    seq_len: int,
    *,
    key_len: int = 8,
    split: str = "train",
) -> np.ndarray:
    """Long-range recall sequences: a random key in a header, filler text, then the key again.

    Layout (bytes): ``BOS "# key: " K "\\n" <stdlib text> "\\n# key? " K "\\n"``, with ``K`` a
    random string of ``key_len`` characters from ``[a-z0-9]``. The final ``K`` can only be
    predicted by attending back to the header, ``seq_len`` tokens earlier: a model trained on
    this task tells whether a KV-cache policy kept the header's keys and values.
    """
    rng = check_rng(rng)
    batch_size = check_int(batch_size, "batch_size", minimum=1)
    key_len = check_int(key_len, "key_len", minimum=1)
    seq_len = check_int(seq_len, "seq_len")
    text = corpus(split)
    head, query = b"# key: ", b"\n# key? "
    fixed = 1 + len(head) + key_len + 1 + len(query) + key_len + 1
    n_fill = seq_len - fixed
    if n_fill < 1 or n_fill >= len(text):
        raise ValueError(
            f"seq_len must be in ({fixed}, {fixed + len(text)}) for key_len={key_len}, got {seq_len}"
        )
    out = np.full((batch_size, seq_len), PAD_ID, dtype=np.int64)
    for r in range(batch_size):
        key = _KEY_ALPHABET[rng.integers(0, len(_KEY_ALPHABET), size=key_len)]
        s = int(rng.integers(0, len(text) - n_fill))
        row = np.concatenate(
            [
                np.array([BOS_ID]),
                np.frombuffer(head, np.uint8),
                key,
                np.frombuffer(b"\n", np.uint8),
                text[s : s + n_fill],
                np.frombuffer(query, np.uint8),
                key,
                np.frombuffer(b"\n", np.uint8),
            ]
        )
        out[r] = row
    return out


TASKS: dict[str, BatchFn] = {"lm": lm_batch, "header_recall": header_recall_batch}
