"""The outer objectives H of offline behavior distillation, called ``objective(policy_fn, batch)``.

``policy_fn`` maps a (B, obs_dim) tensor of observations to the policy's (B, k) outputs: the
action for a deterministic continuous policy (k = act_dim), the action probabilities for a
discrete one (k = n_actions). ``batch`` is a minibatch of offline data in the D4RL layout (a dict
with ``observations`` and, for :class:`DBC`, ``actions``: (B, act_dim) floats, or (B,) integer
action indices, one-hot encoded to k columns). Every objective is a mean over the batch of a
squared difference summed over the k output columns:

* ``DBC()``: mean_i ||pi(s_i) - a_i||^2 (imitate the offline data);
* ``PBC(teacher)``: mean_i ||pi(s_i) - pi*(s_i)||^2 (imitate the offline-RL teacher);
* ``AvPBC(teacher, critic, beta=0.02)``: mean_i beta q_i ||pi(s_i) - pi*(s_i)||^2 with
  ``q_i = critic(s_i, pi*(s_i))`` (the paper's code, continuous actions), or, when the critic
  returns one value per action ((B, k), discrete policies),
  mean_i beta sum_a q(s_i, a) (pi(a|s_i) - pi*(a|s_i))^2 (the paper's discrete objective).

Teacher and critic outputs are constants (computed without gradients).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from ._checks import check_callable, check_float, describe
from ._validation import as_tensor, check_mapping, module_device, module_dtype

__all__ = ["AvPBC", "DBC", "PBC", "bc_loss"]


def bc_loss(outputs: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """mean_i ||outputs_i - targets_i||^2 (squared differences summed over the last axis)."""
    return ((outputs - targets) ** 2).sum(dim=-1).mean()


def _observations(policy_fn, batch) -> torch.Tensor:
    check_callable(policy_fn, "policy_fn")
    check_mapping(batch, "batch", keys=("observations",))
    return as_tensor(
        batch["observations"],
        "batch['observations']",
        ndim=2,
        dtype=module_dtype(policy_fn),
        device=module_device(policy_fn),
    )


def _outputs(policy_fn, obs: torch.Tensor) -> torch.Tensor:
    out = policy_fn(obs)
    if not isinstance(out, torch.Tensor):
        raise TypeError(f"policy_fn must return a torch.Tensor, got {describe(out)}")
    if out.ndim != 2 or out.shape[0] != obs.shape[0]:
        raise ValueError(
            f"policy_fn must return a ({obs.shape[0]}, k) tensor for {obs.shape[0]} observations, "
            f"got shape {tuple(out.shape)}"
        )
    return out


def _targets(value: Any, name: str, out: torch.Tensor) -> torch.Tensor:
    """Targets shaped like ``out``: (B, k) floats, or (B,) integer indices one-hot encoded."""
    t = as_tensor(value, name, ndim=(1, 2), dtype=out.dtype, device=out.device, integer_ok=True)
    if not t.is_floating_point():
        k = out.shape[1]
        if t.ndim != 1:
            raise ValueError(f"{name} as action indices must be 1-d, got shape {tuple(t.shape)}")
        if bool((t < 0).any()) or bool((t >= k).any()):
            raise ValueError(
                f"{name} must be action indices in [0, {k}) (the policy has {k} outputs), "
                f"got values in [{int(t.min())}, {int(t.max())}]"
            )
        t = torch.nn.functional.one_hot(t, k).to(out.dtype)
    elif t.ndim == 1:
        if out.shape[1] != 1:
            raise ValueError(
                f"{name} has shape {tuple(t.shape)} but the policy has {out.shape[1]} outputs: "
                "give (B, k) targets (or integer action indices)"
            )
        t = t[:, None]
    if t.shape != out.shape:
        raise ValueError(
            f"{name} must have shape {tuple(out.shape)} (one row per observation, one column per "
            f"policy output), got {tuple(t.shape)}"
        )
    return t


class DBC:
    """Data-based BC objective: H = mean_i ||pi(s_i) - a_i||^2 over the offline batch."""

    def __call__(self, policy_fn, batch) -> torch.Tensor:
        obs = _observations(policy_fn, batch)
        check_mapping(batch, "batch", keys=("observations", "actions"))
        out = _outputs(policy_fn, obs)
        target = _targets(batch["actions"], "batch['actions']", out)
        if target.shape[0] != obs.shape[0]:  # pragma: no cover - caught by the shape check
            raise ValueError("batch['actions'] must have one row per observation")
        return bc_loss(out, target)

    def __repr__(self) -> str:
        return "DBC()"


class PBC:
    """Policy-based BC objective: H = mean_i ||pi(s_i) - pi*(s_i)||^2.

    ``teacher(observations) -> (B, k)``: the teacher's action (continuous) or action
    probabilities (discrete), e.g. an offline-RL actor's mean action (a tensor or an array;
    integer (B,) outputs are action indices, one-hot encoded).
    """

    def __init__(self, teacher):
        self.teacher = check_callable(teacher, "teacher")

    def _teacher_targets(self, obs: torch.Tensor, out: torch.Tensor) -> torch.Tensor:
        with torch.no_grad():
            t = self.teacher(obs)
        if isinstance(t, torch.Tensor):
            t = t.detach()
        return _targets(t, "teacher(observations)", out)

    def __call__(self, policy_fn, batch) -> torch.Tensor:
        obs = _observations(policy_fn, batch)
        out = _outputs(policy_fn, obs)
        return bc_loss(out, self._teacher_targets(obs, out))

    def __repr__(self) -> str:
        return f"PBC(teacher={self.teacher!r})"


class AvPBC(PBC):
    """Action-value weighted PBC (the paper's proposal).

    ``critic(observations, teacher_actions)`` returns either (B,) (or (B, 1)) values
    q(s, pi*(s)): H = mean_i beta q_i ||pi(s_i) - pi*(s_i)||^2 (the paper's code, continuous
    actions); or (B, k) values, one per action: H = mean_i beta sum_a q(s_i, a)
    (pi(a|s_i) - pi*(a|s_i))^2 (the paper's discrete objective). The Corollary that motivates it
    needs q >= 0 (non-negative rewards).
    """

    def __init__(self, teacher, critic, *, beta=0.02):
        super().__init__(teacher)
        self.critic = check_callable(critic, "critic")
        self.beta = check_float(beta, "beta", minimum=0.0, min_inclusive=False)

    def weights(self, obs: torch.Tensor, teacher_actions: torch.Tensor, k: int) -> torch.Tensor:
        """beta * critic(obs, teacher_actions) as (B, 1) or (B, k) weights."""
        with torch.no_grad():
            q = self.critic(obs, teacher_actions)
        if not isinstance(q, torch.Tensor):
            if q is None or isinstance(q, str):
                raise TypeError(f"critic must return a tensor of values, got {describe(q)}")
            q = torch.as_tensor(np.asarray(q, dtype=np.float64))
        q = q.detach().to(dtype=teacher_actions.dtype, device=teacher_actions.device)
        B = obs.shape[0]
        if q.shape in ((B,), (B, 1)):
            q = q.reshape(B, 1)
        elif q.shape != (B, k):
            raise ValueError(
                f"critic must return ({B},) values q(s, pi*(s)) or ({B}, {k}) per-action values, "
                f"got shape {tuple(q.shape)}"
            )
        if not bool(torch.isfinite(q).all()):
            raise ValueError("critic must return finite values, got NaN or inf")
        return self.beta * q

    def __call__(self, policy_fn, batch) -> torch.Tensor:
        obs = _observations(policy_fn, batch)
        out = _outputs(policy_fn, obs)
        target = self._teacher_targets(obs, out)
        w = self.weights(obs, target, out.shape[1])
        return (w * (out - target) ** 2).sum(dim=-1).mean()

    def __repr__(self) -> str:
        return f"AvPBC(teacher={self.teacher!r}, critic={self.critic!r}, beta={self.beta})"
