"""The DDPG-style explorer of the release (needs the ``torch`` extra)."""

from __future__ import annotations

import math
import os

import numpy as np
import torch
from torch import nn

from ._checks import check_array, check_float, check_generator, check_int, check_option

__all__ = ["DDPGExplorer"]


def _mlp(n_in: int, hidden: int, n_out: int) -> nn.Sequential:
    return nn.Sequential(
        nn.Linear(n_in, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(),
        nn.Linear(hidden, n_out),
    )  # fmt: skip


def _init(module: nn.Module, generator) -> None:
    """PyTorch's default Linear init, drawn from ``generator`` (reproducible)."""
    for m in module.modules():
        if isinstance(m, nn.Linear):
            bound = 1.0 / math.sqrt(m.in_features)
            with torch.no_grad():
                m.weight.copy_(torch.rand(m.weight.shape, generator=generator) * 2 * bound - bound)
                m.bias.copy_(torch.rand(m.bias.shape, generator=generator) * 2 * bound - bound)


class DDPGExplorer(nn.Module):
    """Actor-critic pseudo-label explorer (DDPG with a softmax actor), as released.

    Actor ``state_dim -> hidden -> hidden -> 2`` (ReLU, softmax; action 1 = select), critic
    ``(state_dim + 2) -> hidden -> hidden -> 1`` fed the one-hot action (the actor's
    probabilities in the policy loss), target copies of both, a FIFO replay buffer, SGD with
    weight decay, TD target ``r + gamma Q'(s', actor'(s'))``, soft target update every step.
    ``update()`` trains once the buffer holds more than ``warmup`` transitions.

    ``actor_loss="expected"`` (default) maximises ``E_{a ~ pi(s)} Q(s, a) = sum_a pi(a|s)
    Q(s, onehot(a))``: the critic is read only at the one-hot actions it is fitted on.
    ``actor_loss="soft"`` is the release's ``Q(s, pi(s))``, the critic at the soft probability
    vector, a point it never sees in training; its slope there need not have the sign of
    ``Q(s, select) - Q(s, skip)`` and the actor then drifts to a state-free policy (skip
    everything, or select everything). Kept for comparison.
    """

    def __init__(
        self,
        *,
        warmup=200,
        batch_size=64,
        generator=None,
        state_dim=8,
        hidden=16,
        buffer_size=1000,
        lr_actor=1e-3,
        lr_critic=5e-4,
        weight_decay=0.02,
        gamma=0.9,
        tau=0.01,
        actor_loss="expected",
    ):
        super().__init__()
        self.warmup = check_int(warmup, "warmup", minimum=0)
        self.batch_size = check_int(batch_size, "batch_size", minimum=1)
        self.generator = check_generator(generator)
        self.state_dim = check_int(state_dim, "state_dim", minimum=1)
        self.hidden = check_int(hidden, "hidden", minimum=1)
        self.buffer_size = check_int(buffer_size, "buffer_size", minimum=1)
        self.lr_actor = check_float(lr_actor, "lr_actor", minimum=0.0, min_inclusive=False)
        self.lr_critic = check_float(lr_critic, "lr_critic", minimum=0.0, min_inclusive=False)
        self.weight_decay = check_float(weight_decay, "weight_decay", minimum=0.0)
        self.gamma = check_float(gamma, "gamma", minimum=0.0, maximum=1.0)
        self.tau = check_float(tau, "tau", minimum=0.0, maximum=1.0)
        self.actor_loss = check_option(actor_loss, "actor_loss", ("expected", "soft"))
        if self.batch_size > self.buffer_size:
            raise ValueError(
                f"batch_size must be <= buffer_size ({self.buffer_size}), got {self.batch_size}"
            )
        gen = self.generator
        if gen is None:
            gen = torch.Generator().manual_seed(int(torch.randint(0, 2**62, (1,)).item()))
        self._gen = gen
        self.actor = _mlp(self.state_dim, self.hidden, 2)
        self.critic = _mlp(self.state_dim + 2, self.hidden, 1)
        _init(self.actor, gen)
        _init(self.critic, gen)
        self.actor_target = _mlp(self.state_dim, self.hidden, 2)
        self.critic_target = _mlp(self.state_dim + 2, self.hidden, 1)
        self.actor_target.load_state_dict(self.actor.state_dict())
        self.critic_target.load_state_dict(self.critic.state_dict())
        for p in (*self.actor_target.parameters(), *self.critic_target.parameters()):
            p.requires_grad_(False)
        self.actor_opt = torch.optim.SGD(
            self.actor.parameters(), lr=self.lr_actor, weight_decay=self.weight_decay
        )
        self.critic_opt = torch.optim.SGD(
            self.critic.parameters(), lr=self.lr_critic, weight_decay=self.weight_decay
        )
        n = self.buffer_size
        self._s = torch.zeros(n, self.state_dim)
        self._a = torch.zeros(n, dtype=torch.long)
        self._r = torch.zeros(n)
        self._s2 = torch.zeros(n, self.state_dim)
        self._next = 0
        self._size = 0
        self.n_updates = 0

    def __len__(self) -> int:
        """Transitions in the replay buffer."""
        return self._size

    def _state(self, s, name: str) -> torch.Tensor:
        arr = check_array(s, name, ndim=1, shape=(self.state_dim,))
        return torch.as_tensor(arr, dtype=torch.float32)

    def probs(self, s) -> np.ndarray:
        """The actor's action probabilities ``(p(skip), p(select))`` at state ``s``."""
        with torch.no_grad():
            return torch.softmax(self.actor(self._state(s, "s")[None]), dim=1)[0].numpy()

    def act(self, s, *, greedy=False) -> int:
        """An action for state ``s`` (``(state_dim,)``): sampled from the actor, or its argmax."""
        if not isinstance(greedy, bool):
            raise TypeError(f"greedy must be a bool, got {type(greedy).__name__}")
        p = torch.as_tensor(self.probs(s))
        if greedy:
            return int(torch.argmax(p).item())
        return int(torch.multinomial(p, 1, generator=self._gen).item())

    def forward(self, s: torch.Tensor) -> torch.Tensor:
        """Action probabilities for a batch of states ``(b, state_dim)``."""
        return torch.softmax(self.actor(s), dim=1)

    def store(self, s, a, r, s2) -> None:
        """Add a transition (FIFO beyond ``buffer_size``)."""
        st, st2 = self._state(s, "s"), self._state(s2, "s2")
        a = check_int(a, "a", minimum=0, maximum=1)
        r = check_float(r, "r")
        k = self._next
        self._s[k], self._a[k], self._r[k], self._s2[k] = st, a, r, st2
        self._next = (k + 1) % self.buffer_size
        self._size = min(self._size + 1, self.buffer_size)

    def _q_corners(self, critic: nn.Module, s: torch.Tensor) -> torch.Tensor:
        """``(b, 2)``: the critic at both one-hot actions of every state."""
        b = s.shape[0]
        eye = torch.eye(2).repeat(b, 1)
        return critic(torch.cat([s.repeat_interleave(2, dim=0), eye], dim=1)).view(b, 2)

    def update(self):
        """One gradient step on a random batch; ``None`` while the buffer holds ``<= warmup``
        transitions (or fewer than ``batch_size``), else ``(critic_loss, actor_loss)``."""
        if self._size <= self.warmup or self._size < self.batch_size:
            return None
        idx = torch.randperm(self._size, generator=self._gen)[: self.batch_size]
        s, a, r, s2 = self._s[idx], self._a[idx], self._r[idx, None], self._s2[idx]
        with torch.no_grad():
            p2 = torch.softmax(self.actor_target(s2), dim=1)
            target = r + self.gamma * self.critic_target(torch.cat([s2, p2], dim=1))
        onehot = torch.nn.functional.one_hot(a, 2).float()
        q = self.critic(torch.cat([s, onehot], dim=1))
        critic_loss = torch.mean((q - target) ** 2)
        self.critic_opt.zero_grad()
        critic_loss.backward()
        self.critic_opt.step()
        p = torch.softmax(self.actor(s), dim=1)
        if self.actor_loss == "soft":  # the release: the critic at the soft action
            actor_loss = -self.critic(torch.cat([s, p], dim=1)).mean()
        else:  # E_{a ~ pi(s)} Q(s, a): the critic only at the one-hot actions it was fitted on
            with torch.no_grad():
                q_all = self._q_corners(self.critic, s)
            actor_loss = -(p * q_all).sum(dim=1).mean()
        self.actor_opt.zero_grad()
        actor_loss.backward()
        self.actor_opt.step()
        self.critic.zero_grad(set_to_none=True)
        with torch.no_grad():
            for tgt, src in ((self.actor_target, self.actor), (self.critic_target, self.critic)):
                for pt, ps in zip(tgt.parameters(), src.parameters(), strict=True):
                    pt.mul_(1 - self.tau).add_(ps, alpha=self.tau)
        self.n_updates += 1
        return float(critic_loss.item()), float(actor_loss.item())

    def _config(self) -> dict:
        return {k: getattr(self, k) for k in _CONFIG}

    def save(self, path) -> None:
        """Write the networks, target networks, optimisers, replay buffer, generator state and
        settings to ``path`` (``torch.save``); :meth:`load` restores them exactly."""
        path = _check_path(path)
        torch.save(
            {
                "format": "pecl_detect.DDPGExplorer/1",
                "config": self._config(),
                "modules": self.state_dict(),
                "actor_opt": self.actor_opt.state_dict(),
                "critic_opt": self.critic_opt.state_dict(),
                "buffer": {
                    "s": self._s,
                    "a": self._a,
                    "r": self._r,
                    "s2": self._s2,
                    "next": self._next,
                    "size": self._size,
                },  # fmt: skip
                "n_updates": self.n_updates,
                "generator": self._gen.get_state(),
            },
            path,
        )

    def load(self, path) -> DDPGExplorer:
        """Restore a state written by :meth:`save` into this explorer (returns ``self``).

        The saved ``state_dim``, ``hidden`` and ``buffer_size`` must match this explorer's
        (``ValueError`` otherwise); the other saved settings replace this explorer's."""
        path = _check_path(path)
        try:
            ckpt = torch.load(path, weights_only=True)
        except Exception as e:
            raise ValueError(f"path {str(path)!r} is not a DDPGExplorer checkpoint: {e}") from e
        if not isinstance(ckpt, dict) or ckpt.get("format") != "pecl_detect.DDPGExplorer/1":
            raise ValueError(f"path {str(path)!r} is not a DDPGExplorer checkpoint")
        cfg = ckpt["config"]
        for k in ("state_dim", "hidden", "buffer_size"):
            if cfg[k] != getattr(self, k):
                raise ValueError(
                    f"path {str(path)!r} holds an explorer with {k}={cfg[k]}, "
                    f"this one has {k}={getattr(self, k)}"
                )
        for k, v in cfg.items():
            setattr(self, k, v)
        self.load_state_dict(ckpt["modules"])
        for opt, key, lr in ((self.actor_opt, "actor_opt", self.lr_actor),
                             (self.critic_opt, "critic_opt", self.lr_critic)):  # fmt: skip
            opt.load_state_dict(ckpt[key])
            for g in opt.param_groups:
                g["lr"], g["weight_decay"] = lr, self.weight_decay
        buf = ckpt["buffer"]
        self._s, self._a, self._r, self._s2 = buf["s"], buf["a"], buf["r"], buf["s2"]
        self._next, self._size = int(buf["next"]), int(buf["size"])
        self.n_updates = int(ckpt["n_updates"])
        self._gen.set_state(ckpt["generator"])
        return self


_CONFIG = ("warmup", "batch_size", "state_dim", "hidden", "buffer_size", "lr_actor",
           "lr_critic", "weight_decay", "gamma", "tau", "actor_loss")  # fmt: skip


def _check_path(path):
    if not isinstance(path, str | os.PathLike):
        raise TypeError(f"path must be a str or os.PathLike, got {type(path).__name__}")
    return os.fspath(path)
