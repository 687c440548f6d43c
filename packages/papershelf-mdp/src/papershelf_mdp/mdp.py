"""The tabular MDP: validated arrays and exact evaluation (finite-horizon or discounted).

Conventions (shared by the papershelf RL packages): ``P[s, a, s']`` of shape (S, A, S), or
(H, S, A, S) when it varies with the step; rewards (S, A), (S, A, S), (H, S, A) or (H, S, A, S);
policies are action-probability arrays (S, A) or, for a finite horizon, (H, S, A). A finite
horizon H means steps h = 0 .. H-1 and values ``V[h, s]`` = expected reward collected from step h
to the end; a discount ``gamma`` in [0, 1) means the infinite discounted sum.
"""

from __future__ import annotations

import numpy as np

from ._checks import check_array, check_float, check_int, check_option
from ._validation import check_distribution, check_stochastic

REWARD_KINDS = ("sa", "sas", "hsa", "hsas")


class TabularMDP:
    """A finite MDP with exactly one of ``horizon`` (finite) or ``gamma`` (discounted).

    Parameters
    ----------
    P
        Transition probabilities ``P[s, a, s']`` (S, A, S), or (H, S, A, S) time-varying (then
        ``horizon`` must be H). Entries >= 0, each ``P[..., s, a, :]`` sums to 1 (within 1e-8).
    R
        Rewards: (S, A), (S, A, S) (reward of each transition), (H, S, A) or (H, S, A, S).
    init
        Initial state distribution (S,); ``None`` means uniform.
    horizon
        Number of steps H >= 1 (finite-horizon problem).
    gamma
        Discount in [0, 1) (discounted problem).
    reward_kind
        ``"sa"``, ``"sas"``, ``"hsa"`` or ``"hsas"`` when the layout of ``R`` is ambiguous from its
        shape (e.g. S = A = H); ``None`` infers it and refuses to guess between two layouts.

    Attributes
    ----------
    P, R, init, horizon, gamma, n_states, n_actions, reward_kind, time_varying
    """

    def __init__(self, P, R, init=None, *, horizon=None, gamma=None, reward_kind=None):
        if (horizon is None) == (gamma is None):
            raise ValueError(
                "horizon and gamma: give exactly one (a finite horizon H >= 1, or a discount "
                f"gamma in [0, 1)); got horizon={horizon!r}, gamma={gamma!r}"
            )
        if horizon is not None:
            horizon = check_int(horizon, "horizon", minimum=1)
        if gamma is not None:
            gamma = check_float(gamma, "gamma", minimum=0.0, maximum=1.0, max_inclusive=False)
        P = check_array(P, "P", ndim=(3, 4))
        if P.ndim == 4:
            if horizon is None:
                raise ValueError(
                    f"P is time-varying with shape {P.shape} (H, S, A, S), which needs a finite "
                    "horizon; a discounted MDP takes P of shape (S, A, S)"
                )
            if P.shape[0] != horizon:
                raise ValueError(f"P has {P.shape[0]} steps but horizon is {horizon}")
        S, A = P.shape[-3], P.shape[-2]
        if P.shape[-1] != S:
            raise ValueError(f"P must have shape (S, A, S) or (H, S, A, S), got shape {P.shape}")
        check_stochastic(P, "P")
        R = check_array(R, "R", ndim=(2, 3, 4))
        kind = self._reward_kind(R, S, A, horizon, reward_kind)
        if init is None:
            init = np.full(S, 1.0 / S)
        else:
            init = check_distribution(init, "init", size=S)
        self.P, self.R, self.init = P, R, init
        self.horizon, self.gamma = horizon, gamma
        self.n_states, self.n_actions = S, A
        self.reward_kind = kind
        self.time_varying = P.ndim == 4 or kind in ("hsa", "hsas")
        for a in (self.P, self.R, self.init):
            a.setflags(write=False)

    @staticmethod
    def _reward_kind(R, S, A, H, kind):
        shapes = {"sa": (S, A), "sas": (S, A, S), "hsa": (H, S, A), "hsas": (H, S, A, S)}
        if kind is not None:
            check_option(kind, "reward_kind", REWARD_KINDS)
            if kind.startswith("h") and H is None:
                raise ValueError(f"reward_kind {kind!r} is time-varying and needs a finite horizon")
            if R.shape != shapes[kind]:
                raise ValueError(
                    f"R must have shape {shapes[kind]} for reward_kind {kind!r}, got {R.shape}"
                )
            return kind
        fits = [
            k
            for k, shp in shapes.items()
            if (H is not None or not k.startswith("h")) and R.shape == shp
        ]
        if not fits:
            want = " or ".join(
                str(s) for k, s in shapes.items() if H is not None or not k.startswith("h")
            )
            raise ValueError(f"R must have shape {want} (S={S}, A={A}), got shape {R.shape}")
        if len(fits) > 1:
            raise ValueError(
                f"R of shape {R.shape} fits the layouts {fits}: pass reward_kind= to say which"
            )
        return fits[0]

    # ------------------------------------------------------------------ derived arrays
    @property
    def discounted(self) -> bool:
        return self.gamma is not None

    def transitions(self) -> np.ndarray:
        """P as (H, S, A, S) for a finite horizon (stationary P repeated), (S, A, S) otherwise."""
        if self.horizon is None or self.P.ndim == 4:
            return self.P
        return np.broadcast_to(self.P, (self.horizon, *self.P.shape))

    def expected_reward(self) -> np.ndarray:
        """r(s, a) = E[R | s, a]: (H, S, A) for a finite horizon, (S, A) when discounted."""
        P = self.transitions()
        R = self.R
        if self.reward_kind == "sa":
            r = R
        elif self.reward_kind == "sas":
            r = (
                np.einsum("...sat,sat->...sa", P, R)
                if P.ndim == 4
                else np.einsum("sat,sat->sa", P, R)
            )
        elif self.reward_kind == "hsa":
            r = R
        else:  # hsas
            r = np.einsum("hsat,hsat->hsa", P, R)
        if self.horizon is not None and r.ndim == 2:
            r = np.broadcast_to(r, (self.horizon, *r.shape))
        return np.asarray(r)

    def transition_reward(self, h, s, a, s_next) -> float:
        """The reward of one transition (for sampling): R's entry for it."""
        k = self.reward_kind
        if k == "sa":
            return float(self.R[s, a])
        if k == "sas":
            return float(self.R[s, a, s_next])
        if k == "hsa":
            return float(self.R[h, s, a])
        return float(self.R[h, s, a, s_next])

    def __repr__(self) -> str:
        what = f"horizon={self.horizon}" if self.horizon is not None else f"gamma={self.gamma}"
        return f"TabularMDP(n_states={self.n_states}, n_actions={self.n_actions}, {what})"


def random_mdp(
    n_states,
    n_actions,
    *,
    horizon=None,
    gamma=None,
    reward="sa",
    concentration=1.0,
    rng=None,
) -> TabularMDP:
    """A random MDP: Dirichlet(concentration) rows of P, Uniform(0, 1) rewards of layout ``reward``."""
    from ._checks import check_rng

    S = check_int(n_states, "n_states", minimum=1)
    A = check_int(n_actions, "n_actions", minimum=1)
    c = check_float(concentration, "concentration", minimum=0.0, min_inclusive=False)
    check_option(reward, "reward", REWARD_KINDS)
    g = check_rng(rng)
    if reward.startswith("h") and horizon is None:
        raise ValueError(f"reward {reward!r} is time-varying and needs a finite horizon")
    P = g.dirichlet(np.full(S, c), size=(S, A))
    H = horizon if horizon is not None else 0
    shape = {"sa": (S, A), "sas": (S, A, S), "hsa": (H, S, A), "hsas": (H, S, A, S)}[reward]
    R = g.random(shape)
    init = g.dirichlet(np.ones(S))
    return TabularMDP(P, R, init, horizon=horizon, gamma=gamma, reward_kind=reward)
