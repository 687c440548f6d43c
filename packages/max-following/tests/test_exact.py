"""Exact max-following against independent references: brute-force recursion, the paper's
dominance property, hand-computed zigzag and tie-break values."""

import itertools

import max_following as mf
import numpy as np
import pytest


def _brute_value(mdp, pick, policies_probs, h, s):
    """Value of the policy that at (h, s) plays the action law of constituent pick[h][s],
    by direct recursion over next states (no matrix algebra)."""
    if h == mdp.horizon:
        return 0.0
    pi = policies_probs[pick[h][s]]
    pi_h = pi[h] if pi.ndim == 3 else pi
    r = mdp.expected_reward()[h]
    P = mdp.transitions()[h]
    total = 0.0
    for a in range(mdp.n_actions):
        if pi_h[s, a] == 0:
            continue
        cont = sum(
            P[s, a, t] * _brute_value(mdp, pick, policies_probs, h + 1, t)
            for t in range(mdp.n_states)
            if P[s, a, t]
        )
        total += pi_h[s, a] * (r[s, a] + cont)
    return total


def test_constituent_values_match_recursion():
    mdp, pols = mf.random_instance(4, 3, horizon=3, n_constituents=2, rng=0)
    V = mf.constituent_values(mdp, pols)
    assert V.shape == (2, 3, 4)
    for k in range(2):
        pick = [[k] * 4 for _ in range(3)]
        for h, s in itertools.product(range(3), range(4)):
            assert V[k, h, s] == pytest.approx(
                _brute_value(mdp, pick, [p.probs for p in pols], h, s)
            )


def test_max_following_picks_the_argmax_constituent_and_matches_recursion():
    mdp, pols = mf.random_instance(4, 3, horizon=3, n_constituents=3, rng=1)
    V = mf.constituent_values(mdp, pols)
    pick = V.argmax(axis=0).tolist()
    mfv = mf.max_following_value(mdp, pols)
    probs = [p.probs for p in pols]
    for h, s in itertools.product(range(3), range(4)):
        assert mfv[h, s] == pytest.approx(_brute_value(mdp, pick, probs, h, s))


@pytest.mark.parametrize("tie_break", mf.TIE_BREAKS)
def test_dominance_on_random_instances(tie_break):
    for seed in range(10):
        mdp, pols = mf.random_instance(8, 3, horizon=5, n_constituents=3, rng=seed)
        V = mf.constituent_values(mdp, pols)
        mfv = mf.max_following_value(mdp, pols, tie_break=tie_break, rng=seed)
        assert np.all(mfv >= V.max(axis=0) - 1e-12)
        assert np.all(mf.optimal_value(mdp) >= mfv - 1e-12)


def test_zigzag_values():
    mdp, pols = mf.zigzag(6)
    V = mf.constituent_values(mdp, pols)
    assert V[:, 0, 0].tolist() == pytest.approx([0.0, 0.01])
    assert mf.max_following_value(mdp, pols)[0, 0] == pytest.approx(1.0)
    assert mf.optimal_value(mdp)[0, 0] == pytest.approx(1.0)


def test_tie_break_changes_the_value():
    mdp, pols = mf.tie_break_example()
    V = mf.constituent_values(mdp, pols)
    assert V[0, 0, 0] == pytest.approx(V[1, 0, 0]) == pytest.approx(0.5)
    assert mf.max_following_value(mdp, pols, tie_break="first")[0, 0] == pytest.approx(0.5)
    assert mf.max_following_value(mdp, pols, tie_break="last")[0, 0] == pytest.approx(1.5)
    got = {mf.max_following_value(mdp, pols, tie_break="random", rng=s)[0, 0] for s in range(20)}
    assert got == {0.5, 1.5}


def test_array_policies_equal_tabular_policies():
    mdp, pols = mf.random_instance(5, 2, horizon=4, rng=2)
    np.testing.assert_allclose(mf.policy_value(mdp, pols[0]), mf.policy_value(mdp, pols[0].probs))


def test_tabular_policy_act_samples_its_probabilities():
    probs = np.array([[0.2, 0.8], [1.0, 0.0]])
    pol = mf.TabularPolicy(probs)
    rng = np.random.default_rng(0)
    draws = np.array([pol.act(0, 0, rng) for _ in range(20_000)])
    assert abs(draws.mean() - 0.8) < 4 * np.sqrt(0.16 / 20_000)
    assert {pol.act(1, 3, rng) for _ in range(50)} == {0}
