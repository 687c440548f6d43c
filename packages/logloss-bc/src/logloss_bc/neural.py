"""Neural policies and learners (the ``logloss-bc[torch]`` extra).

``CategoricalMLP`` and ``GaussianMLP`` are ``torch.nn.Module`` policies with ``log_prob(obs,
actions)``, ``act(obs, *, deterministic=False, generator=None)`` and ``squared_error(obs,
actions)``; ``logloss_bc`` maximises the log-likelihood of expert actions (LogLossBC),
``mse_bc`` minimises the square loss, ``dagger`` aggregates expert labels on the learner's own
states, and ``hellinger_sq_deterministic_expert`` estimates D^2_H from expert rollouts.
"""

from __future__ import annotations

import math

import numpy as np
import torch
from torch import nn

from ._checks import (
    check_array,
    check_bool,
    check_callable,
    check_float,
    check_generator,
    check_int,
    check_option,
    check_rng,
    check_tensor,
    describe,
)
from .rollout import _check_env, rollout
from .tabular import hellinger_sq_from_logprobs

ACTIVATIONS = {"tanh": nn.Tanh, "relu": nn.ReLU}


def _check_hidden(hidden_sizes) -> tuple[int, ...]:
    if isinstance(hidden_sizes, str | bytes) or not hasattr(hidden_sizes, "__iter__"):
        raise TypeError(
            f"hidden_sizes must be a sequence of layer widths, got {describe(hidden_sizes)}"
        )
    return tuple(check_int(h, "hidden_sizes", minimum=1) for h in hidden_sizes)


def _mlp(in_dim: int, out_dim: int, hidden: tuple[int, ...], activation: str) -> nn.Sequential:
    layers: list[nn.Module] = []
    d = in_dim
    for w in hidden:
        layers += [nn.Linear(d, w), ACTIVATIONS[activation]()]
        d = w
    layers.append(nn.Linear(d, out_dim))
    return nn.Sequential(*layers)


def _param(module: nn.Module) -> torch.Tensor:
    return next(module.parameters())


def _as_tensor(value, name: str, like: torch.Tensor) -> tuple[torch.Tensor, bool]:
    """(float tensor on ``like``'s device and dtype, whether the input was a tensor)."""
    if isinstance(value, torch.Tensor):
        check_tensor(value, name, dtype="any")
        return value.to(device=like.device, dtype=like.dtype), True
    arr = check_array(value, name, ndim=None)
    return torch.as_tensor(arr, dtype=like.dtype, device=like.device), False


def _check_obs(module, obs) -> tuple[torch.Tensor, bool]:
    t, was_tensor = _as_tensor(obs, "obs", _param(module))
    if t.ndim == 0 or t.shape[-1] != module.obs_dim:
        raise ValueError(f"obs must have shape (..., {module.obs_dim}), got {tuple(t.shape)}")
    if t.numel() == 0:
        raise ValueError(f"obs must not be empty, got shape {tuple(t.shape)}")
    return t, was_tensor


class _Policy(nn.Module):
    obs_dim: int

    def _out(self, value, was_tensor: bool):
        return value if was_tensor else value.detach().cpu().numpy()


class CategoricalMLP(_Policy):
    """A softmax policy over ``n_actions`` discrete actions: logits = MLP(obs).

    Parameters
    ----------
    obs_dim, n_actions
        Observation size (observations are (..., obs_dim) float vectors; give a one-hot for a
        tabular state) and number of actions.
    hidden_sizes
        Widths of the hidden layers (default two of 64, the paper's); ``()`` makes a linear
        softmax, which on one-hot observations is the tabular softmax class.
    activation
        ``"tanh"`` or ``"relu"``.
    """

    def __init__(self, obs_dim, n_actions, *, hidden_sizes=(64, 64), activation="tanh"):
        super().__init__()
        self.obs_dim = check_int(obs_dim, "obs_dim", minimum=1)
        self.n_actions = check_int(n_actions, "n_actions", minimum=1)
        hidden = _check_hidden(hidden_sizes)
        check_option(activation, "activation", tuple(ACTIVATIONS))
        self.net = _mlp(self.obs_dim, self.n_actions, hidden, activation)

    def forward(self, obs) -> torch.Tensor:
        """Logits (..., n_actions)."""
        t, _ = _check_obs(self, obs)
        return self.net(t)

    def log_probs(self, obs) -> torch.Tensor:
        """log pi(. | obs), (..., n_actions)."""
        return torch.log_softmax(self(obs), dim=-1)

    def _actions(self, obs: torch.Tensor, actions) -> torch.Tensor:
        if isinstance(actions, torch.Tensor):
            check_tensor(actions, "actions", dtype="integer")
            a = actions.to(device=obs.device, dtype=torch.long)
        else:
            a = torch.as_tensor(
                check_array(actions, "actions", ndim=None, dtype="int"), device=obs.device
            )
        if tuple(a.shape) != tuple(obs.shape[:-1]):
            raise ValueError(
                f"actions must have shape {tuple(obs.shape[:-1])} (one per observation), got "
                f"{tuple(a.shape)}"
            )
        if bool((a < 0).any()) or bool((a >= self.n_actions).any()):
            bad = a[(a < 0) | (a >= self.n_actions)].flatten()[0]
            raise ValueError(
                f"actions must be in [0, {self.n_actions - 1}] (n_actions={self.n_actions}), "
                f"got {int(bad)}"
            )
        return a

    def log_prob(self, obs, actions) -> torch.Tensor:
        """log pi(actions | obs): obs (..., obs_dim), int actions (...) -> (...)."""
        t, _ = _check_obs(self, obs)
        return self._log_prob(t, self._actions(t, actions))

    def _log_prob(self, t: torch.Tensor, a: torch.Tensor) -> torch.Tensor:
        lp = torch.log_softmax(self.net(t), dim=-1)
        return lp.gather(-1, a.unsqueeze(-1)).squeeze(-1)

    def squared_error(self, obs, actions) -> torch.Tensor:
        """||pi(. | obs) - onehot(actions)||^2 (the square loss of ``mse_bc``), (...)."""
        t, _ = _check_obs(self, obs)
        return self._squared_error(t, self._actions(t, actions))

    def _squared_error(self, t: torch.Tensor, a: torch.Tensor) -> torch.Tensor:
        p = torch.softmax(self.net(t), dim=-1)
        onehot = torch.nn.functional.one_hot(a, self.n_actions).to(p.dtype)
        return ((p - onehot) ** 2).sum(-1)

    def act(self, obs, *, deterministic=False, generator=None):
        """Actions (...) for obs (...,  obs_dim): the argmax (ties: lowest index) when
        ``deterministic``, else a draw. numpy in -> numpy out, tensor in -> tensor out."""
        deterministic = check_bool(deterministic, "deterministic")
        gen = check_generator(generator)
        t, was_tensor = _check_obs(self, obs)
        with torch.no_grad():
            logits = self.net(t)
            if deterministic:
                a = logits.argmax(-1)
            else:
                p = torch.softmax(logits, -1).reshape(-1, self.n_actions)
                dev = gen.device if gen is not None else p.device  # draw where the generator is
                a = torch.multinomial(p.to(dev), 1, generator=gen).to(p.device)
                a = a.reshape(logits.shape[:-1])
        return self._out(a, was_tensor)


class GaussianMLP(_Policy):
    """A diagonal Gaussian policy: mean = MLP(obs) and a log standard deviation that is an output
    of the same MLP (``state_dependent_std=True``) or one learned vector (``False``, as in
    stable-baselines3's PPO policies), squashed smoothly into [min_log_std, max_log_std].

    Parameters
    ----------
    obs_dim, act_dim
        Observation and action sizes.
    hidden_sizes, activation
        As for :class:`CategoricalMLP`.
    state_dependent_std
        Whether the standard deviation depends on the observation.
    min_log_std, max_log_std
        Range of the log standard deviation (a sigmoid maps the raw value into it; the raw
        value starts where log_std is about 0 for the state-independent vector).
    """

    def __init__(
        self,
        obs_dim,
        act_dim,
        *,
        hidden_sizes=(64, 64),
        activation="tanh",
        state_dependent_std=True,
        min_log_std=-5.0,
        max_log_std=2.0,
    ):
        super().__init__()
        self.obs_dim = check_int(obs_dim, "obs_dim", minimum=1)
        self.act_dim = check_int(act_dim, "act_dim", minimum=1)
        hidden = _check_hidden(hidden_sizes)
        check_option(activation, "activation", tuple(ACTIVATIONS))
        lo = check_float(min_log_std, "min_log_std")
        hi = check_float(max_log_std, "max_log_std")
        if hi <= lo:
            raise ValueError(f"max_log_std must be > min_log_std ({lo}), got {hi}")
        self.min_log_std, self.max_log_std = lo, hi
        self.state_dependent_std = check_bool(state_dependent_std, "state_dependent_std")
        out = 2 * self.act_dim if self.state_dependent_std else self.act_dim
        self.net = _mlp(self.obs_dim, out, hidden, activation)
        if not self.state_dependent_std:
            start = min(max((0.0 - lo) / (hi - lo), 1e-3), 1 - 1e-3)  # log_std = 0 if in range
            self.raw_log_std = nn.Parameter(
                torch.full((self.act_dim,), math.log(start / (1 - start)))
            )

    def forward(self, obs) -> tuple[torch.Tensor, torch.Tensor]:
        """(mean, log_std), each (..., act_dim)."""
        t, _ = _check_obs(self, obs)
        return self._head(t)

    def _head(self, t: torch.Tensor):
        out = self.net(t)
        mean = out[..., : self.act_dim]
        raw = out[..., self.act_dim :] if self.state_dependent_std else self.raw_log_std
        raw = raw.expand_as(mean)
        log_std = self.min_log_std + (self.max_log_std - self.min_log_std) * torch.sigmoid(raw)
        return mean, log_std

    def _actions(self, obs: torch.Tensor, actions) -> torch.Tensor:
        a, _ = _as_tensor(actions, "actions", obs)
        want = (*obs.shape[:-1], self.act_dim)
        if tuple(a.shape) != want:
            raise ValueError(f"actions must have shape {want}, got {tuple(a.shape)}")
        if not bool(torch.isfinite(a).all()):
            raise ValueError("actions must be finite, got NaN or infinite value(s)")
        return a

    def log_prob(self, obs, actions) -> torch.Tensor:
        """log density of actions (..., act_dim) under N(mean(obs), diag std(obs)^2), (...)."""
        t, _ = _check_obs(self, obs)
        return self._log_prob(t, self._actions(t, actions))

    def _log_prob(self, t: torch.Tensor, a: torch.Tensor) -> torch.Tensor:
        mean, log_std = self._head(t)
        z = (a - mean) * torch.exp(-log_std)
        return (-0.5 * z**2 - log_std - 0.5 * math.log(2 * math.pi)).sum(-1)

    def squared_error(self, obs, actions) -> torch.Tensor:
        """||mean(obs) - actions||^2 (the square loss of ``mse_bc``), (...)."""
        t, _ = _check_obs(self, obs)
        return self._squared_error(t, self._actions(t, actions))

    def _squared_error(self, t: torch.Tensor, a: torch.Tensor) -> torch.Tensor:
        mean, _ = self._head(t)
        return ((mean - a) ** 2).sum(-1)

    def act(self, obs, *, deterministic=False, generator=None):
        """Actions (..., act_dim): the mean when ``deterministic``, else a draw.
        numpy in -> numpy out, tensor in -> tensor out."""
        deterministic = check_bool(deterministic, "deterministic")
        gen = check_generator(generator)
        t, was_tensor = _check_obs(self, obs)
        with torch.no_grad():
            mean, log_std = self._head(t)
            if deterministic:
                a = mean
            else:
                dev = gen.device if gen is not None else mean.device
                noise = torch.randn(mean.shape, generator=gen, dtype=mean.dtype, device=dev)
                a = mean + torch.exp(log_std) * noise.to(mean.device)
        return self._out(a, was_tensor)


# ---------------------------------------------------------------------------------- learners
def _check_policy(policy, method: str | None):
    if not isinstance(policy, nn.Module):
        raise TypeError(f"policy must be a torch.nn.Module, got {describe(policy)}")
    if method is not None and not callable(getattr(policy, method, None)):
        raise TypeError(f"policy must have a {method}(obs, actions) method")
    if not any(True for _ in policy.parameters()):
        raise ValueError("policy has no parameters to train")
    return policy


def _data(policy, observations, actions):
    """Observations (..., obs_dim) and actions with the same leading shape, flattened to one row
    per sample, as tensors on the policy's device."""
    like = _param(policy)
    obs, _ = _as_tensor(observations, "observations", like)
    obs_dim = getattr(policy, "obs_dim", None)
    if obs.ndim == 0 or (obs_dim is not None and obs.shape[-1] != obs_dim):
        raise ValueError(f"observations must have shape (..., {obs_dim}), got {tuple(obs.shape)}")
    if obs.numel() == 0:
        raise ValueError(f"observations must not be empty, got shape {tuple(obs.shape)}")
    lead = tuple(obs.shape[:-1]) if obs_dim is not None else tuple(obs.shape[:1])
    if isinstance(actions, torch.Tensor):
        check_tensor(actions, "actions", dtype="any")
        act = actions.to(like.device)
    else:
        kind = "int" if isinstance(policy, CategoricalMLP) else "numeric"
        arr = check_array(actions, "actions", ndim=None, dtype=kind)
        act = torch.as_tensor(arr, device=like.device)
    if tuple(act.shape[: len(lead)]) != lead:
        raise ValueError(
            f"actions must start with the observations' leading shape {lead}, got "
            f"{tuple(act.shape)}"
        )
    N = math.prod(lead)
    obs = obs.reshape(N, *obs.shape[len(lead) :])
    act = act.reshape(N, *act.shape[len(lead) :])
    if act.is_floating_point() and not isinstance(policy, CategoricalMLP):
        act = act.to(like.dtype)
    return obs, act


def _train(policy, loss_fn, fast_fn, obs, act, epochs, lr, batch_size, generator):
    E = check_int(epochs, "epochs", minimum=1)
    lr = check_float(lr, "lr", minimum=0.0, min_inclusive=False)
    B = check_int(batch_size, "batch_size", minimum=1)
    gen = check_generator(generator)
    with torch.no_grad():
        loss_fn(obs, act)  # the policy's own checks of all the data, once, before any step
    if isinstance(policy, _Policy):  # checked once: the steps skip the per-call checks
        loss_fn = fast_fn
        act = policy._actions(obs, act)
    opt = torch.optim.Adam(policy.parameters(), lr=lr)
    N = obs.shape[0]
    was_training = policy.training
    policy.train()
    for _ in range(E):
        perm = torch.randperm(N, generator=gen).to(obs.device)
        for start in range(0, N, B):
            idx = perm[start : start + B]
            loss = loss_fn(obs[idx], act[idx]).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
    policy.train(was_training)
    return policy


def logloss_bc(policy, observations, actions, *, epochs, lr=1e-3, batch_size=128, generator=None):
    """LogLossBC: train ``policy`` in place to maximise sum_i log pi(a_i | x_i) (Adam, shuffled
    minibatches); returns ``policy``.

    ``policy`` is any ``nn.Module`` with ``log_prob(obs, actions)`` (e.g. :class:`CategoricalMLP`,
    :class:`GaussianMLP`); ``observations`` (..., obs_dim) and ``actions`` (...) or
    (..., act_dim), numpy or torch, e.g. expert trajectories (n, H, obs_dim) (every leading
    axis is a sample axis). ``generator`` (a ``torch.Generator``) drives the shuffling."""
    _check_policy(policy, "log_prob")
    obs, act = _data(policy, observations, actions)
    return _train(
        policy,
        lambda o, a: -policy.log_prob(o, a),
        lambda o, a: -policy._log_prob(o, a),
        obs,
        act,
        epochs,
        lr,
        batch_size,
        generator,
    )


def mse_bc(policy, observations, actions, *, epochs, lr=1e-3, batch_size=128, generator=None):
    """Square-loss BC: train ``policy`` in place to minimise the mean of
    ``policy.squared_error(obs, actions)`` (:class:`GaussianMLP`: ||mean - a||^2;
    :class:`CategoricalMLP`: ||pi(.|x) - onehot(a)||^2); a module without ``squared_error`` is
    treated as a regressor, ||policy(obs) - a||^2. Returns ``policy``."""
    _check_policy(policy, None)
    obs, act = _data(policy, observations, actions)
    if callable(getattr(policy, "squared_error", None)):

        def loss(o, a):
            return policy.squared_error(o, a)

    else:

        def loss(o, a):
            return ((policy(o) - a) ** 2).reshape(o.shape[0], -1).sum(-1)

    fast = policy._squared_error if isinstance(policy, _Policy) else loss
    return _train(policy, loss, fast, obs, act, epochs, lr, batch_size, generator)


LOSSES = ("log", "mse")


def dagger(
    env,
    expert,
    policy,
    *,
    rounds,
    n_per_round,
    horizon,
    epochs,
    lr=1e-3,
    batch_size=128,
    loss="log",
    deterministic=True,
    rng=None,
    generator=None,
):
    """DAgger (Ross et al. 2011) with a neural policy; ``rounds * n_per_round`` expert-labelled
    episodes in all. Returns ``policy``, trained in place.

    Round 1 rolls out ``expert`` (beta_1 = 1); each later round rolls out ``policy.act`` (the
    argmax/mean when ``deterministic``), labels every visited observation with ``expert`` and
    aggregates; after each round ``policy`` is trained further on all the data gathered so far
    (``epochs`` passes of :func:`logloss_bc` (``loss="log"``) or :func:`mse_bc` (``"mse"``)).
    ``expert`` and the env follow the conventions of :func:`rollout`: a batch callable and the
    gymnasium API; scalar (e.g. int) observations reach ``policy`` as (B, 1) floats, the expert
    sees them as they are. ``rng`` seeds the episodes, ``generator`` the shuffling and
    sampling."""
    _check_env(env)
    check_callable(expert, "expert")
    _check_policy(policy, "act")
    R = check_int(rounds, "rounds", minimum=1)
    m = check_int(n_per_round, "n_per_round", minimum=1)
    H = check_int(horizon, "horizon", minimum=1)
    check_option(loss, "loss", LOSSES)
    deterministic = check_bool(deterministic, "deterministic")
    g = check_rng(rng)
    gen = check_generator(generator)
    check_int(epochs, "epochs", minimum=1)
    check_float(lr, "lr", minimum=0.0, min_inclusive=False)
    check_int(batch_size, "batch_size", minimum=1)
    learn = logloss_bc if loss == "log" else mse_bc

    def features(o):  # int (scalar) observations reach the network as (B, 1) floats
        o = np.asarray(o)
        return o[:, None].astype(np.float64) if o.ndim == 1 else o

    def act(o):
        return policy.act(features(o), deterministic=deterministic, generator=gen)

    obs_all, act_all = [], []
    for r in range(R):
        ro = rollout(env, expert if r == 0 else act, m, horizon=H, rng=g)
        obs, acts = ro.flat()
        if r > 0:
            acts = np.asarray(expert(obs))
        obs_all.append(features(obs))
        act_all.append(acts)
        learn(
            policy,
            np.concatenate(obs_all),
            np.concatenate(act_all),
            epochs=epochs,
            lr=lr,
            batch_size=batch_size,
            generator=gen,
        )
    return policy


def hellinger_sq_deterministic_expert(policy, observations, actions, *, mask=None) -> float:
    """D^2_H(P^policy, P^expert) estimated from rollouts of a deterministic expert with
    discrete actions: :func:`hellinger_sq_from_logprobs` of ``policy.log_prob`` along them.

    ``observations`` (n, H, obs_dim), ``actions`` (n, H); ``mask`` (n, H) bool marks the steps
    taken (e.g. ``Rollouts.mask``; steps after an early end contribute nothing)."""
    _check_policy(policy, "log_prob")
    obs, _ = _as_tensor(observations, "observations", _param(policy))
    if obs.ndim != 3:
        raise ValueError(f"observations must be (n, H, obs_dim), got shape {tuple(obs.shape)}")
    with torch.no_grad():
        lp = policy.log_prob(obs, actions).double().cpu().numpy()
    if mask is not None:
        mk = check_array(mask, "mask", dtype="bool", shape=lp.shape)
        lp = np.where(mk, lp, 0.0)
    return hellinger_sq_from_logprobs(lp)
