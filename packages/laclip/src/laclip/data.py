"""The LaCLIP text augmentation: a dataset wrapper drawing the text among the original caption
and its rewrites every time a sample is loaded."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any

import torch
from torch.utils.data import Dataset

from ._checks import check_callable, check_generator, check_int, check_probability, describe
from .rewrite import _check_texts

__all__ = ["TextAugmentedDataset"]

_BLOCK = 1024


class TextAugmentedDataset(Dataset):
    """Wrap ``base`` (``base[i] == (image, caption)``) so that ``self[i] == (image, text)``.

    ``text`` is drawn at every access: uniformly over ``[caption] + rewrites[i]`` when
    ``p_original`` is None (the paper), else the caption with probability ``p_original`` and a
    uniform rewrite otherwise (``p_original=0``: rewrites only, the paper's ablation). A drawn
    rewrite with fewer than ``min_words`` whitespace-separated words is replaced by the caption;
    a sample with no rewrites always gives its caption. ``tokenizer`` (callable, optional) is
    applied to the text (``self[i] == (image, tokenizer(text))``). Draws use ``generator`` (a
    ``torch.Generator``; None: torch's global RNG, which DataLoader seeds per worker).

    ``rewrites`` must be index-aligned with ``base``: ``len(rewrites) == len(base)``, each item a
    list of str (may be empty, lengths may differ).
    """

    def __init__(
        self,
        base: Any,
        rewrites: Sequence[Sequence[str]],
        *,
        p_original: float | None = None,
        min_words: int = 2,
        tokenizer: Callable[[str], Any] | None = None,
        generator: torch.Generator | None = None,
    ) -> None:
        if not (hasattr(base, "__getitem__") and hasattr(base, "__len__")):
            raise TypeError(f"base must be a map-style dataset (len and []), got {describe(base)}")
        if isinstance(rewrites, str | bytes) or not isinstance(rewrites, Sequence):
            raise TypeError(f"rewrites must be a list of lists of str, got {describe(rewrites)}")
        if len(rewrites) != len(base):
            raise ValueError(
                f"rewrites must be index-aligned with base: len(rewrites) = {len(rewrites)}, "
                f"len(base) = {len(base)}"
            )
        self.base = base
        self.rewrites = [
            tuple(_check_texts(r, f"rewrites[{i}]", allow_empty=True))
            for i, r in enumerate(rewrites)
        ]
        self.p_original = (
            None if p_original is None else check_probability(p_original, "p_original")
        )
        self.min_words = check_int(min_words, "min_words", minimum=0)
        self.tokenizer = None if tokenizer is None else check_callable(tokenizer, "tokenizer")
        self.generator = check_generator(generator)
        self._block: list[float] = []
        self._pos, self._pid = 0, None

    def __len__(self) -> int:
        return len(self.base)

    def _uniform(self) -> float:
        # Uniforms come in blocks of _BLOCK from one torch call (a per-sample torch call would
        # double the data-loading time); a process that did not fill the block (a DataLoader
        # worker, forked with a copy of it) refills its own, from its own torch RNG.
        if self._pid != os.getpid() or self._pos >= len(self._block):
            self._block = torch.rand(_BLOCK, generator=self.generator, dtype=torch.float64).tolist()
            self._pos, self._pid = 0, os.getpid()
        u = self._block[self._pos]
        self._pos += 1
        return u

    def _draw(self, n: int) -> int:
        return min(int(self._uniform() * n), n - 1)

    def choose(self, index: int, caption: str) -> str:
        """The text for ``caption`` of sample ``index`` (one draw)."""
        extra = self.rewrites[index]
        if not extra:
            return caption
        if self.p_original is None:
            j = self._draw(len(extra) + 1)
            text = caption if j == 0 else extra[j - 1]
        elif self._uniform() < self.p_original:
            text = caption
        else:
            text = extra[self._draw(len(extra))]
        if len(text.split()) < self.min_words:
            return caption
        return text

    def __getitem__(self, index: int):
        index = check_int(index, "index")
        n = len(self.base)
        if not -n <= index < n:
            raise IndexError(f"index {index} out of range for a dataset of {n}")
        index %= n
        item = self.base[index]
        if not isinstance(item, tuple | list) or len(item) != 2:
            raise TypeError(f"base[{index}] must be an (image, caption) pair, got {describe(item)}")
        image, caption = item
        if not isinstance(caption, str):
            raise TypeError(f"base[{index}] caption must be a str, got {describe(caption)}")
        text = self.choose(index, caption)
        if self.tokenizer is not None:
            text = self.tokenizer(text)
        return image, text
