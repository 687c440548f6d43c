"""Behavior cloning on a synthetic set, and the meta-gradient of an outer objective through it.

The inner problem is T full-batch steps of ``torch.optim.SGD`` (heavy-ball momentum mu, no
dampening, no Nesterov) on the BC loss l(theta) = mean_i ||pi_theta(s_i) - a_i||^2:

    v_{t+1} = mu v_t + grad l(theta_t),  theta_{t+1} = theta_t - lr v_{t+1},  v_0 = 0,

from theta_0 = the policy module's current parameters (left unchanged). The meta-gradient is the
gradient of H(pi_{theta_T}) with respect to the synthetic states and actions, by

* ``method="unroll"``: back-propagation through the whole unrolled inner loop (``create_graph``;
  memory grows with T times the graph of one step);
* ``method="reverse_hvp"``: the paper's memory-saving scheme ("Remember the Past"): keep only the
  T parameter snapshots, then walk backwards with one Hessian-vector (and mixed second-derivative)
  product per step, holding one step's graph at a time. Exact in exact arithmetic.
"""

from __future__ import annotations

import numpy as np
import torch
from torch.func import functional_call

from ._checks import check_float, check_int, check_option, check_same_length, describe
from ._validation import as_tensor, check_module, module_dtype
from .objectives import bc_loss

__all__ = ["METHODS", "meta_gradient", "train_bc"]

METHODS = ("unroll", "reverse_hvp")


class _Functional:
    """``policy`` evaluated at a given parameter dict (a ``policy_fn`` for the objectives)."""

    def __init__(self, module, params, dtype, device):
        self.module, self.params = module, params
        self.dtype, self.device = dtype, device

    def __call__(self, x):
        return functional_call(self.module, self.params, (x,))


def _synthetic(policy, states, actions):
    """(module, states, actions) as checked tensors of the policy's dtype and device."""
    policy = check_module(policy, "policy")
    dtype = module_dtype(policy) or torch.get_default_dtype()
    device = next((p.device for p in policy.parameters()), torch.device("cpu"))
    s = as_tensor(states, "states", ndim=2, dtype=dtype, device=device)
    a = as_tensor(actions, "actions", ndim=(1, 2), dtype=dtype, device=device)
    check_same_length(states=s, actions=a)
    if a.ndim == 1:
        a = a[:, None]
    return policy, s, a


def _check_outputs(out, actions):
    if not isinstance(out, torch.Tensor):
        raise TypeError(f"policy must return a torch.Tensor, got {describe(out)}")
    if tuple(out.shape) != tuple(actions.shape):
        raise ValueError(
            f"actions must have the shape of the policy's outputs {tuple(out.shape)}, "
            f"got {tuple(actions.shape)}"
        )


def _inner_options(inner_steps, inner_lr, inner_momentum, *, prefix="inner_"):
    T = check_int(inner_steps, f"{prefix}steps", minimum=1)
    lr = check_float(inner_lr, f"{prefix}lr", minimum=0.0, min_inclusive=False)
    mu = check_float(inner_momentum, f"{prefix}momentum", minimum=0.0, maximum=1.0)
    if mu == 1.0:
        raise ValueError(f"{prefix}momentum must be < 1, got 1.0")
    return T, lr, mu


def train_bc(policy, states, actions, *, steps=100, lr=0.1, momentum=0.0):
    """Behavior cloning: ``steps`` full-batch SGD steps (``torch.optim.SGD(lr, momentum)``'s
    update) on
    mean_i ||policy(s_i) - a_i||^2. Trains ``policy`` in place and returns it.

    ``actions`` are targets in the policy's output space: (N, act_dim) actions, or (N, n_actions)
    (soft) labels for a policy that outputs action probabilities. Parameters with
    ``requires_grad=False`` stay fixed.
    """
    policy, s, a = _synthetic(policy, states, actions)
    steps, lr, momentum = _inner_options(steps, lr, momentum, prefix="")
    s, a = s.detach(), a.detach()
    params = [p for p in policy.parameters() if p.requires_grad]
    if not params:
        raise ValueError("policy must have parameters with requires_grad=True, got none")
    # torch.optim.SGD's update written out (no dampening, no Nesterov): its first step imports
    # torch._dynamo, which costs seconds per process
    bufs = None
    with torch.enable_grad():
        for step in range(steps):
            out = policy(s)
            if step == 0:
                _check_outputs(out, a)
            grads = torch.autograd.grad(bc_loss(out, a), params)
            with torch.no_grad():
                if bufs is None:
                    bufs = [g.clone() for g in grads]
                else:
                    for b, g in zip(bufs, grads):
                        b.mul_(momentum).add_(g)
                for p, b in zip(params, bufs):
                    p.sub_(lr * b)
    return policy


def _ndim(x) -> int:
    return x.ndim if isinstance(x, torch.Tensor) else int(np.ndim(x))


def _grad(loss, inputs, **kwargs):
    grads = torch.autograd.grad(loss, inputs, allow_unused=True, **kwargs)
    return [torch.zeros_like(x) if g is None else g for g, x in zip(grads, inputs)]


def meta_gradient(
    policy,
    states,
    actions,
    objective,
    batch,
    *,
    inner_steps=100,
    inner_lr=0.1,
    inner_momentum=0.0,
    method="unroll",
):
    """(loss, grad_states, grad_actions): H(pi_{theta_T}) and its gradient with respect to the
    synthetic ``states`` (N, obs_dim) and ``actions`` (N, k).

    theta_0 is ``policy``'s current parameters (not modified); theta_T comes from ``inner_steps``
    full-batch SGD steps (``inner_lr``, heavy-ball ``inner_momentum``) on
    mean_i ||pi_theta(s_i) - a_i||^2; ``loss = objective(pi_{theta_T}, batch)`` (for instance
    :class:`DBC`, :class:`PBC` or :class:`AvPBC` on a minibatch of offline data). ``method``:
    ``"unroll"`` (back-propagate through the unrolled loop) or ``"reverse_hvp"`` (the paper's
    memory-saving backward walk over stored parameter snapshots). ``loss`` is a 0-d tensor; the
    gradients have the shapes of ``states`` and ``actions``.
    """
    policy, s0, a0 = _synthetic(policy, states, actions)
    action_shape = (a0.shape[0],) if _ndim(actions) == 1 else tuple(a0.shape)
    if not callable(objective):
        raise TypeError(f"objective must be callable, got {describe(objective)}")
    T, lr, mu = _inner_options(inner_steps, inner_lr, inner_momentum)
    check_option(method, "method", METHODS)
    dtype, device = s0.dtype, s0.device
    batch = _batch_tensors(batch, dtype, device)
    names = [n for n, p in policy.named_parameters() if p.requires_grad]
    fixed = {n: p.detach() for n, p in policy.named_parameters() if not p.requires_grad}
    if not names:
        raise ValueError("policy must have parameters with requires_grad=True, got none")
    theta = {n: p.detach().clone() for n, p in policy.named_parameters() if p.requires_grad}
    S = s0.detach().clone().requires_grad_(True)
    A = a0.detach().clone().requires_grad_(True)

    def inner_loss(params, s, a):
        out = functional_call(policy, {**params, **fixed}, (s,))
        _check_outputs(out, a)
        return bc_loss(out, a)

    def outer(params):
        fn = _Functional(policy, {**params, **fixed}, dtype, device)
        loss = objective(fn, batch)
        if not isinstance(loss, torch.Tensor) or loss.numel() != 1:
            raise TypeError(f"objective must return a scalar tensor, got {describe(loss)}")
        return loss.reshape(())

    with torch.enable_grad():
        if method == "unroll":
            params = {n: t.requires_grad_(True) for n, t in theta.items()}
            v = None
            for _ in range(T):
                g = torch.autograd.grad(
                    inner_loss(params, S, A), list(params.values()), create_graph=True
                )
                v = list(g) if v is None else [mu * vi + gi for vi, gi in zip(v, g)]
                params = {n: p - lr * vi for (n, p), vi in zip(params.items(), v)}
            loss = outer(params)
            g_s, g_a = _grad(loss, [S, A])
        else:
            snapshots = []
            params = theta
            v = None
            for _ in range(T):
                snapshots.append(params)
                p_req = {n: t.detach().requires_grad_(True) for n, t in params.items()}
                g = torch.autograd.grad(
                    inner_loss(p_req, S.detach(), A.detach()), list(p_req.values())
                )
                v = list(g) if v is None else [mu * vi + gi for vi, gi in zip(v, g)]
                params = {n: (p - lr * vi).detach() for (n, p), vi in zip(params.items(), v)}
            p_T = {n: t.requires_grad_(True) for n, t in params.items()}
            loss = outer(p_T)
            d_theta = _grad(loss, list(p_T.values()))
            d_v = [torch.zeros_like(t) for t in d_theta]
            g_s, g_a = torch.zeros_like(S), torch.zeros_like(A)
            for snap in reversed(snapshots):
                # theta_{t+1} = theta_t - lr v_{t+1}: the adjoint of v_{t+1} gains -lr d_theta
                d_v = [dv - lr * dt for dv, dt in zip(d_v, d_theta)]
                p_t = {n: t.detach().requires_grad_(True) for n, t in snap.items()}
                g = torch.autograd.grad(
                    inner_loss(p_t, S, A), list(p_t.values()), create_graph=True
                )
                inputs = [*p_t.values(), S, A]
                # the vector-Jacobian product d_v^T d(grad l)/d(theta_t, S, A), as the gradient
                # of a scalar (passing grad_outputs= makes torch import its symbolic-shape
                # machinery, seconds on a loaded machine)
                vjp = sum((gi * dv).sum() for gi, dv in zip(g, d_v))
                back = torch.autograd.grad(vjp, inputs, allow_unused=True)
                back = [torch.zeros_like(x) if b is None else b for b, x in zip(back, inputs)]
                k = len(p_t)
                d_theta = [dt + b for dt, b in zip(d_theta, back[:k])]
                g_s = g_s + back[k]
                g_a = g_a + back[k + 1]
                d_v = [mu * dv for dv in d_v]  # v_{t+1} = mu v_t + g_t
    return loss.detach(), g_s.detach().reshape(s0.shape), g_a.detach().reshape(action_shape)


def _batch_tensors(batch, dtype, device):
    """The offline minibatch with its float arrays as tensors of ``dtype`` (ints kept)."""
    from ._validation import check_mapping

    check_mapping(batch, "batch", keys=("observations",))
    out = {}
    for key, value in batch.items():
        if key == "observations":
            out[key] = as_tensor(value, "batch['observations']", ndim=2, dtype=dtype, device=device)
        elif key == "actions":
            out[key] = as_tensor(
                value, "batch['actions']", ndim=(1, 2), dtype=dtype, device=device, integer_ok=True
            )
        else:
            out[key] = value
    if "actions" in out:
        check_same_length(
            **{"batch['observations']": out["observations"]}, **{"batch['actions']": out["actions"]}
        )
    return out
