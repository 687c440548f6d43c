"""Fit a model to a tight optimum of its training objective (what influence functions assume)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, NamedTuple

import torch

from ._checks import check_callable, check_float, check_int, describe

__all__ = ["OptimumFit", "fit_to_optimum"]


class OptimumFit(NamedTuple):
    """What :func:`fit_to_optimum` reached: the objective and the 2-norm of its gradient (over
    all fitted parameters together) at the final parameters."""

    loss: float
    grad_norm: float


def _leaf_tensors(params: Any) -> list[torch.Tensor]:
    if isinstance(params, torch.nn.Module):
        tensors = [p for p in params.parameters() if p.requires_grad]
        if not tensors:
            raise ValueError("params: the module has no parameter with requires_grad")
        return tensors
    many = isinstance(params, list | tuple)
    items = list(params) if many else [params]
    if not items:
        raise ValueError("params must hold at least one tensor, got an empty list")
    for i, t in enumerate(items):
        what = f"params[{i}]" if many else "params"
        if not isinstance(t, torch.Tensor):
            raise TypeError(
                f"params must be a torch.nn.Module, a tensor or a list of tensors; {what} is "
                f"{describe(t)}"
            )
        if not t.is_floating_point():
            raise TypeError(f"{what} must be a floating-point tensor, got {describe(t)}")
        if not (t.is_leaf and t.requires_grad):
            raise ValueError(
                f"{what} must be a leaf tensor with requires_grad=True (call .requires_grad_()), "
                f"got one with is_leaf={t.is_leaf}, requires_grad={t.requires_grad}"
            )
        if not bool(torch.isfinite(t).all()):
            raise ValueError(f"{what} holds NaN or inf")
    return items


def _scalar(out: Any) -> torch.Tensor:
    if not isinstance(out, torch.Tensor):
        raise TypeError(f"objective must return a tensor, got {describe(out)}")
    if out.numel() != 1:
        raise ValueError(f"objective must return one number, got shape {tuple(out.shape)}")
    return out.reshape(())


def fit_to_optimum(
    params: Any,
    objective: Callable[[], torch.Tensor],
    *,
    max_iter: int = 200,
    rounds: int = 1,
    tolerance_grad: float = 1e-10,
    tolerance_change: float = 1e-14,
) -> OptimumFit:
    """Minimise ``objective()`` over ``params`` (in place) with L-BFGS to a tight optimum.

    Influence functions (``IFExplicit``, ``IFCG``, ...) approximate leave-one-out retraining
    only at a minimum of the training objective: ``g_testᵀ (H + λI)⁻¹ g_i`` drops the first-order
    term of the full gradient. Fit with this and check ``grad_norm`` before attributing.

    Parameters
    ----------
    params
        A ``torch.nn.Module`` (its parameters with ``requires_grad``), a tensor, or a list of
        tensors: floating-point leaf tensors with ``requires_grad=True``, updated in place.
    objective
        ``objective()`` returns the training objective as a one-element tensor, computed from
        ``params``. To match an attributor's ``regularization=λ`` with a task whose loss is the
        plain per-example loss, return the mean loss plus ``λ/2 ‖θ‖²``.
    max_iter, tolerance_grad, tolerance_change
        Passed to ``torch.optim.LBFGS`` (strong-Wolfe line search); the defaults are far tighter
        than torch's (1e-7, 1e-9), as influence functions need.
    rounds
        How many ``LBFGS.step`` calls (each up to ``max_iter`` iterations) to make; a later round
        continues with the curvature pairs of the earlier ones.

    Returns
    -------
    OptimumFit
        ``loss`` and ``grad_norm`` (‖∇ objective‖₂ over all ``params``) at the final parameters.
        A non-finite objective at the end is a ``ValueError``.
    """
    tensors = _leaf_tensors(params)
    check_callable(objective, "objective")
    max_iter = check_int(max_iter, "max_iter", minimum=1)
    rounds = check_int(rounds, "rounds", minimum=1)
    tolerance_grad = check_float(tolerance_grad, "tolerance_grad", minimum=0.0)
    tolerance_change = check_float(tolerance_change, "tolerance_change", minimum=0.0)
    opt = torch.optim.LBFGS(
        tensors,
        max_iter=max_iter,
        tolerance_grad=tolerance_grad,
        tolerance_change=tolerance_change,
        line_search_fn="strong_wolfe",
    )

    def closure():
        opt.zero_grad()
        loss = _scalar(objective())
        loss.backward()
        return loss

    with torch.enable_grad():
        for _ in range(rounds):
            opt.step(closure)
        loss = _scalar(objective())
        grads = torch.autograd.grad(loss, tensors, allow_unused=True)
    for t in tensors:
        t.grad = None
    value = float(loss.detach())
    norm = math.sqrt(sum(float(g.detach().double().square().sum()) for g in grads if g is not None))
    if not (math.isfinite(value) and math.isfinite(norm)):
        raise ValueError(
            f"objective: the fit ended at a non-finite objective or gradient (loss {value}); "
            "check the objective and the data"
        )
    return OptimumFit(loss=value, grad_norm=norm)
