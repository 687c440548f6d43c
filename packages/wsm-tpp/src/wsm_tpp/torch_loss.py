"""AWSM loss for neural intensities (torch extra: ``pip install wsm-tpp[torch]``).

Is Score Matching Suitable for Estimating Point Processes? - https://arxiv.org/abs/2410.04037
(Sec. 5 autoregressive WSM; Sec. 6.2 deep TPPs). ``import wsm_tpp`` never imports this module.

The score psi = d/dt log lambda - lambda and its time derivative come from autograd (double
backward through the time since the previous event), so any intensity model works as long as
``lambda(t_{n-1} + tau)`` is differentiable in ``tau`` twice.
"""

from __future__ import annotations

import torch
from torch import nn

from ._checks import check_callable, check_float, check_int, check_option, check_tensor
from .weights import WEIGHTS

__all__ = ["GRUIntensity", "WSMLoss", "torch_weight"]


def _torch_weight(t, tprev, T, kind):
    """:func:`torch_weight` without input checks (padded entries may lie outside the support)."""
    left, right = t - tprev, T - t
    if kind == "two_sided_min":
        return torch.minimum(left, right), torch.where(left <= right, 1.0, -1.0).to(t.dtype)
    if kind == "two_sided_product":
        return left * right, right - left
    if kind == "one_sided":
        return left, torch.ones_like(t)
    return torch.ones_like(t), torch.zeros_like(t)  # "none"


def torch_weight(t, tprev, T, *, kind: str = "two_sided_min"):
    """Torch twin of :func:`wsm_tpp.weight` (same kinds, same tie convention).

    ``t`` is a floating tensor; ``tprev`` and ``T`` are tensors or numbers broadcasting to it, with
    ``tprev <= t <= T``.
    """
    kind = check_option(kind, "kind", WEIGHTS)
    t = check_tensor(t, "t", dtype="floating", allow_empty=False)
    tprev = _as_tensor_like(tprev, "tprev", t)
    T = _as_tensor_like(T, "T", t)
    if bool((t < tprev).any()) or bool((t > T).any()):
        raise ValueError("weights need tprev <= t <= T (the support of event n's time)")
    return _torch_weight(t, tprev, T, kind)


def _as_tensor_like(value, name: str, like):
    """A finite number or a tensor broadcasting to ``like``."""
    if isinstance(value, torch.Tensor):
        check_tensor(value, name, dtype="floating")
        try:
            return torch.broadcast_to(value.to(device=like.device, dtype=like.dtype), like.shape)
        except RuntimeError:
            raise ValueError(
                f"{name} of shape {tuple(value.shape)} does not broadcast to {tuple(like.shape)}"
            ) from None
    return torch.full_like(like, check_float(value, name))


class WSMLoss(nn.Module):
    """Autoregressive weighted score-matching loss (mean over events).

    ``l_n = 1/2 h psi^2 + h dpsi + h' psi + mark_coef * (log lambda(t_n) - log lambda_{k_n}(t_n))``.

    Args:
        weight: ``"two_sided_min"`` (default, the original code's ``"two_side_op"``),
            ``"two_sided_product"``, ``"one_sided"`` or ``"none"`` (= ASM).
        mark_coef: coefficient >= 0 of the mark cross-entropy (the original code uses 10-20 for
            neural models; 1 is the conditional likelihood).

    Call ``loss(intensity_fn, times, marks, T, mask=None)``:
        intensity_fn: ``tau (B, N) -> (B, N, K)`` intensities (finite, >= 0, positive total) at
            ``t_{n-1} + tau`` given the events before event n (t_0 = 0); ``tau`` requires grad.
        times: (B, N) floating event times, >= 0 and strictly increasing over the real events of
            each row; marks: (B, N) integer in [0, K) at the real events; T: a number > 0 or (B,),
            not before a row's last event; mask: (B, N) bool (or 0/1), True for real events, a
            prefix of each row (padding at the end), at least one event in all.
    """

    def __init__(self, *, weight: str = "two_sided_min", mark_coef: float = 1.0):
        super().__init__()
        self.weight = check_option(weight, "weight", WEIGHTS)
        self.mark_coef = check_float(mark_coef, "mark_coef", minimum=0.0)

    def forward(self, intensity_fn, times, marks, T, mask=None):
        check_callable(intensity_fn, "intensity_fn")
        times = check_tensor(times, "times", ndim=2, dtype="floating")
        marks = check_tensor(marks, "marks", dtype="integer")
        if marks.shape != times.shape:
            raise ValueError(
                f"marks must have the shape of times {tuple(times.shape)}, got {tuple(marks.shape)}"
            )
        mask = _check_mask(mask, times)
        T = _check_horizon(T, times, mask)
        _check_event_times(times, mask)
        prev = torch.cat([torch.zeros_like(times[:, :1]), times[:, :-1]], dim=1)
        tau = torch.where(mask, times - prev, torch.ones_like(times)).detach().requires_grad_(True)
        lam = intensity_fn(tau)  # (B, N, K)
        if not isinstance(lam, torch.Tensor) or lam.ndim != 3 or lam.shape[:2] != times.shape:
            got = tuple(lam.shape) if isinstance(lam, torch.Tensor) else type(lam).__name__
            raise ValueError(
                f"intensity_fn(tau) must return (B, N, K) = ({times.shape[0]}, {times.shape[1]}, K), "
                f"got {got} (use a trailing K = 1 axis for unmarked processes)"
            )
        K = lam.shape[-1]
        real = lam.detach()[mask]  # (M, K)
        if (
            not bool(torch.isfinite(real).all())
            or bool((real < 0).any())
            or bool((real.sum(-1) <= 0).any())
        ):
            raise ValueError(
                "intensity_fn returned a negative or non-finite intensity, or a zero total, at an event"
            )
        real_marks = marks[mask]
        if bool((real_marks < 0).any()) or bool((real_marks >= K).any()):
            raise ValueError(
                f"marks must be in [0, K={K}) at the events, got values in "
                f"[{int(real_marks.min())}, {int(real_marks.max())}]"
            )
        total = lam.sum(-1)  # (B, N)
        log_total = torch.log(total)
        dlog = torch.autograd.grad(log_total.sum(), tau, create_graph=True)[0]
        psi = dlog - total
        dpsi = torch.autograd.grad(psi.sum(), tau, create_graph=True)[0]
        h, dh = _torch_weight(times, prev, T.expand_as(times), self.weight)
        ell = 0.5 * h * psi**2 + h * dpsi + dh * psi
        if self.mark_coef and K > 1:
            lam_k = lam.gather(-1, marks.clamp(min=0, max=K - 1)[..., None]).squeeze(-1)
            if bool((lam_k.detach()[mask] <= 0).any()):
                raise ValueError(
                    "intensity_fn gives intensity 0 to an observed mark: the mark term is infinite"
                )
            ell = ell + self.mark_coef * (log_total - torch.log(lam_k))
        ell = torch.where(mask, ell, torch.zeros_like(ell))
        return ell.sum() / mask.sum()


def _check_mask(mask, times):
    if mask is None:
        return torch.ones_like(times, dtype=torch.bool)
    check_tensor(mask, "mask", dtype="any", shape=tuple(times.shape))
    if mask.dtype != torch.bool:
        if mask.is_floating_point():
            raise TypeError(f"mask must be a bool (or 0/1 integer) tensor, got dtype {mask.dtype}")
        if bool(((mask != 0) & (mask != 1)).any()):
            raise ValueError("mask must hold 0/1 (or True/False), got other integers")
        mask = mask.bool()
    if not bool(mask.any()):
        raise ValueError("mask must mark at least one event, got all False")
    if bool((mask[:, 1:] & ~mask[:, :-1]).any()):
        raise ValueError("mask must mark a prefix of each row (events first, padding at the end)")
    return mask


def _check_horizon(T, times, mask):
    if isinstance(T, torch.Tensor):
        check_tensor(T, "T", ndim=(0, 1), dtype="floating")
        T = T.to(device=times.device, dtype=times.dtype)
        if T.ndim == 1 and T.shape[0] != times.shape[0]:
            raise ValueError(
                f"T must be a number or have shape ({times.shape[0]},), got {tuple(T.shape)}"
            )
        if bool((T <= 0).any()):
            raise ValueError("T must be > 0")
    else:
        T = torch.tensor(
            check_float(T, "T", minimum=0.0, min_inclusive=False),
            dtype=times.dtype,
            device=times.device,
        )
    T = T[:, None] if T.ndim == 1 else T
    last = torch.where(mask, times, torch.full_like(times, -torch.inf)).amax(dim=1, keepdim=True)
    if bool((last > T).any()):
        raise ValueError("T must not be before a row's last event (T is the observation window)")
    return T


def _check_event_times(times, mask):
    if bool((times[:, :1][mask[:, :1]] < 0).any()):
        raise ValueError("times must be >= 0 at the events")
    both = mask[:, 1:] & mask[:, :-1]
    if bool((times[:, 1:] - times[:, :-1])[both].le(0).any()):
        raise ValueError("times must be strictly increasing over the events of each row")


class GRUIntensity(nn.Module):
    """A small GRU intensity: ``lambda_k(t_{n-1} + tau) = softplus(W h_{n-1} + w tau + b)_k``.

    ``h_{n-1}`` encodes the events before n (mark embedding and log inter-event time).
    ``model.intensity_fn(times, marks)`` returns the ``tau -> (B, N, K)`` closure WSMLoss expects.
    """

    def __init__(self, K: int, *, hidden: int = 16):
        super().__init__()
        K = check_int(K, "K", minimum=1)
        hidden = check_int(hidden, "hidden", minimum=1)
        self.K = K
        self.embed = nn.Embedding(K + 1, hidden)  # index K = "start of sequence"
        self.gru = nn.GRU(hidden + 1, hidden, batch_first=True)
        self.out = nn.Linear(hidden, K)
        self.time_slope = nn.Parameter(torch.zeros(K))

    def intensity_fn(self, times, marks):
        """``tau -> (B, N, K)`` for (B, N) floating ``times`` and integer ``marks`` in [0, K)
        (padding entries too: they are embedded like events)."""
        times = check_tensor(times, "times", ndim=2, dtype="floating")
        check_tensor(marks, "marks", dtype="integer", shape=tuple(times.shape))
        if bool((marks < 0).any()) or bool((marks >= self.K).any()):
            raise ValueError(
                f"marks must be in [0, K={self.K}), got values in [{int(marks.min())}, {int(marks.max())}]"
            )
        B = times.shape[0]
        prev = torch.cat([torch.zeros_like(times[:, :1]), times[:, :-1]], dim=1)
        prev_marks = torch.cat([torch.full_like(marks[:, :1], self.K), marks[:, :-1]], dim=1)
        gaps = torch.log1p(
            torch.cat([times.new_zeros(B, 1), (times - prev)[:, :-1].clamp(min=0)], 1)
        )
        x = torch.cat([self.embed(prev_marks).to(times.dtype), gaps[..., None]], dim=-1)
        self.gru.to(times.dtype)
        hidden, _ = self.gru(x)  # (B, N, H): state after events < n
        base = self.out.to(times.dtype)(hidden)  # (B, N, K)

        def fn(tau):
            return (
                nn.functional.softplus(base + self.time_slope.to(times.dtype) * tau[..., None])
                + 1e-6
            )

        return fn
