"""The three terms of the unlearning objective, for any causal LM that returns logits."""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import Any

import torch
import torch.nn.functional as F

from ._checks import check_option, check_tensor, describe
from ._data import DEFAULT_TEMPLATE, IGNORE_INDEX, encode_qa, sample_mismatch

__all__ = ["answer_nll", "forget_loss", "kl_to_reference", "mismatch_loss"]


def check_model(model: Any, name: str = "model") -> Any:
    if not callable(model) or not hasattr(model, "parameters"):
        raise TypeError(f"{name} must be a causal LM (a torch.nn.Module), got {describe(model)}")
    return model


def check_batch(batch: Any, name: str = "batch") -> dict[str, torch.Tensor]:
    """``{"input_ids", "attention_mask", "labels"}`` int tensors of one (B, T) shape
    (``attention_mask`` optional: all ones)."""
    if not isinstance(batch, Mapping):
        raise TypeError(
            f"{name} must be a dict with input_ids, attention_mask, labels, got {describe(batch)}"
        )
    for key in ("input_ids", "labels"):
        if key not in batch:
            raise ValueError(f"{name} must have the key {key!r}, got keys {sorted(batch)}")
    out = {}
    for key in ("input_ids", "attention_mask", "labels"):
        if key == "attention_mask" and batch.get(key) is None:
            out[key] = torch.ones_like(out["input_ids"])
            continue
        t = check_tensor(batch[key], f"{name}[{key!r}]", ndim=2, dtype="integer")
        out[key] = t
    shape = tuple(out["input_ids"].shape)
    for key in ("attention_mask", "labels"):
        if tuple(out[key].shape) != shape:
            raise ValueError(
                f"{name}[{key!r}] must have the shape of input_ids {shape}, "
                f"got {tuple(out[key].shape)}"
            )
    if shape[1] < 2:
        raise ValueError(f"{name}['input_ids'] must have at least 2 positions, got shape {shape}")
    if not bool(((out["attention_mask"] == 0) | (out["attention_mask"] == 1)).all()):
        raise ValueError(f"{name}['attention_mask'] must hold only 0 and 1")
    return out


def _accepts_position_ids(model: Any) -> bool:
    target = model.get_base_model() if hasattr(model, "get_base_model") else model
    try:
        params = inspect.signature(target.forward).parameters
    except (TypeError, ValueError):
        return False
    return "position_ids" in params


def _device(model: Any) -> torch.device:
    try:
        return next(model.parameters()).device
    except StopIteration:
        return torch.device("cpu")


def logits_of(model: Any, batch: Mapping[str, torch.Tensor]) -> torch.Tensor:
    """(B, T, V) logits of ``model`` on ``batch`` (moved to the model's device). With left
    padding, position ids count real tokens only (``cumsum(mask) - 1``) where the model takes
    them, so left and right padding give the same logits on real tokens."""
    device = _device(model)
    ids = batch["input_ids"].to(device)
    mask = batch["attention_mask"].to(device)
    kwargs: dict[str, Any] = {"input_ids": ids, "attention_mask": mask}
    if bool((mask[:, 0] == 0).any()) and _accepts_position_ids(model):
        kwargs["position_ids"] = (mask.cumsum(-1) - 1).clamp(min=0)
    out = model(**kwargs)
    logits = out.logits if hasattr(out, "logits") else out[0] if isinstance(out, tuple) else out
    if not isinstance(logits, torch.Tensor) or logits.ndim != 3 or logits.shape[:2] != ids.shape:
        raise TypeError(
            "model must return logits of shape (B, T, V) (an output with .logits), got "
            f"{describe(logits)}"
        )
    return logits


def answer_nll(model, batch) -> torch.Tensor:
    """Per-row mean negative log-likelihood of the answer tokens, shape (B,).

    Token ``t`` is scored by the logits at ``t - 1``; tokens labelled ``-100`` (the prompt and
    padding of :func:`encode_qa`) are left out. A row with no answer token is refused.
    """
    model = check_model(model)
    batch = check_batch(batch)
    logits = logits_of(model, batch)
    labels = batch["labels"].to(logits.device)[:, 1:]
    keep = labels != IGNORE_INDEX
    counts = keep.sum(-1)
    if bool((counts == 0).any()):
        rows = torch.nonzero(counts == 0).flatten().tolist()
        raise ValueError(f"batch: rows {rows} have no answer token (every label is -100)")
    nll = F.cross_entropy(
        logits[:, :-1].float().reshape(-1, logits.shape[-1]),
        labels.reshape(-1),
        ignore_index=IGNORE_INDEX,
        reduction="none",
    ).view(labels.shape)
    return nll.sum(-1) / counts


def forget_loss(model, batch) -> torch.Tensor:
    """The gradient-ascent term L_fgt: minus the batch mean of :func:`answer_nll` (a scalar)."""
    return -answer_nll(model, batch).mean()


def mismatch_loss(
    model,
    tokenizer,
    questions,
    answer_pool,
    *,
    k: int = 5,
    rng=None,
    template: str = DEFAULT_TEMPLATE,
    max_length: int | None = None,
) -> torch.Tensor:
    """The random-mismatch term L_rdn: each question paired with ``k`` answers drawn from
    ``answer_pool`` (see :func:`sample_mismatch`), the mean answer NLL of those pairs (a scalar).
    """
    model = check_model(model)
    pairs = sample_mismatch(questions, answer_pool, k=k, rng=rng)
    batch = encode_qa(pairs, tokenizer, template=template, max_length=max_length)
    return answer_nll(model, batch).mean()


def kl_from_logits(
    logits: torch.Tensor, ref_logits: torch.Tensor, where: torch.Tensor
) -> torch.Tensor:
    """Mean over the ``where`` positions of KL(softmax(ref_logits) || softmax(logits))."""
    if ref_logits.shape[-1] != logits.shape[-1]:
        raise ValueError(
            f"ref_model: vocabulary of {ref_logits.shape[-1]} logits, model has {logits.shape[-1]}"
        )
    logp = logits.float().log_softmax(-1)
    logq = ref_logits.float().to(logp.device).log_softmax(-1)
    kl = (logq.exp() * (logq - logp)).sum(-1)
    return kl[where.to(kl.device)].mean()


def positions_mask(batch: Mapping[str, torch.Tensor], positions: str) -> torch.Tensor:
    if positions == "all":
        where = batch["attention_mask"] == 1
    else:
        where = (batch["labels"] != IGNORE_INDEX) & (batch["attention_mask"] == 1)
    if not bool(where.any()):
        raise ValueError(f"batch: no {positions!r} position to average the KL over")
    return where


def kl_to_reference(model, ref_model, batch, *, positions: str = "all") -> torch.Tensor:
    """Forward KL(p_ref || p_model) of the next-token distributions, averaged over tokens.

    ``positions="all"``: every real token (``attention_mask == 1``), padding excluded;
    ``"answer"``: the answer tokens (``labels != -100``). The reference runs under
    ``torch.no_grad()``; the result (a scalar) is differentiable in ``model``'s parameters.
    """
    model = check_model(model)
    ref_model = check_model(ref_model, "ref_model")
    batch = check_batch(batch)
    positions = check_option(positions, "positions", ("all", "answer"))
    where = positions_mask(batch, positions)
    with torch.no_grad():
        ref_logits = logits_of(ref_model, batch)
    return kl_from_logits(logits_of(model, batch), ref_logits, where)
