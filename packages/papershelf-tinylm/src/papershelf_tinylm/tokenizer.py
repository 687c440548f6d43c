"""Byte-level tokenizer: token id = byte value (0-255) plus three special ids.

It offers the small part of the Hugging Face tokenizer surface that generation code touches
(``__call__``, ``encode``, ``decode``, ``batch_decode``, the special-token ids and
``vocab_size``), with no files and no downloads.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from ._checks import check_array, check_bool, check_option, describe

N_BYTES = 256
BOS_ID = 256  # start of a sequence
EOS_ID = 257  # end of a sequence
PAD_ID = 258  # padding (never trained on)
VOCAB_SIZE = 260  # 256 bytes + 3 specials, rounded up to a multiple of 4 (id 259 unused)
SPECIAL_IDS = frozenset({BOS_ID, EOS_ID, PAD_ID, VOCAB_SIZE - 1})


def encode(text: str, *, add_bos: bool = False) -> list[int]:
    """UTF-8 bytes of ``text`` as token ids, optionally preceded by ``BOS_ID``.

    >>> encode("hi")
    [104, 105]
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {describe(text)}")
    add_bos = check_bool(add_bos, "add_bos")
    ids = list(text.encode("utf-8"))
    return [BOS_ID, *ids] if add_bos else ids


def decode(ids: Iterable[int], *, skip_special_tokens: bool = True) -> str:
    """Inverse of :func:`encode`; invalid UTF-8 is replaced, special ids are dropped.

    Special ids are always dropped from the text (they have no byte); with
    ``skip_special_tokens=False`` they are rendered as ``<bos>``/``<eos>``/``<pad>``.

    >>> decode([104, 105])
    'hi'
    """
    skip_special_tokens = check_bool(skip_special_tokens, "skip_special_tokens")
    if type(ids).__module__.startswith("torch") and hasattr(ids, "tolist"):
        ids = ids.tolist()  # a tensor of ids
    elif isinstance(ids, Iterable) and not isinstance(ids, np.ndarray | list | tuple | str | bytes):
        ids = list(ids)  # a generator or range
    ids = check_array(ids, "ids", ndim=(0, 1), dtype="int", allow_empty=True).reshape(-1).tolist()
    out = bytearray()
    parts: list[str] = []
    names = {BOS_ID: "<bos>", EOS_ID: "<eos>", PAD_ID: "<pad>", VOCAB_SIZE - 1: "<unk>"}
    for i in ids:
        i = int(i)
        if 0 <= i < N_BYTES:
            out.append(i)
        elif i in SPECIAL_IDS:
            if not skip_special_tokens:
                parts.append(out.decode("utf-8", errors="replace"))
                out = bytearray()
                parts.append(names[i])
        else:
            raise ValueError(f"ids must be token ids in [0, {VOCAB_SIZE}), got {i}")
    parts.append(out.decode("utf-8", errors="replace"))
    return "".join(parts)


class ByteTokenizer:
    """Minimal Hugging Face-style tokenizer over bytes (vocabulary of ``VOCAB_SIZE``).

    >>> tok = ByteTokenizer()
    >>> tok("ab")["input_ids"]
    [256, 97, 98]
    >>> tok.decode(tok.encode("héllo"))
    'héllo'
    """

    vocab_size = VOCAB_SIZE
    bos_token_id = BOS_ID
    eos_token_id = EOS_ID
    pad_token_id = PAD_ID
    bos_token = "<bos>"
    eos_token = "<eos>"
    pad_token = "<pad>"
    padding_side = "left"

    def __init__(self, *, add_bos: bool = True):
        self.add_bos = check_bool(add_bos, "add_bos")

    def __len__(self) -> int:
        return VOCAB_SIZE

    def encode(self, text: str, add_special_tokens: bool = True) -> list[int]:
        """Token ids of ``text`` (with ``BOS`` first when ``add_special_tokens`` and ``add_bos``)."""
        add_special_tokens = check_bool(add_special_tokens, "add_special_tokens")
        return encode(text, add_bos=self.add_bos and add_special_tokens)

    def decode(self, ids: Iterable[int], skip_special_tokens: bool = True) -> str:
        """Text of ``ids`` (one sequence)."""
        return decode(ids, skip_special_tokens=skip_special_tokens)

    def batch_decode(
        self, batch: Iterable[Iterable[int]], skip_special_tokens: bool = True
    ) -> list[str]:
        """Texts of a batch of id sequences."""
        if hasattr(batch, "tolist"):
            batch = batch.tolist()
        if isinstance(batch, str | bytes) or not isinstance(batch, Iterable):
            raise TypeError(f"batch must be a sequence of id sequences, got {describe(batch)}")
        return [decode(ids, skip_special_tokens=skip_special_tokens) for ids in batch]

    def __call__(
        self,
        text: str | Sequence[str],
        *,
        return_tensors: str | None = None,
        add_special_tokens: bool = True,
        padding: bool = False,
    ) -> dict:
        """Encode one text or a batch; ``return_tensors`` in {None, "np", "pt"}.

        A batch is left-padded with ``PAD_ID`` (``attention_mask`` 0 there) when lengths differ
        and ``padding`` is true or tensors are requested.
        """
        if return_tensors is not None:
            return_tensors = check_option(return_tensors, "return_tensors", ("np", "pt"))
        add_special_tokens = check_bool(add_special_tokens, "add_special_tokens")
        padding = check_bool(padding, "padding")
        single = isinstance(text, str)
        if not single and (isinstance(text, bytes) or not isinstance(text, Sequence)):
            raise TypeError(f"text must be a str or a sequence of str, got {describe(text)}")
        texts = [text] if single else list(text)
        if not all(isinstance(t, str) for t in texts):
            bad = next(t for t in texts if not isinstance(t, str))
            raise TypeError(f"text must be a str or a sequence of str, got an item {describe(bad)}")
        ids = [self.encode(t, add_special_tokens=add_special_tokens) for t in texts]
        if return_tensors is None and not padding:
            masks = [[1] * len(x) for x in ids]
            if single:
                return {"input_ids": ids[0], "attention_mask": masks[0]}
            return {"input_ids": ids, "attention_mask": masks}
        width = max((len(x) for x in ids), default=0)
        arr = np.full((len(ids), width), PAD_ID, dtype=np.int64)
        mask = np.zeros((len(ids), width), dtype=np.int64)
        for r, x in enumerate(ids):
            if x:
                arr[r, width - len(x) :] = x
                mask[r, width - len(x) :] = 1
        if return_tensors is None:
            return {"input_ids": arr.tolist(), "attention_mask": mask.tolist()}
        if return_tensors == "np":
            return {"input_ids": arr, "attention_mask": mask}
        import torch

        return {"input_ids": torch.from_numpy(arr), "attention_mask": torch.from_numpy(mask)}
