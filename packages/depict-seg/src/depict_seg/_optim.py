"""Adam and AdamW, vendored from papershelf's ``tools/vendor/_optim.py`` (do not edit a copy:
edit that file, then ``python tools/sync_checks.py``; ``check_packages.py`` fails on a copy that
differs).

Why not ``torch.optim``: constructing its first optimiser imports ``torch._dynamo`` (26 s on the
loaded 2-core development machine, torch 2.15), a cost every test process and every script run
of a small package pays. These are ``torch.optim.Adam`` / ``torch.optim.AdamW`` with their
default options to float rounding (``tools/tests/test_optim.py`` runs both side by side), plus
the global-norm gradient clipping of ``torch.nn.utils.clip_grad_norm_`` as an option.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import torch


class Adam:
    """Adam (Kingma & Ba) over ``params``: ``zero_grad()``, ``step(grads=None)`` (``grads``
    aligned with ``params``; default each parameter's ``.grad``, skipped where ``None``).

    ``weight_decay`` is L2 added to the gradient (``torch.optim.Adam``), or with ``decoupled``
    a shrink ``p *= 1 - lr * weight_decay`` before the step (``torch.optim.AdamW``).
    ``max_grad_norm`` rescales all gradients together to that global L2 norm when above it.
    ``lr`` may be changed between steps (a schedule).
    """

    def __init__(
        self,
        params: Iterable[torch.Tensor],
        lr: float = 1e-3,
        *,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0.0,
        decoupled: bool = False,
        max_grad_norm: float | None = None,
    ):
        self.params = [p for p in params if p.requires_grad]
        self.lr, self.betas, self.eps = float(lr), betas, eps
        self.weight_decay, self.decoupled, self.max_grad_norm = (
            weight_decay,
            decoupled,
            max_grad_norm,
        )
        self.exp_avg = [torch.zeros_like(p) for p in self.params]
        self.exp_avg_sq = [torch.zeros_like(p) for p in self.params]
        self.steps = 0

    def zero_grad(self) -> None:
        for p in self.params:
            p.grad = None

    @torch.no_grad()
    def step(self, grads: Sequence[torch.Tensor | None] | None = None) -> None:
        grads = [p.grad for p in self.params] if grads is None else list(grads)
        if len(grads) != len(self.params):
            raise ValueError(f"grads: {len(grads)} gradients for {len(self.params)} parameters")
        present = [g for g in grads if g is not None]
        if self.max_grad_norm is not None and present:
            norm = torch.linalg.vector_norm(
                torch.stack([torch.linalg.vector_norm(g) for g in present])
            )
            scale = torch.clamp(self.max_grad_norm / (norm + 1e-6), max=1.0)
            grads = [None if g is None else g * scale for g in grads]
        self.steps += 1
        b1, b2 = self.betas
        c1, c2_sqrt = 1 - b1**self.steps, (1 - b2**self.steps) ** 0.5
        for p, g, m, v in zip(self.params, grads, self.exp_avg, self.exp_avg_sq):
            if g is None:
                continue
            if self.weight_decay and self.decoupled:
                p.mul_(1 - self.lr * self.weight_decay)
            elif self.weight_decay:
                g = g.add(p, alpha=self.weight_decay)
            m.lerp_(g, 1 - b1)
            v.mul_(b2).addcmul_(g, g, value=1 - b2)
            p.addcdiv_(m, (v.sqrt() / c2_sqrt).add_(self.eps), value=-self.lr / c1)


def AdamW(
    params: Iterable[torch.Tensor], lr: float = 1e-3, *, weight_decay: float = 1e-2, **options
) -> Adam:
    """``torch.optim.AdamW``: Adam with decoupled weight decay (default 0.01, as torch)."""
    return Adam(params, lr, weight_decay=weight_decay, decoupled=True, **options)
