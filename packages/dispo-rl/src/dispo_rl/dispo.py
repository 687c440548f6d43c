"""DiSPO (particle, GMM and diffusion outcome models) and the BehaviorSF baseline."""

from __future__ import annotations

import sys

import numpy as np

from ._checks import check_array, check_float, check_int, check_option, check_rng
from ._data import StateIndex, check_dataset, check_features
from .features import as_observations

__all__ = ["DiSPO", "BehaviorSF", "PLANNERS", "MODELS"]

PLANNERS = ("guided", "shooting")
MODELS = ("particles", "gmm", "diffusion")


def _torch_models(what: str):
    """The torch module of the neural models, or an ImportError naming the extra."""
    try:
        from . import _torch_models
    except ImportError as err:
        if err.name != "torch":
            raise
        raise ImportError(f"{what} needs PyTorch: pip install 'dispo-rl[torch]'") from err
    return _torch_models


def _check_model(model):
    if isinstance(model, str):
        model = check_option(model, "model", MODELS)
        if model == "particles":
            return model, None
        tm = _torch_models(f"DiSPO(model={model!r})")
        cls = tm.GaussianMixtureOutcomeModel if model == "gmm" else tm.DiffusionOutcomeModel
        return model, cls()
    tm = sys.modules.get(f"{__package__}._torch_models")
    if tm is None or not isinstance(model, tm._NeuralOutcomeModel):
        raise TypeError(
            f"model must be one of {list(MODELS)} or a GaussianMixtureOutcomeModel / "
            f"DiffusionOutcomeModel instance, got {type(model).__name__} {model!r:.60}"
        )
    name = "gmm" if isinstance(model, tm.GaussianMixtureOutcomeModel) else "diffusion"
    return name, model


def _check_gamma(gamma) -> float:
    return check_float(gamma, "gamma", minimum=0.0, maximum=1.0, max_inclusive=False)


def _check_w(w, dim: int) -> np.ndarray:
    w = check_array(w, "w", ndim=1)
    if len(w) != dim:
        raise ValueError(f"w must have len {dim} (the feature dimension), got len {len(w)}")
    return w


def infer_reward_weights(features, observations, rewards, *, ridge=0.0) -> np.ndarray:
    """w = (Phi^T Phi + ridge I)^-1 Phi^T r with Phi = features(observations); ridge = 0 is the
    minimum-norm least-squares solution."""
    obs = as_observations(observations)
    r = check_array(rewards, "rewards", ndim=1)
    if len(r) != len(obs):
        raise ValueError(
            f"rewards has {len(r)} rows but observations has {len(obs)}; they must match"
        )
    ridge = check_float(ridge, "ridge", minimum=0.0)
    Phi = np.asarray(features(obs), dtype=float)
    if ridge == 0.0:
        return np.linalg.lstsq(Phi, r, rcond=None)[0]
    return np.linalg.solve(Phi.T @ Phi + ridge * np.eye(Phi.shape[1]), Phi.T @ r)


class DiSPO:
    """Distributional successor features for zero-shot policy optimisation (Zhu et al. 2024).

    ``model="particles"``: every distinct dataset state s keeps ``n_particles`` particles, each an
    outcome psi (a sample of sum_k gamma^k phi(s_{t+k}) under the data) with the dataset action
    that starts it. ``fit`` applies ``steps`` synchronous distributional backups: each particle
    of s draws a dataset transition (s, a, s', done) from s uniformly and a particle psi' of s'
    uniformly and becomes (phi(s) + gamma (1 - done) psi', a). States never seen as a transition
    source keep psi = phi(s). Observations not in the data are mapped to the nearest dataset state.

    Planning for reward weights w (r(s) = w^T phi(s)): ``"shooting"`` takes the particle of s with
    the highest w^T psi and returns its action; ``"guided"`` first recomputes the particles with
    the successor draw tilted to P(psi') proportional to exp(guidance * w^T psi') (``steps``
    backups from the fitted particles, once per w and cached), then does the same. As guidance
    goes to infinity this is value iteration restricted to the data's transitions.

    ``model="gmm"`` / ``"diffusion"`` (or a configured ``GaussianMixtureOutcomeModel`` /
    ``DiffusionOutcomeModel``; needs ``dispo-rl[torch]``): a conditional generative model of the
    joint law of (psi, first action) given s (the paper's outcome model and readout policy in
    one), trained for ``steps`` gradient steps on bootstrapped targets phi(s) + gamma (1 - done)
    psi', psi' drawn from an EMA copy at s'. It generalises to unseen observations. The planners
    draw ``n_particles`` samples (psi, a) at each observation, plain (``"shooting"``) or guided
    towards exp(guidance * w^T psi) (``"guided"``: the exact tilt of the mixture for the GMM, the
    paper's guidance term added to the score for diffusion), and return the action of the sample
    with the highest w^T psi.
    """

    def __init__(
        self, features, *, gamma=0.99, model="particles", n_particles=256, guidance=20.0, rng=None
    ):
        self.features = check_features(features)
        self.gamma = _check_gamma(gamma)
        self.model, self.outcome_model = _check_model(model)
        self.n_particles = check_int(n_particles, "n_particles", minimum=1)
        self.guidance = check_float(guidance, "guidance", minimum=0.0)
        self._rng = check_rng(rng)
        self._fitted = False
        self._guided_key = None

    # ---------------------------------------------------------------- fitting
    def _backup(self, psi, steps, w=None):
        idx, g = self._index, self._rng
        S, K = idx.n_states, self.n_particles
        has = idx.counts > 0
        src = np.flatnonzero(has)
        act = np.full((S, K), -1, dtype=np.int64)
        for _ in range(steps):
            u = g.random((len(src), K))
            t = idx.order[idx.starts[src, None] + (u * idx.counts[src, None]).astype(np.int64)]
            sp = idx.dst[t]
            if w is None:
                j = g.integers(0, K, size=(len(src), K))
            else:
                v = self.guidance * (psi @ w)  # (S, K)
                p = np.exp(v - v.max(axis=1, keepdims=True))
                cdf = np.cumsum(p, axis=1)
                cdf /= cdf[:, -1:]
                cdf[:, -1] = 1.0
                flat = (cdf + np.arange(S)[:, None]).ravel()
                pos = np.searchsorted(flat, sp + g.random((len(src), K)), side="right")
                j = np.minimum(pos - sp * K, K - 1)
            new = psi.copy()
            cont = (1.0 - self._terminals[t])[..., None]
            new[src] = self._phi[src, None, :] + self.gamma * cont * psi[sp, j]
            act[src] = t
            psi = new
        return psi, act

    def fit(self, dataset, *, steps):
        """Fit the outcome model on a reward-free D4RL-layout dataset; returns self."""
        data = check_dataset(dataset)
        steps = check_int(steps, "steps", minimum=1)
        self._data = data
        if self.outcome_model is not None:
            phi = np.asarray(self.features(data["observations"]), dtype=float)
            self._check_phi(phi, len(phi))
            seed = int(self._rng.integers(2**62))
            self.outcome_model.fit(data, phi, self.gamma, steps, seed)
            self._obs_dim = data["observations"].shape[1]
            self._fitted = True
            return self
        self._index = StateIndex(data)
        self._phi = np.asarray(self.features(self._index.states), dtype=float)
        self._check_phi(self._phi, self._index.n_states)
        self._terminals = data["terminals"].astype(float)
        psi0 = np.repeat(self._phi[:, None, :], self.n_particles, axis=1)
        self._steps = steps
        self.particles_, self.particle_transitions_ = self._backup(psi0, steps)
        self._fitted = True
        self._guided_key = None
        return self

    def _check_phi(self, phi, n):
        if phi.shape != (n, self.features.dim):
            raise ValueError(
                f"features must map (B, obs_dim) observations to (B, {self.features.dim}), got "
                f"shape {phi.shape}"
            )
        if not np.all(np.isfinite(phi)):
            raise ValueError("features returned NaN or inf on the dataset's observations")

    def _observations(self, observations):
        obs = as_observations(observations)
        if self.outcome_model is not None and obs.shape[1] != self._obs_dim:
            raise ValueError(
                f"observations must have {self._obs_dim} columns like the data, got shape "
                f"{obs.shape}"
            )
        return obs

    def _check_fitted(self):
        if not self._fitted:
            raise ValueError("this DiSPO is not fitted: call fit(dataset, steps=...) first")

    # ---------------------------------------------------------------- queries
    def sample_outcomes(self, observations, n) -> np.ndarray:
        """n outcome samples psi ~ p(psi | s) per observation: (B, n, d)."""
        self._check_fitted()
        obs = self._observations(observations)
        n = check_int(n, "n", minimum=1)
        if self.outcome_model is not None:
            return self.outcome_model.sample(obs, n)[0]
        s = self._index.lookup(obs)
        j = self._rng.integers(0, self.n_particles, size=(len(s), n))
        return self.particles_[s[:, None], j]

    def infer_reward_weights(self, observations, rewards, *, ridge=0.0) -> np.ndarray:
        """Least-squares reward weights w (d,) with rewards ~ features(observations) @ w."""
        return infer_reward_weights(self.features, observations, rewards, ridge=ridge)

    def _plan(self, observations, w, planner):
        self._check_fitted()
        obs = self._observations(observations)
        w = _check_w(w, self.features.dim)
        planner = check_option(planner, "planner", PLANNERS)
        if self.outcome_model is not None:
            guided = planner == "guided"
            psi, acts = self.outcome_model.sample(
                obs, self.n_particles, w=w if guided else None, guidance=self.guidance, clip=True
            )
            vals = psi @ w  # (B, n)
            k = np.argmax(vals, axis=1)
            b = np.arange(len(obs))
            return vals[b, k], acts[b, k]
        if planner == "guided":
            key = w.tobytes()
            if self._guided_key != key:
                self._guided = self._backup(self.particles_, self._steps, w)
                self._guided_key = key
            psi, tr = self._guided
        else:
            psi, tr = self.particles_, self.particle_transitions_
        s = self._index.lookup(obs, only=self._index.counts > 0)
        vals = psi[s] @ w  # (B, K)
        k = np.argmax(vals, axis=1)
        return vals[np.arange(len(s)), k], self._data["actions"][tr[s, k]]

    def act(self, observations, w, *, planner="guided"):
        """Actions (B,) or (B, act_dim) for reward weights w (particles: dataset actions)."""
        _, a = self._plan(observations, w, planner)
        return a

    def predicted_values(self, observations, w, *, planner="guided") -> np.ndarray:
        """w^T psi* of the outcome the planner picks at each observation: (B,)."""
        v, _ = self._plan(observations, w, planner)
        return v


class BehaviorSF:
    """One-step policy improvement on the behaviour's successor features (baseline).

    psi_beta(s, a) = phi(s) + gamma * mean over the data's (s, a, s') of (1 - done) psi_beta(s'),
    psi_beta(s') = sum_a beta_hat(a | s') psi_beta(s', a) with beta_hat the data's action
    frequencies, by ``steps`` expected TD backups; ``act`` is greedy on w^T psi_beta(s, a) over
    the actions seen at s. Discrete (integer) actions only.
    """

    def __init__(self, features, *, gamma=0.99):
        self.features = check_features(features)
        self.gamma = _check_gamma(gamma)
        self._fitted = False

    def fit(self, dataset, *, steps):
        data = check_dataset(dataset)
        steps = check_int(steps, "steps", minimum=1)
        a = data["actions"]
        if a.ndim != 1 or a.dtype.kind not in "iu" or np.any(a < 0):
            raise ValueError("dataset['actions'] must be non-negative integers (N,) for BehaviorSF")
        idx = StateIndex(data)
        S, A, d = idx.n_states, int(a.max()) + 1, self.features.dim
        phi = np.asarray(self.features(idx.states), dtype=float)
        cnt = np.zeros((S, A))
        np.add.at(cnt, (idx.src, a), 1.0)
        cont = 1.0 - data["terminals"].astype(float)
        M = np.zeros((S * A, S))  # mean of (1 - done) 1{s'} per (s, a)
        np.add.at(M, (idx.src * A + a, idx.dst), cont)
        M /= np.maximum(cnt.reshape(-1, 1), 1)
        beta = cnt / np.maximum(cnt.sum(1, keepdims=True), 1)
        psi = np.repeat(phi[:, None, :], A, axis=1)
        for _ in range(steps):
            v = np.einsum("sa,sad->sd", beta, psi)
            psi = phi[:, None, :] + self.gamma * (M @ v).reshape(S, A, d)
        self._index, self._seen, self.psi_ = idx, cnt > 0, psi
        self._beta = beta
        self._fitted = True
        return self

    def successor_features(self, observations) -> np.ndarray:
        """psi_beta(s) = sum_a beta_hat(a|s) psi_beta(s, a): (B, d)."""
        if not self._fitted:
            raise ValueError("this BehaviorSF is not fitted: call fit(dataset, steps=...) first")
        s = self._index.lookup(as_observations(observations))
        return np.einsum("ba,bad->bd", self._beta[s], self.psi_[s])

    def infer_reward_weights(self, observations, rewards, *, ridge=0.0) -> np.ndarray:
        return infer_reward_weights(self.features, observations, rewards, ridge=ridge)

    def act(self, observations, w):
        if not self._fitted:
            raise ValueError("this BehaviorSF is not fitted: call fit(dataset, steps=...) first")
        w = _check_w(w, self.features.dim)
        obs = as_observations(observations)
        s = self._index.lookup(obs, only=self._index.counts > 0)
        q = np.where(self._seen[s], self.psi_[s] @ w, -np.inf)
        return np.argmax(q, axis=1)
