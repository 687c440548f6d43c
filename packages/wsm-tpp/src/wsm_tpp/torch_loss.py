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

__all__ = ["GRUIntensity", "WSMLoss", "torch_weight"]


def torch_weight(t, tprev, T, kind: str = "two_sided_min"):
    """Torch twin of :func:`wsm_tpp.weight` (same kinds, same tie convention)."""
    left, right = t - tprev, T - t
    if kind == "two_sided_min":
        return torch.minimum(left, right), torch.where(left <= right, 1.0, -1.0).to(t.dtype)
    if kind == "two_sided_product":
        return left * right, right - left
    if kind == "one_sided":
        return left, torch.ones_like(t)
    if kind == "none":
        return torch.ones_like(t), torch.zeros_like(t)
    raise ValueError(
        "weight must be one of ('two_sided_min', 'two_sided_product', 'one_sided', 'none'), "
        f"got {kind!r}"
    )


class WSMLoss(nn.Module):
    """Autoregressive weighted score-matching loss (mean over events).

    ``l_n = 1/2 h psi^2 + h dpsi + h' psi + mark_coef * (log lambda(t_n) - log lambda_{k_n}(t_n))``.

    Args:
        weight: ``"two_sided_min"`` (default, the original code's ``"two_side_op"``),
            ``"two_sided_product"``, ``"one_sided"`` or ``"none"`` (= ASM).
        mark_coef: coefficient of the mark cross-entropy (the original code uses 10-20 for
            neural models; 1 is the conditional likelihood).

    Call ``loss(intensity_fn, times, marks, T, mask=None)``:
        intensity_fn: ``tau (B, N) -> (B, N, K)`` intensities at ``t_{n-1} + tau`` given the events
            before event n (t_0 = 0); ``tau`` requires grad.
        times: (B, N) event times (padded), marks: (B, N) long in [0, K), T: float or (B,),
        mask: (B, N) bool, True for real events.
    """

    def __init__(self, weight: str = "two_sided_min", mark_coef: float = 1.0):
        super().__init__()
        torch_weight(torch.zeros(1), torch.zeros(1), torch.ones(1), weight)  # validate
        self.weight = weight
        self.mark_coef = float(mark_coef)

    def forward(self, intensity_fn, times, marks, T, mask=None):
        if times.ndim != 2 or marks.shape != times.shape:
            raise ValueError(
                f"times and marks must be (B, N), got {tuple(times.shape)} and {tuple(marks.shape)}"
            )
        mask = torch.ones_like(times, dtype=torch.bool) if mask is None else mask.bool()
        prev = torch.cat([torch.zeros_like(times[:, :1]), times[:, :-1]], dim=1)
        tau = torch.where(mask, times - prev, torch.ones_like(times)).detach().requires_grad_(True)
        lam = intensity_fn(tau)  # (B, N, K)
        if lam.ndim != 3 or lam.shape[:2] != times.shape:
            raise ValueError(
                f"intensity_fn(tau) must return (B, N, K) = ({times.shape[0]}, {times.shape[1]}, K), "
                f"got {tuple(lam.shape)} (use a trailing K = 1 axis for unmarked processes)"
            )
        total = lam.sum(-1)  # (B, N)
        log_total = torch.log(total)
        dlog = torch.autograd.grad(log_total.sum(), tau, create_graph=True)[0]
        psi = dlog - total
        dpsi = torch.autograd.grad(psi.sum(), tau, create_graph=True)[0]
        T = torch.as_tensor(T, dtype=times.dtype, device=times.device)
        T = T[:, None] if T.ndim == 1 else T
        h, dh = torch_weight(times, prev, T.expand_as(times), self.weight)
        ell = 0.5 * h * psi**2 + h * dpsi + dh * psi
        if self.mark_coef and lam.shape[-1] > 1:
            lam_k = lam.gather(-1, marks.clamp(min=0)[..., None]).squeeze(-1)
            ell = ell + self.mark_coef * (log_total - torch.log(lam_k))
        ell = torch.where(mask, ell, torch.zeros_like(ell))
        return ell.sum() / mask.sum()


class GRUIntensity(nn.Module):
    """A small GRU intensity: ``lambda_k(t_{n-1} + tau) = softplus(W h_{n-1} + w tau + b)_k``.

    ``h_{n-1}`` encodes the events before n (mark embedding and log inter-event time).
    ``model.intensity_fn(times, marks)`` returns the ``tau -> (B, N, K)`` closure WSMLoss expects.
    """

    def __init__(self, K: int, hidden: int = 16):
        super().__init__()
        self.K = K
        self.embed = nn.Embedding(K + 1, hidden)  # index K = "start of sequence"
        self.gru = nn.GRU(hidden + 1, hidden, batch_first=True)
        self.out = nn.Linear(hidden, K)
        self.time_slope = nn.Parameter(torch.zeros(K))

    def intensity_fn(self, times, marks):
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
