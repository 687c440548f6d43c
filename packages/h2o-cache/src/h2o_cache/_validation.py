"""h2o-cache's own input checks, built on the shared vocabulary in :mod:`._checks`.

Same rule as ``_checks``: a wrong type raises ``TypeError``, a wrong value ``ValueError``, both
naming the argument and what was received.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ._checks import check_float, check_int, check_tensor, describe


def check_budgets(
    heavy: Any, recent: Any, ratio: Any
) -> tuple[int | None, int | None, tuple[float, float] | None]:
    """Absolute ``heavy``/``recent`` sizes (ints >= 0, not both 0) or ``ratio`` = (heavy, recent)
    fractions in [0, 1] of the prompt length (not both 0); exactly one of the two forms."""
    if heavy is not None:
        heavy = check_int(heavy, "heavy", minimum=0)
    if recent is not None:
        recent = check_int(recent, "recent", minimum=0)
    if ratio is not None:
        if heavy is not None or recent is not None:
            raise ValueError(
                f"ratio: give either heavy/recent or ratio, not both (got heavy={heavy!r}, "
                f"recent={recent!r}, ratio={ratio!r})"
            )
        if isinstance(ratio, str | bytes) or not isinstance(ratio, Sequence):
            raise TypeError(
                f"ratio must be a pair (heavy_ratio, recent_ratio), got {describe(ratio)}"
            )
        if len(ratio) != 2:
            raise ValueError(
                f"ratio must be a pair (heavy_ratio, recent_ratio), got {len(ratio)} values"
            )
        ratio = (
            check_float(ratio[0], "ratio[0]", minimum=0.0, maximum=1.0),
            check_float(ratio[1], "ratio[1]", minimum=0.0, maximum=1.0),
        )
        if sum(ratio) <= 0:
            raise ValueError(f"ratio must keep something, got {ratio!r}")
        return None, None, ratio
    if heavy is None or recent is None:
        missing = "heavy" if heavy is None else "recent"
        raise ValueError(
            f"{missing} is missing: give both heavy and recent (absolute sizes) or "
            "ratio=(heavy_ratio, recent_ratio)"
        )
    if heavy + recent == 0:
        raise ValueError("heavy + recent must be >= 1, got heavy=0, recent=0")
    return heavy, recent, None


def check_ids(ids: Any, name: str):
    """Token ids: an integer tensor (L,) or (B, L) with B, L >= 1; returned as int64 (B, L)."""
    ids = check_tensor(ids, name, ndim=(1, 2), dtype="integer")
    if ids.ndim == 1:
        ids = ids[None]
    if ids.shape[0] == 0 or ids.shape[1] == 0:
        raise ValueError(f"{name} must be (B, L) with B, L >= 1, got shape {tuple(ids.shape)}")
    return ids.long()


def check_model(model: Any, name: str = "model") -> Any:
    """A transformers model (anything with a ``config`` and ``forward``)."""
    if not (hasattr(model, "config") and callable(getattr(model, "forward", None))):
        raise TypeError(f"{name} must be a transformers PreTrainedModel, got {describe(model)}")
    return model


def check_attention_mask(mask: Any, name: str, shape: tuple[int, int]):
    """A (B, L) 0/1 mask (int or bool) with LEFT padding only; returned as int64."""
    import torch

    mask = check_tensor(mask, name, ndim=2, dtype="any", shape=shape)
    if mask.is_floating_point():
        raise TypeError(f"{name} must be an integer or bool tensor of 0/1, got {describe(mask)}")
    m = mask.long()
    if not bool(((m == 0) | (m == 1)).all()):
        raise ValueError(f"{name} must hold only 0 and 1")
    if not bool((m[:, 1:] >= m[:, :-1]).all()):
        raise ValueError(f"{name} must be left padding (zeros before ones in every row)")
    if not bool(m[:, -1].all()):
        raise ValueError(f"{name}: every row needs at least one token (the last column must be 1)")
    return m.to(torch.long)
