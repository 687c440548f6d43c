"""The model-based baseline: a learned one-step dynamics MLP and random-shooting MPC."""

from __future__ import annotations

import numpy as np

from ._checks import check_array, check_int, check_rng
from ._data import check_dataset, check_features
from .dispo import _check_gamma, _check_w, _torch_models, infer_reward_weights
from .features import as_observations

__all__ = ["OneStepModelMPC"]


class OneStepModelMPC:
    """Learned one-step dynamics + random-shooting MPC (the baseline with compounding error).

    ``fit`` trains an MLP s' = s + f(s, a) by mean squared error on the dataset's transitions
    (``steps`` Adam steps; needs ``dispo-rl[torch]``). ``act(observations, w)`` draws
    ``n_samples`` action sequences of length ``horizon`` uniformly in the data's action box,
    rolls each out *autoregressively* through the model, scores
    sum_{t=1..horizon} gamma^(t-1) w^T phi(s_hat_t) and returns the first action of the best
    sequence (replanned at every call). Continuous actions only.
    """

    def __init__(
        self,
        features,
        *,
        gamma=0.99,
        horizon=20,
        n_samples=256,
        hidden=(256, 256),
        lr=1e-3,
        batch_size=256,
        rng=None,
    ):
        self.features = check_features(features)
        self.gamma = _check_gamma(gamma)
        self.horizon = check_int(horizon, "horizon", minimum=1)
        self.n_samples = check_int(n_samples, "n_samples", minimum=1)
        self._rng = check_rng(rng)
        tm = _torch_models("OneStepModelMPC")
        self.dynamics_model = tm.DynamicsMLP(hidden=hidden, lr=lr, batch_size=batch_size)
        self._fitted = False

    def fit(self, dataset, *, steps):
        """Fit the one-step model on a D4RL-layout dataset (rewards ignored); returns self."""
        data = check_dataset(dataset)
        steps = check_int(steps, "steps", minimum=1)
        a = data["actions"]
        if a.dtype.kind not in "f":
            raise ValueError(
                f"dataset['actions'] must be continuous (float) for OneStepModelMPC, got dtype "
                f"{a.dtype}"
            )
        a = a.reshape(len(a), -1)
        self._act_shape = data["actions"].shape[1:]
        self.action_low, self.action_high = a.min(0), a.max(0)
        self._obs_dim = data["observations"].shape[1]
        seed = int(self._rng.integers(2**62))
        self.dynamics_model.fit(data["observations"], a, data["next_observations"], steps, seed)
        self._fitted = True
        return self

    def _check_fitted(self):
        if not self._fitted:
            raise ValueError(
                "this OneStepModelMPC is not fitted: call fit(dataset, steps=...) first"
            )

    def _observations(self, observations):
        obs = as_observations(observations)
        if obs.shape[1] != self._obs_dim:
            raise ValueError(
                f"observations must have {self._obs_dim} columns like the data, got shape "
                f"{obs.shape}"
            )
        return obs

    def predict(self, observations, actions) -> np.ndarray:
        """The model's next observations (B, obs_dim) for observations (B, obs_dim), actions."""
        self._check_fitted()
        obs = self._observations(observations)
        a = check_array(actions, "actions", ndim=(1, 2))
        a = a.reshape(len(a), -1)
        if len(a) != len(obs) or a.shape[1] != len(self.action_low):
            raise ValueError(
                f"actions must have shape ({len(obs)}, {len(self.action_low)}), got {a.shape}"
            )
        return self.dynamics_model.predict(obs, a)

    def infer_reward_weights(self, observations, rewards, *, ridge=0.0) -> np.ndarray:
        """Least-squares reward weights w (d,) with rewards ~ features(observations) @ w."""
        return infer_reward_weights(self.features, observations, rewards, ridge=ridge)

    def plan(self, observations, w):
        """(first actions (B, act_dim), predicted returns (B,)) of the best sampled sequences."""
        self._check_fitted()
        obs = self._observations(observations)
        w = _check_w(w, self.features.dim)
        B, N, H = len(obs), self.n_samples, self.horizon
        lo, hi = self.action_low, self.action_high
        seq = self._rng.uniform(lo, hi, size=(H, B, N, len(lo)))
        s = np.repeat(obs[:, None, :], N, axis=1).reshape(B * N, -1)
        ret = np.zeros(B * N)
        for t in range(H):
            s = self.dynamics_model.predict(s, seq[t].reshape(B * N, -1))
            ret += self.gamma**t * (np.asarray(self.features(s), dtype=float) @ w)
        ret = ret.reshape(B, N)
        k = np.argmax(ret, axis=1)
        b = np.arange(B)
        return seq[0, b, k], ret[b, k]

    def act(self, observations, w) -> np.ndarray:
        """The first action of the best of ``n_samples`` random sequences, per observation."""
        a, _ = self.plan(observations, w)
        return a.reshape(len(a), *self._act_shape)
