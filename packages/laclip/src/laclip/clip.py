"""CLIP's symmetric InfoNCE loss and zero-shot classification (the evaluation of LaCLIP)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import torch
import torch.nn.functional as F

from ._checks import check_callable, check_float, check_int, check_tensor, describe
from .rewrite import _check_texts

__all__ = ["clip_loss", "zero_shot_accuracy", "zero_shot_classifier"]


def _check_scale(logit_scale: Any) -> Any:
    if isinstance(logit_scale, torch.Tensor):
        check_tensor(logit_scale, "logit_scale", ndim=(0, 1))
        if logit_scale.numel() != 1:
            raise ValueError(f"logit_scale must be a scalar, got shape {tuple(logit_scale.shape)}")
        if not bool(logit_scale.detach().reshape(()) > 0):
            raise ValueError(f"logit_scale must be > 0, got {float(logit_scale.detach())}")
        return logit_scale.reshape(())
    return check_float(logit_scale, "logit_scale", minimum=0.0, min_inclusive=False)


def clip_loss(image_emb: torch.Tensor, text_emb: torch.Tensor, logit_scale) -> torch.Tensor:
    """CLIP's symmetric contrastive loss on a batch of ``B`` aligned pairs.

    ``image_emb``, ``text_emb``: ``(B, d)``, L2-normalised here; ``logit_scale`` (> 0, a float or
    a scalar tensor, e.g. ``model.logit_scale.exp()``) multiplies the cosine similarities, as
    open_clip's ``ClipLoss``: ``L = (CE(s I Tᵀ, diag) + CE(s T Iᵀ, diag)) / 2``, mean over the
    batch. Gradients flow to all three inputs. A batch of one gives 0.
    """
    check_tensor(image_emb, "image_emb", ndim=2)
    check_tensor(text_emb, "text_emb", ndim=2)
    if text_emb.shape != image_emb.shape:
        raise ValueError(
            f"text_emb must have the shape of image_emb {tuple(image_emb.shape)}, "
            f"got {tuple(text_emb.shape)}"
        )
    scale = _check_scale(logit_scale)
    img = F.normalize(image_emb, dim=-1)
    txt = F.normalize(text_emb, dim=-1)
    logits = scale * img @ txt.T
    target = torch.arange(img.shape[0], device=img.device)
    return (F.cross_entropy(logits, target) + F.cross_entropy(logits.T, target)) / 2


def _format(template: Any, name: str, i: int) -> str:
    if isinstance(template, str):
        if "{" not in template:
            raise ValueError(f"templates[{i}] must contain a {{}} placeholder, got {template!r}")
        return template.format(name)
    if callable(template):
        text = template(name)
        if not isinstance(text, str):
            raise TypeError(f"templates[{i}] must return a str, got {describe(text)}")
        return text
    raise TypeError(f"templates[{i}] must be a str or a callable, got {describe(template)}")


def zero_shot_classifier(
    encode_text: Callable[[list[str]], torch.Tensor],
    classnames: Sequence[str],
    templates: Sequence[Any],
) -> torch.Tensor:
    """The zero-shot weights, ``(d, C)`` as open_clip's ``build_zero_shot_classifier``.

    For every class: ``encode_text([t.format(name) for t in templates])`` (a ``(T, d)`` tensor;
    a template may also be a callable ``name -> str``, as open_clip's), each row L2-normalised,
    averaged over the templates, renormalised. Run under ``torch.no_grad()``.
    Logits are ``image_emb @ classifier``.
    """
    check_callable(encode_text, "encode_text")
    names = _check_texts(classnames, "classnames")
    if isinstance(templates, str | bytes) or not isinstance(templates, Sequence):
        raise TypeError(f"templates must be a list of str, got {describe(templates)}")
    if not templates:
        raise ValueError("templates must not be empty")
    columns = []
    with torch.no_grad():
        for name in names:
            texts = [_format(t, name, i) for i, t in enumerate(templates)]
            emb = encode_text(texts)
            check_tensor(emb, "encode_text output", ndim=2)
            if emb.shape[0] != len(texts):
                raise ValueError(
                    f"encode_text must return one row per text: got shape {tuple(emb.shape)} "
                    f"for {len(texts)} texts"
                )
            columns.append(F.normalize(F.normalize(emb, dim=-1).mean(dim=0), dim=-1))
    return torch.stack(columns, dim=1)


def zero_shot_accuracy(
    image_emb: torch.Tensor, classifier: torch.Tensor, labels: torch.Tensor, *, top_k: int = 1
) -> float:
    """Top-``top_k`` accuracy (a fraction in [0, 1]) of ``argmax(image_emb @ classifier)``.

    ``image_emb``: ``(N, d)`` (normalised here; the argmax does not depend on it),
    ``classifier``: ``(d, C)`` from :func:`zero_shot_classifier`, ``labels``: ``(N,)`` integer
    class indices in ``[0, C)``.
    """
    check_tensor(image_emb, "image_emb", ndim=2)
    check_tensor(classifier, "classifier", ndim=2)
    check_tensor(labels, "labels", ndim=1, dtype="integer")
    if classifier.shape[0] != image_emb.shape[1]:
        raise ValueError(
            f"classifier must have shape (d, C) with d = {image_emb.shape[1]} (image_emb's), "
            f"got {tuple(classifier.shape)}"
        )
    if labels.shape[0] != image_emb.shape[0]:
        raise ValueError(
            f"labels has {labels.shape[0]} rows but image_emb has {image_emb.shape[0]}"
        )
    n_classes = classifier.shape[1]
    if bool((labels < 0).any()) or bool((labels >= n_classes).any()):
        raise ValueError(f"labels must lie in [0, {n_classes}), got {labels.min()}..{labels.max()}")
    top_k = check_int(top_k, "top_k", minimum=1, maximum=n_classes)
    with torch.no_grad():
        logits = F.normalize(image_emb.float(), dim=-1) @ classifier.float().to(image_emb.device)
        top = logits.topk(top_k, dim=1).indices
        hit = (top == labels.to(top.device)[:, None]).any(dim=1)
    return int(hit.sum()) / hit.shape[0]
