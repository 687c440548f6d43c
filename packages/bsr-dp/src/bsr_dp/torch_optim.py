"""`DPMFSGD`: SGD with momentum and weight decay, per-example clipping and BSR-correlated noise.

Kalinin & Lampert, NeurIPS 2024 - https://arxiv.org/abs/2405.13763 (Sec. 2 mechanism, Sec. 3
BSR strategy, Theorem 2 sensitivity). Needs the ``bsr-dp[torch]`` extra; imported lazily by
``bsr_dp.DPMFSGD``.

Step t: clip each example's gradient to norm ``max_grad_norm``, sum, add the t-th row of
``C^{-1} Z`` with ``Z ~ N(0, (max_grad_norm * noise_multiplier * sens(C))^2)``, divide by the
batch size, then ``m = momentum * m + g``, ``theta = weight_decay * theta - lr * m``. The iterates
are then exactly the workload of `workload_momentum` applied to the noisy gradients, so the
privacy is that of the Gaussian mechanism with noise multiplier ``noise_multiplier`` on the
b-min-separated participation pattern (account with e.g. dp-accounting).
"""

from __future__ import annotations

import warnings

import torch

from ._checks import check_float, check_generator, check_tensor
from ._validation import check_coefs, check_momentum, check_optional_int, check_positive_int
from .functional import bsr_coefs, minsep_sensitivity

__all__ = ["DPMFSGD"]


class DPMFSGD(torch.optim.Optimizer):
    """Differentially private SGD with matrix-factorization (BSR) correlated noise.

    Args:
        params: parameters (or param groups) to optimise.
        lr: learning rate.
        momentum: beta in [0, 1) (``m = beta m + g``, no dampening).
        weight_decay: alpha in (0, 1], multiplicative (``theta <- alpha theta - lr m``; 1 = none).
        noise_multiplier: sigma of the Gaussian mechanism.
        max_grad_norm: per-example clipping norm.
        batch_size: expected batch size the noisy sum is divided by.
        n_steps: total number of steps n (size of the workload).
        min_sep: b, steps between two participations of one example (steps per epoch).
        bandwidth: p, BSR bandwidth (default min_sep, the paper's choice).
        coefs: explicit (p,) strategy coefficients instead of BSR (e.g. `optimize_banded_toeplitz`).
        max_participations: k, default ``ceil(n_steps / min_sep)``.
        generator: ``torch.Generator`` for the noise (reproducibility).

    Call ``step(per_sample_grads)`` with one (B, *param.shape) tensor per parameter (e.g. from
    ``torch.func.vmap(torch.func.grad(...))``); without it, ``p.grad_sample`` (opacus) is used.
    """

    def __init__(
        self,
        params,
        lr,
        *,
        momentum=0.0,
        weight_decay=1.0,
        noise_multiplier,
        max_grad_norm,
        batch_size,
        n_steps,
        min_sep,
        bandwidth=None,
        coefs=None,
        max_participations=None,
        generator=None,
    ):
        lr = check_float(lr, "lr", minimum=0.0, min_inclusive=False)
        momentum, weight_decay = check_momentum(momentum, weight_decay)
        noise_multiplier = check_float(noise_multiplier, "noise_multiplier", minimum=0.0)
        max_grad_norm = check_float(
            max_grad_norm, "max_grad_norm", minimum=0.0, min_inclusive=False
        )
        batch_size = check_positive_int(batch_size, "batch_size")
        n_steps = check_positive_int(n_steps, "n_steps")
        min_sep = check_positive_int(min_sep, "min_sep")
        bandwidth = check_optional_int(bandwidth, "bandwidth")
        generator = check_generator(generator)
        if coefs is None:
            coefs = bsr_coefs(
                n_steps,
                min_sep if bandwidth is None else bandwidth,
                momentum=momentum,
                weight_decay=weight_decay,
            )
        else:
            coefs = check_coefs(coefs, "coefs")
        sens = minsep_sensitivity(coefs, n_steps, min_sep, max_participations=max_participations)
        super().__init__(params, {"lr": lr})
        self.momentum = float(momentum)
        self.weight_decay = float(weight_decay)
        self.noise_multiplier = float(noise_multiplier)
        self.max_grad_norm = float(max_grad_norm)
        self.batch_size = batch_size
        self.n_steps = n_steps
        self.coefs = torch.as_tensor(coefs, dtype=torch.float64)
        self.sensitivity = sens
        self.noise_std = self.max_grad_norm * self.noise_multiplier * sens
        self.generator = generator
        self.step_count = 0

    def _params(self):
        return [p for group in self.param_groups for p in group["params"] if p.requires_grad]

    def _correlated_noise(self, p):
        """Row t of C^{-1} Z for parameter p; state: the last len(coefs) - 1 rows."""
        state = self.state[p]
        q = self.coefs.numel() - 1
        z = (
            torch.randn(p.shape, generator=self.generator, dtype=torch.float64, device="cpu")
            * self.noise_std
        )
        if q:
            buf = state.setdefault("noise_buffer", torch.zeros((q, *p.shape), dtype=torch.float64))
            # buf[0] is the most recent u_{t-1}, buf[j-1] is u_{t-j}
            z = z - torch.tensordot(self.coefs[1:], buf, dims=1)
        u = z / self.coefs[0]
        if q:
            state["noise_buffer"] = torch.cat([u.unsqueeze(0), buf[:-1]], dim=0)
        return u.to(device=p.device, dtype=p.dtype)

    @torch.no_grad()
    def step(self, per_sample_grads=None, closure=None):
        """One private step from per-example gradients (list aligned with the trainable params)."""
        if self.step_count == self.n_steps:
            warnings.warn(
                f"step {self.step_count + 1} exceeds n_steps={self.n_steps}: the sensitivity (and the privacy "
                "guarantee) was computed for n_steps steps",
                UserWarning,
                stacklevel=2,
            )
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        params = self._params()
        if per_sample_grads is None:
            per_sample_grads = [getattr(p, "grad_sample", None) for p in params]
            if any(g is None for g in per_sample_grads):
                raise ValueError(
                    "per_sample_grads is required (or set p.grad_sample, as opacus does)"
                )
        if isinstance(per_sample_grads, torch.Tensor) or not hasattr(per_sample_grads, "__iter__"):
            raise TypeError(
                "per_sample_grads must be a list of tensors, one per trainable parameter, "
                f"got {type(per_sample_grads).__name__}"
            )
        per_sample_grads = [
            check_tensor(g, "per_sample_grads", ndim=None) for g in per_sample_grads
        ]
        if len(per_sample_grads) != len(params):
            raise ValueError(
                f"per_sample_grads has {len(per_sample_grads)} tensors, expected {len(params)}"
            )
        bsz = per_sample_grads[0].shape[0]
        for g, p in zip(per_sample_grads, params, strict=True):
            if g.shape != (bsz, *p.shape):
                raise ValueError(
                    f"per_sample_grads has a tensor of shape {tuple(g.shape)} for a parameter of "
                    f"shape {tuple(p.shape)} (expected ({bsz}, *param.shape))"
                )
        norms = torch.sqrt(sum(g.reshape(bsz, -1).pow(2).sum(1) for g in per_sample_grads))  # (B,)
        scale = (self.max_grad_norm / (norms + 1e-12)).clamp(max=1.0)  # (B,)
        grad_of = {id(p): g for p, g in zip(params, per_sample_grads, strict=True)}
        for group in self.param_groups:
            lr = group["lr"]
            for p in group["params"]:
                if not p.requires_grad:
                    continue
                g = grad_of[id(p)]
                clipped_sum = torch.tensordot(scale.to(g.dtype), g, dims=1)  # (*p.shape)
                noisy = (clipped_sum + self._correlated_noise(p)) / self.batch_size
                state = self.state[p]
                m = state.get("momentum_buffer")
                m = noisy.clone() if m is None else m.mul_(self.momentum).add_(noisy)
                state["momentum_buffer"] = m
                p.mul_(self.weight_decay).add_(m, alpha=-lr)
        self.step_count += 1
        return loss
