"""Exact tabular tools: constituent values, the max-following policy, optimal values."""

from __future__ import annotations

import numpy as np

import papershelf_mdp as pm
from papershelf_mdp import TabularMDP

from ._checks import check_option, check_rng
from .policies import TabularPolicy, as_probs

TIE_BREAKS = ("first", "last", "random")


def _check_finite_mdp(mdp) -> TabularMDP:
    if not isinstance(mdp, TabularMDP):
        raise TypeError(f"mdp must be a TabularMDP, got {type(mdp).__name__}")
    if mdp.horizon is None:
        raise ValueError("mdp must have a finite horizon (max-following is episodic)")
    return mdp


def policy_value(mdp: TabularMDP, policy) -> np.ndarray:
    """V[h, s] of ``policy`` (a TabularPolicy or action probabilities (S, A) / (H, S, A)): (H, S)."""
    _check_finite_mdp(mdp)
    return pm.policy_value(mdp, as_probs(policy, mdp))


def constituent_values(mdp: TabularMDP, policies) -> np.ndarray:
    """Values of every constituent, (K, H, S)."""
    _check_finite_mdp(mdp)
    policies = _check_policies(policies)
    return np.stack(
        [pm.policy_value(mdp, as_probs(p, mdp, f"policies[{k}]")) for k, p in enumerate(policies)]
    )


def _check_policies(policies) -> list:
    if isinstance(policies, np.ndarray) or not hasattr(policies, "__len__"):
        raise TypeError(
            f"policies must be a list of constituent policies, got {type(policies).__name__}"
        )
    policies = list(policies)
    if not policies:
        raise ValueError("policies must hold at least one constituent, got an empty list")
    return policies


def max_following_policy(
    mdp: TabularMDP, policies, *, tie_break="first", rng=None, atol=1e-12
) -> TabularPolicy:
    """The max-following policy: at (h, s) follow the constituent with the largest V^k_h(s).

    ``tie_break``: among constituents within ``atol`` of the max, ``"first"`` (lowest index),
    ``"last"`` (highest) or ``"random"`` (uniform, drawn from ``rng`` once per (h, s)). Returns a
    :class:`TabularPolicy` with probabilities (H, S, A).
    """
    _check_finite_mdp(mdp)
    policies = _check_policies(policies)
    check_option(tie_break, "tie_break", TIE_BREAKS)
    g = check_rng(rng)
    probs = np.stack([as_probs(p, mdp, f"policies[{k}]") for k, p in enumerate(policies)])
    V = np.stack([pm.policy_value(mdp, p) for p in probs])  # (K, H, S)
    tied = V >= V.max(axis=0, keepdims=True) - atol  # (K, H, S)
    K = len(policies)
    if tie_break == "first":
        choice = np.argmax(tied, axis=0)
    elif tie_break == "last":
        choice = K - 1 - np.argmax(tied[::-1], axis=0)
    else:
        u = g.random(tied.shape) * tied  # random score among the tied, 0 elsewhere
        u[~tied] = -1.0
        choice = np.argmax(u, axis=0)
    H, S = choice.shape
    out = probs[choice, np.arange(H)[:, None], np.arange(S)[None, :]]  # (H, S, A)
    return TabularPolicy(out)


def max_following_value(mdp: TabularMDP, policies, *, tie_break="first", rng=None) -> np.ndarray:
    """V[h, s] of the max-following policy, (H, S)."""
    return policy_value(mdp, max_following_policy(mdp, policies, tie_break=tie_break, rng=rng))


def optimal_value(mdp: TabularMDP) -> np.ndarray:
    """V*[h, s], (H, S) (backward induction)."""
    _check_finite_mdp(mdp)
    return pm.optimal_value(mdp)
