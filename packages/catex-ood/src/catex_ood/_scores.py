"""CLIP-similarity OOD scores (higher = more in-distribution)."""

from __future__ import annotations

from typing import Any

import torch

from ._checks import check_float, check_probability
from ._validation import as_float_tensor


def _out(t: torch.Tensor, is_tensor: bool) -> Any:
    return t if is_tensor else t.numpy()


def mcm_score(S: Any, *, temperature: float = 1.0) -> Any:
    """MCM (Ming et al. 2022): ``max_c softmax(S / temperature)_c`` for image-text cosine
    similarities ``S`` [n, C]. Returns [n] (a tensor for a tensor, else a numpy array);
    higher = in-distribution."""
    temperature = check_float(temperature, "temperature", minimum=0.0, min_inclusive=False)
    s, is_tensor = as_float_tensor(S, "S", ndim=2)
    return _out(torch.softmax(s / temperature, dim=1).amax(dim=1), is_tensor)


def _spurious(S: Any, S_sp: Any) -> tuple[torch.Tensor, torch.Tensor, bool]:
    s, is_tensor = as_float_tensor(S, "S", ndim=2)
    sp, _ = as_float_tensor(S_sp, "S_sp", ndim=(2, 3), allow_neg_inf=True)
    if tuple(sp.shape[:2]) != tuple(s.shape):
        raise ValueError(
            f"S_sp must have shape {tuple(s.shape)} or {tuple(s.shape)} + (N_s,) to match S, "
            f"got shape {tuple(sp.shape)}"
        )
    if sp.ndim == 3:
        if sp.shape[2] == 0:
            raise ValueError("S_sp must have at least one spurious context (N_s >= 1)")
        sp = sp.amax(dim=2)
    sp = sp.to(s.dtype)
    return s, sp, is_tensor


def catex_logits(S: Any, S_sp: Any, *, tau: float = 0.5) -> Any:
    """CATEX's rescaled logits ``S * max(p, tau)`` with ``p = sigmoid(S - S_sp)`` (the
    perceptual share of ``softmax(s_c, s~_c)``); ``S_sp`` [n, C] or [n, C, N_s] (max over
    N_s). -inf in ``S_sp`` means "no spurious context" (p = 1)."""
    tau = check_probability(tau, "tau")
    s, sp, is_tensor = _spurious(S, S_sp)
    p = torch.sigmoid(s - sp)
    return _out(s * torch.clamp(p, min=tau), is_tensor)


def catex_score(S: Any, S_sp: Any, *, tau: float = 0.5) -> Any:
    """CATEX-integrated OOD score: ``max_c softmax(S * max(sigmoid(S - S_sp), tau))_c``
    (temperature 1 on raw cosines, as the paper's inference). ``S`` [n, C] perceptual
    similarities, ``S_sp`` [n, C] or [n, C, N_s] spurious similarities (max over N_s).
    Returns [n]; higher = in-distribution. With ``S_sp = -inf`` it equals :func:`mcm_score`."""
    tau = check_probability(tau, "tau")
    s, sp, is_tensor = _spurious(S, S_sp)
    logits = s * torch.clamp(torch.sigmoid(s - sp), min=tau)
    return _out(torch.softmax(logits, dim=1).amax(dim=1), is_tensor)


def catex_full_score(S: Any, S_sp: Any) -> Any:
    """The "Full" variant: the largest perceptual probability of the softmax over all
    ``C + C*N_s`` logits ``[S, S_sp]`` (temperature 1). Returns [n]; higher = ID."""
    s, sp_raw, is_tensor = _spurious_all(S, S_sp)
    probs = torch.softmax(torch.cat([s, sp_raw], dim=1), dim=1)
    return _out(probs[:, : s.shape[1]].amax(dim=1), is_tensor)


def _spurious_all(S: Any, S_sp: Any) -> tuple[torch.Tensor, torch.Tensor, bool]:
    s, is_tensor = as_float_tensor(S, "S", ndim=2)
    sp, _ = as_float_tensor(S_sp, "S_sp", ndim=(2, 3), allow_neg_inf=True)
    if tuple(sp.shape[:2]) != tuple(s.shape) or (sp.ndim == 3 and sp.shape[2] == 0):
        raise ValueError(
            f"S_sp must have shape {tuple(s.shape)} or {tuple(s.shape)} + (N_s,) to match S, "
            f"got shape {tuple(sp.shape)}"
        )
    return s, sp.reshape(sp.shape[0], -1).to(s.dtype), is_tensor
