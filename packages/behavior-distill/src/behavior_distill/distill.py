"""The outer loop of offline behavior distillation (the paper's Algorithm 1, BPTT)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from ._checks import (
    check_callable,
    check_float,
    check_generator,
    check_int,
    check_same_length,
    describe,
)
from ._validation import as_tensor, check_mapping
from .metagrad import METHODS, _inner_options, meta_gradient

__all__ = ["DistillHistory", "distill"]


@dataclass(frozen=True)
class DistillHistory:
    """What happened during :func:`distill`.

    loss
        (outer_steps,) the outer objective H(pi_{theta_T}) at every outer step (before its update).
    grad_norm
        (outer_steps,) the joint norm of the meta-gradient (states, actions) before clipping.
    eval_steps, eval_values
        The outer steps at which ``eval_fn`` ran (0 = the initial set, ``outer_steps`` = the
        final one) and what it returned.

    ``history["loss"]`` is ``history.loss``; ``len(history)`` and ``history[i]`` index the
    per-step losses.
    """

    loss: np.ndarray
    grad_norm: np.ndarray
    eval_steps: tuple[int, ...] = ()
    eval_values: tuple[float, ...] = ()

    def __len__(self) -> int:
        return len(self.loss)

    def __getitem__(self, key):
        if isinstance(key, str):
            try:
                return getattr(self, key)
            except AttributeError:
                raise KeyError(key) from None
        return self.loss[key]


def _offline(offline_data, dtype, device):
    check_mapping(offline_data, "offline_data", keys=("observations",))
    obs = as_tensor(
        offline_data["observations"],
        "offline_data['observations']",
        ndim=2,
        dtype=dtype,
        device=device,
    )
    out = {"observations": obs}
    if "actions" in offline_data:
        act = as_tensor(
            offline_data["actions"],
            "offline_data['actions']",
            ndim=(1, 2),
            dtype=dtype,
            device=device,
            integer_ok=True,
        )
        check_same_length(**{"offline_data['observations']": obs, "offline_data['actions']": act})
        out["actions"] = act
    n = obs.shape[0]
    for key, value in offline_data.items():  # other per-row fields (rewards, ...) ride along
        if key in out or not isinstance(value, np.ndarray | torch.Tensor):
            continue
        if value.ndim >= 1 and value.shape[0] == n and value.dtype != object:
            out[key] = torch.as_tensor(value).to(device)
    return out


def _fresh_policy(make_policy, generator):
    """``make_policy()`` under a torch seed drawn from ``generator`` (global RNG untouched)."""
    seed = int(torch.randint(0, 2**62, (1,), generator=generator))
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        policy = make_policy()
    if not isinstance(policy, torch.nn.Module):
        raise TypeError(f"make_policy must return a torch.nn.Module, got {describe(policy)}")
    return policy


def distill(
    states,
    actions,
    make_policy,
    objective,
    offline_data,
    *,
    outer_steps,
    outer_lr=0.1,
    outer_momentum=0.9,
    batch_size=256,
    generator=None,
    inner_steps=100,
    inner_lr=0.1,
    inner_momentum=0.0,
    method="unroll",
    clip_norm=2.0,
    eval_fn=None,
    eval_every=None,
):
    """Optimise the synthetic set (``states``, ``actions``) so that BC on it minimises
    ``objective``. Returns ``(states, actions, history)`` (new tensors; the inputs are unchanged).

    Every outer step: a freshly initialised policy ``make_policy()`` (a zero-argument factory
    of a ``torch.nn.Module``, seeded from ``generator``), a minibatch of ``batch_size`` rows of
    ``offline_data`` (a D4RL-layout dict, drawn without replacement), the meta-gradient of
    ``objective`` through ``inner_steps`` BC steps (:func:`meta_gradient` with ``inner_lr``,
    ``inner_momentum``, ``method``), its joint norm clipped to ``clip_norm`` (2.0 as in the
    paper's code; ``None`` for no clipping), and one ``torch.optim.SGD(outer_lr,
    outer_momentum)`` step on states and actions. ``eval_fn(states, actions) -> float``, if given,
    runs on the initial set, every ``eval_every`` outer steps and on the final set.
    """
    check_callable(make_policy, "make_policy")
    check_callable(objective, "objective")
    S = as_tensor(states, "states", ndim=2)
    A = as_tensor(actions, "actions", ndim=(1, 2), dtype=S.dtype, device=S.device)
    check_same_length(states=S, actions=A)
    n_outer = check_int(outer_steps, "outer_steps", minimum=1)
    lr = check_float(outer_lr, "outer_lr", minimum=0.0, min_inclusive=False)
    mu = check_float(outer_momentum, "outer_momentum", minimum=0.0, maximum=1.0)
    if mu == 1.0:
        raise ValueError("outer_momentum must be < 1, got 1.0")
    bs = check_int(batch_size, "batch_size", minimum=1)
    gen = check_generator(generator)
    _inner_options(inner_steps, inner_lr, inner_momentum)
    if not isinstance(method, str):
        raise TypeError(f"method must be one of {list(METHODS)}, got {describe(method)}")
    if method not in METHODS:
        raise ValueError(f"method must be one of {list(METHODS)}, got {method!r}")
    clip = None if clip_norm is None else check_float(clip_norm, "clip_norm", minimum=0.0)
    if clip == 0.0:
        raise ValueError("clip_norm must be > 0 (or None for no clipping), got 0.0")
    if eval_fn is not None:
        check_callable(eval_fn, "eval_fn")
    every = None if eval_every is None else check_int(eval_every, "eval_every", minimum=1)
    data = _offline(offline_data, S.dtype, S.device)
    n_off = data["observations"].shape[0]
    if bs > n_off:
        raise ValueError(f"batch_size must be <= the {n_off} rows of offline_data, got {bs}")
    if gen is None:
        gen = torch.Generator().manual_seed(int(torch.randint(0, 2**62, (1,))))

    S = S.detach().clone()
    A = A.detach().clone()
    bufs = None  # torch.optim.SGD(lr, momentum)'s momentum buffers for (S, A)
    losses, norms, eval_steps, eval_values = [], [], [], []

    def evaluate(step):
        value = eval_fn(S.detach().clone(), A.detach().clone())
        eval_steps.append(step)
        eval_values.append(check_float(value, "eval_fn's value", finite=False))

    if eval_fn is not None:
        evaluate(0)
    for step in range(n_outer):
        policy = _fresh_policy(make_policy, gen)
        idx = torch.randperm(n_off, generator=gen)[:bs].to(S.device)
        batch = {k: v[idx] for k, v in data.items()}
        loss, g_s, g_a = meta_gradient(
            policy,
            S.detach(),
            A.detach(),
            objective,
            batch,
            inner_steps=inner_steps,
            inner_lr=inner_lr,
            inner_momentum=inner_momentum,
            method=method,
        )
        norm = float(torch.sqrt((g_s**2).sum() + (g_a**2).sum()))
        if not np.isfinite(norm):
            raise FloatingPointError(
                f"the meta-gradient is not finite at outer step {step} (loss {float(loss)}): "
                "lower inner_lr or outer_lr"
            )
        scale = 1.0 if clip is None or norm <= clip else clip / (norm + 1e-6)
        with torch.no_grad():
            if bufs is None:
                bufs = [g_s * scale, g_a * scale]
            else:
                bufs = [mu * b + g * scale for b, g in zip(bufs, (g_s, g_a))]
            S -= lr * bufs[0]
            A -= lr * bufs[1]
        losses.append(float(loss))
        norms.append(norm)
        if eval_fn is not None and every is not None and (step + 1) % every == 0:
            if step + 1 < n_outer:
                evaluate(step + 1)
    if eval_fn is not None:
        evaluate(n_outer)
    history = DistillHistory(
        loss=np.asarray(losses),
        grad_norm=np.asarray(norms),
        eval_steps=tuple(eval_steps),
        eval_values=tuple(eval_values),
    )
    return S.detach(), A.detach(), history
