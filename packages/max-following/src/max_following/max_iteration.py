"""MaxIteration: learn to compete with the max-following policy with H*K oracle calls."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from ._checks import check_callable, check_int, check_rng
from .oracles import TabularMeanOracle
from .policies import check_constituent


def as_features(obs) -> np.ndarray:
    """One observation as a (1, d) float row (an int state becomes [[s]])."""
    row = np.asarray(obs, dtype=float).reshape(1, -1)
    return row


class MaxFollowingPolicy:
    """The policy MaxIteration returns: at step h follow the constituent whose learned value
    ``value_models[h][k]`` is largest at the observation (ties: lowest index)."""

    def __init__(self, constituents, value_models, *, oracle_calls, episodes_used):
        self.constituents = list(constituents)
        self.value_models = value_models
        self.horizon = len(value_models)
        self.oracle_calls = oracle_calls
        self.episodes_used = episodes_used

    def values(self, obs, h) -> np.ndarray:
        """The learned values V̂^k_h(obs) of every constituent, (K,)."""
        h = check_int(h, "h", minimum=0, maximum=self.horizon - 1)
        x = as_features(obs)
        out = np.empty(len(self.constituents))
        for k, model in enumerate(self.value_models[h]):
            out[k] = (
                -np.inf if model is None else float(np.asarray(model.predict(x)).reshape(-1)[0])
            )
        return out

    def choose(self, obs, h) -> int:
        """Index of the constituent followed at (obs, h)."""
        return int(np.argmax(self.values(obs, h)))

    def act(self, obs, h, rng):
        return self.constituents[self.choose(obs, h)].act(obs, h, rng)


class MaxIteration:
    """MaxIteration (Hussing et al., NeurIPS 2024), built forward in time one step at a time.

    For h = 0 .. H-1 and each constituent k: draw ``n_per_step`` episodes, roll in with the
    policy built so far to reach s_h, roll out constituent k from step h to the end and record
    y = the sum of rewards from step h; fit ``oracle()`` on the (s_h, y) pairs as V̂^k_h. The
    policy at step h follows argmax_k V̂^k_h. Exactly H*K oracle calls and n*H*K episodes (an
    episode that ends before step h contributes no sample but is counted).

    Parameters
    ----------
    constituents
        Policies with ``act(obs, h, rng)``.
    horizon
        Number of steps H of an episode.
    n_per_step
        Episodes per (step, constituent).
    oracle
        Zero-argument factory of a regressor with ``fit(X, y) -> self`` and ``predict(X)``
        (scikit-learn style); default :class:`TabularMeanOracle` (per-state means).
    """

    def __init__(
        self,
        constituents: Sequence,
        *,
        horizon: int,
        n_per_step: int,
        oracle: Callable | None = None,
    ):
        if isinstance(constituents, np.ndarray) or not hasattr(constituents, "__len__"):
            raise TypeError(
                f"constituents must be a list of policies, got {type(constituents).__name__}"
            )
        self.constituents = [
            check_constituent(p, f"constituents[{k}]") for k, p in enumerate(constituents)
        ]
        if not self.constituents:
            raise ValueError("constituents must hold at least one policy, got an empty list")
        self.horizon = check_int(horizon, "horizon", minimum=1)
        self.n_per_step = check_int(n_per_step, "n_per_step", minimum=1)
        self.oracle = TabularMeanOracle if oracle is None else check_callable(oracle, "oracle")

    def fit(self, env, *, rng=None) -> MaxFollowingPolicy:
        """Run MaxIteration on ``env`` (gymnasium API: ``reset(seed=...)``, ``step(a)``).

        The ``n_per_step`` episodes of one (step, constituent) pair run in lockstep on deep
        copies of ``env``, each reset with its own seed drawn from ``rng``, so the roll-in policy
        predicts for all of them in one ``predict`` call per model; an env that cannot be
        deep-copied runs them one after another (same samples, slower). ``env`` itself is only
        copied, never stepped.
        """
        for method in ("reset", "step"):
            if not callable(getattr(env, method, None)):
                raise TypeError(
                    f"env must have reset() and step() (gymnasium API), got {type(env).__name__}"
                )
        g = check_rng(rng)
        H, K, n = self.horizon, len(self.constituents), self.n_per_step
        envs = _copies(env, n)
        models: list[list] = []
        calls = episodes = 0
        for h in range(H):
            step_models: list = []
            for k in range(K):
                seeds = g.integers(2**31, size=n)
                X, y = [], []
                for batch in envs:  # one lockstep batch (all n copies), or n batches of one
                    X_b, y_b = self._episodes(batch, seeds[: len(batch)], h, k, models, g)
                    seeds = seeds[len(batch) :]
                    X += X_b
                    y += y_b
                episodes += n
                if X:
                    model = self.oracle()
                    fitted = model.fit(np.asarray(X), np.asarray(y))
                    step_models.append(model if fitted is None else fitted)
                    calls += 1
                else:  # no episode reached step h: the policy is never queried there
                    step_models.append(None)
            models.append(step_models)
        policy = MaxFollowingPolicy(
            self.constituents, models, oracle_calls=calls, episodes_used=episodes
        )
        self.policy_, self.oracle_calls, self.episodes_used = policy, calls, episodes
        return policy

    def _episodes(self, envs, seeds, h, k, models, g):
        """Roll in with the policy of steps 0..h-1, then roll out constituent k; (X, y)."""
        obs = [e.reset(seed=int(s))[0] for e, s in zip(envs, seeds)]
        alive = list(range(len(envs)))
        for t in range(h):
            if not alive:
                break
            feats = np.stack([np.asarray(obs[i], dtype=float).reshape(-1) for i in alive])
            values = np.full((len(self.constituents), len(alive)), -np.inf)
            for kk, model in enumerate(models[t]):
                if model is not None:
                    values[kk] = np.asarray(model.predict(feats), dtype=float).reshape(-1)
            choice = np.argmax(values, axis=0)
            still = []
            for j, i in enumerate(alive):
                a = self.constituents[int(choice[j])].act(obs[i], t, g)
                obs[i], _, terminated, truncated, _ = envs[i].step(a)
                if not (terminated or truncated):
                    still.append(i)
            alive = still
        X, y = [], []
        for i in alive:
            X.append(np.asarray(obs[i], dtype=float).reshape(-1))
            ret, o = 0.0, obs[i]
            for t in range(h, self.horizon):
                o, r, terminated, truncated, _ = envs[i].step(self.constituents[k].act(o, t, g))
                ret += float(r)
                if terminated or truncated:
                    break
            y.append(ret)
        return X, y


def _copies(env, n: int) -> list[list]:
    """Batches of environments: [[n deep copies]] or, if env cannot be copied, n batches [env]."""
    import copy

    try:
        return [[copy.deepcopy(env) for _ in range(n)]]
    except Exception:  # e.g. an env holding a renderer or a socket
        return [[env] for _ in range(n)]
