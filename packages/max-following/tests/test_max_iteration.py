"""MaxIteration: oracle accounting, convergence to max-following on tabular instances, real
scikit-learn regressors as oracles, a continuous environment."""

import max_following as mf
import numpy as np
import pytest


def test_oracle_accounting():
    mdp, pols = mf.random_instance(6, 2, horizon=4, n_constituents=3, rng=0)
    learner = mf.MaxIteration(pols, horizon=4, n_per_step=7)
    pol = learner.fit(mf.tabular_env(mdp), rng=0)
    assert pol.oracle_calls == learner.oracle_calls == 4 * 3
    assert pol.episodes_used == learner.episodes_used == 7 * 4 * 3
    assert len(pol.value_models) == 4 and all(len(m) == 3 for m in pol.value_models)


def test_zigzag_learned_exactly():
    mdp, pols = mf.zigzag(6)
    for seed in range(3):
        pol = mf.MaxIteration(pols, horizon=6, n_per_step=20).fit(mf.tabular_env(mdp), rng=seed)
        ret = mf.evaluate(mf.tabular_env(mdp), pol, 20, horizon=6, rng=seed)
        assert np.all(ret == pytest.approx(1.0))


def test_tabular_oracle_recovers_constituent_values_on_the_roll_in_distribution():
    """With many samples, V̂^k_0 at every start state equals the exact V^k_0 (to 4 s.e.)."""
    mdp, pols = mf.random_instance(3, 2, horizon=3, n_constituents=2, rng=4)
    pol = mf.MaxIteration(pols, horizon=3, n_per_step=800).fit(mf.tabular_env(mdp), rng=1)
    V = mf.constituent_values(mdp, pols)
    for k in range(2):
        model = pol.value_models[0][k]
        for s in range(3):
            n_s = model.counts_.get((float(s),), 0)
            if n_s > 100:
                assert abs(model.predict([[s]])[0] - V[k, 0, s]) < 4 * 3 / np.sqrt(n_s)


def test_maxiteration_competes_with_the_best_constituent():
    mdp, pols = mf.random_instance(10, 3, horizon=5, n_constituents=3, rng=5)
    best = (mdp.init @ mf.constituent_values(mdp, pols)[:, 0].T).max()
    pol = mf.MaxIteration(pols, horizon=5, n_per_step=400).fit(mf.tabular_env(mdp), rng=2)
    # evaluate the learned policy exactly: it is deterministic given the state and step
    probs = np.zeros((5, 10, 3))
    for h in range(5):
        for s in range(10):
            probs[h, s] = pols[pol.choose(s, h)].probs[s]
    assert mdp.init @ mf.policy_value(mdp, probs)[0] >= best - 0.05


def test_sklearn_regressors_are_oracles():
    from sklearn.linear_model import Ridge
    from sklearn.neighbors import KNeighborsRegressor

    mdp, pols = mf.zigzag(4)
    for factory in (Ridge, lambda: KNeighborsRegressor(n_neighbors=1)):
        pol = mf.MaxIteration(pols, horizon=4, n_per_step=10, oracle=factory).fit(
            mf.tabular_env(mdp), rng=0
        )
        assert type(pol.value_models[0][0]).__module__.startswith("sklearn")
    # KNN with one neighbour is a per-state lookup here: the zigzag is solved
    ret = mf.evaluate(mf.tabular_env(mdp), pol, 10, horizon=4, rng=0)
    assert np.all(ret == pytest.approx(1.0))


def test_ridge_oracle_equals_closed_form():
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(50, 3)), rng.normal(size=50)
    o = mf.RidgeOracle(alpha=0.5).fit(X, y)
    Xc = X - X.mean(0)
    coef = np.linalg.solve(Xc.T @ Xc + 0.5 * np.eye(3), Xc.T @ (y - y.mean()))
    np.testing.assert_allclose(o.coef_, coef, rtol=1e-10)
    from sklearn.linear_model import Ridge

    sk = Ridge(alpha=0.5).fit(X, y)
    np.testing.assert_allclose(o.predict(X), sk.predict(X), rtol=1e-9, atol=1e-12)


def test_wall_gap_navigation_short_run_improves_on_both_constituents():
    env = mf.WallGapNavigation(horizon=30)
    cons = [mf.go_to_gap(), mf.go_to_goal()]
    grid = np.linspace(0, 1, 8)
    centers = np.stack(np.meshgrid(grid, grid), -1).reshape(-1, 2)
    oracle = lambda: mf.RidgeOracle(features=mf.rbf_features(centers, width=0.12), alpha=1e-3)  # noqa: E731
    pol = mf.MaxIteration(cons, horizon=30, n_per_step=30, oracle=oracle).fit(env, rng=0)
    j = mf.evaluate(env, pol, 40, horizon=30, rng=1).mean()
    best = max(mf.evaluate(env, c, 40, horizon=30, rng=1).mean() for c in cons)
    assert j > best


def test_env_without_deepcopy_gives_the_same_samples():
    class NoCopy(mf.TabularEnv):
        def __deepcopy__(self, memo):
            raise TypeError("cannot copy")

    mdp, pols = mf.random_instance(4, 2, horizon=3, n_constituents=2, rng=3)
    a = mf.MaxIteration(pols, horizon=3, n_per_step=50).fit(mf.tabular_env(mdp), rng=9)
    b = mf.MaxIteration(pols, horizon=3, n_per_step=50).fit(NoCopy(mdp), rng=9)
    for h in range(3):
        for k in range(2):
            assert a.value_models[h][k].means_ == b.value_models[h][k].means_
