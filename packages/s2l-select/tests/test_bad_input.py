"""Bad input gets a TypeError (wrong type) or ValueError (wrong value) naming the argument.

One case per public argument, by kind (see ``papershelf_harness.suite``); ``call(value)`` feeds
``value`` as the argument ``name`` with every other argument valid. Trajectories are not an
``Array`` case: NaN is turned into 0 there (the original S2L code does), so they get plain
tests below.
"""

import numpy as np
import pytest
import s2l_select as s2l
from hypothesis import strategies as st

from papershelf_harness import suite
from papershelf_harness.testing import assert_rejects

K = suite.keyword
R = np.abs(np.random.default_rng(0).standard_normal((12, 3)))  # trajectories [n, T]
LAB = np.array([0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 4])
P = np.full((4, 3), 1 / 3)
E = np.random.default_rng(1).standard_normal((5, 2))
G = np.random.default_rng(2).standard_normal((4, 3))
too_big = st.integers(13, 10**6)  # budget > n = 12

CASES = [
    # cluster_trajectories
    K(suite.Int, s2l.cluster_trajectories, "n_clusters", R, minimum=1),
    K(suite.OutOfRange, s2l.cluster_trajectories, "n_clusters", R, values=too_big),
    K(suite.Int, s2l.cluster_trajectories, "n_iter", R, kwargs={"n_clusters": 2}, minimum=1),
    K(suite.Option, s2l.cluster_trajectories, "backend", R, valid=frozenset({"sklearn", "faiss"})),
    K(suite.Rng, s2l.cluster_trajectories, "rng", R, kwargs={"n_clusters": 2}),
    # balanced_sample
    suite.Array(
        "balanced_sample.labels", "labels", lambda v: s2l.balanced_sample(v, 1), (6,), (1,)
    ),
    suite.Int("balanced_sample.budget", "budget", lambda v: s2l.balanced_sample(LAB, v), minimum=0),
    suite.OutOfRange(
        "balanced_sample.budget>n", "budget", lambda v: s2l.balanced_sample(LAB, v), too_big
    ),
    K(suite.Int, s2l.balanced_sample, "min_cluster_size", LAB, 3, minimum=1),
    K(suite.Rng, s2l.balanced_sample, "rng", LAB, 3),
    suite.Mismatch(
        "balanced_sample.strata", "strata", lambda: s2l.balanced_sample(LAB, 3, strata=[0, 1])
    ),
    # S2LSelector
    K(suite.Int, s2l.S2LSelector, "n_clusters", minimum=1),
    K(suite.Int, s2l.S2LSelector, "min_cluster_size", minimum=1),
    K(suite.Rng, s2l.S2LSelector, "rng"),
    suite.Int(
        "S2LSelector.select.budget",
        "budget",
        lambda v: s2l.S2LSelector(n_clusters=2).select(R, v),
        minimum=0,
    ),
    suite.OutOfRange(
        "S2LSelector.select.budget>n",
        "budget",
        lambda v: s2l.S2LSelector(n_clusters=2).select(R, v),
        too_big,
    ),
    suite.Mismatch(
        "S2LSelector.select.strata",
        "strata",
        lambda: s2l.S2LSelector(n_clusters=2).select(R, 3, strata=[0]),
    ),
    suite.Mismatch(
        "S2LSelector.select.n_clusters",
        "n_clusters",
        lambda: s2l.S2LSelector(n_clusters=13).select(R, 3),
    ),
    # baselines
    suite.Array(
        "loss_select.losses", "losses", lambda v: s2l.loss_select(v, 1, kind="high"), (5,), (1,)
    ),
    suite.Int(
        "loss_select.budget",
        "budget",
        lambda v: s2l.loss_select(np.ones(12), v, kind="low"),
        minimum=0,
    ),
    suite.OutOfRange(
        "loss_select.budget>n",
        "budget",
        lambda v: s2l.loss_select(np.ones(12), v, kind="low"),
        too_big,
    ),
    K(
        suite.Option,
        s2l.loss_select,
        "kind",
        np.ones(5),
        2,
        valid=frozenset({"high", "low", "middle"}),
    ),
    suite.Array(
        "el2n_select.probs", "probs", lambda v: s2l.el2n_select(v, [0, 1, 2, 0], 1), (4, 3), (2, 3)
    ),
    suite.Array("el2n_select.labels", "labels", lambda v: s2l.el2n_select(P, v, 1), (4,), (1,)),
    suite.Int(
        "el2n_select.budget", "budget", lambda v: s2l.el2n_select(P, [0, 1, 2, 0], v), minimum=0
    ),
    K(
        suite.Option,
        s2l.el2n_select,
        "kind",
        P,
        [0, 1, 2, 0],
        1,
        valid=frozenset({"high", "low", "middle"}),
    ),
    suite.Mismatch("el2n_select.labels.length", "labels", lambda: s2l.el2n_select(P, [0, 1], 1)),
    suite.OutOfRange(
        "el2n_scores.labels.range",
        "labels",
        lambda v: s2l.el2n_scores(P, [0, 1, v, 0]),
        st.integers(3, 100) | st.integers(-100, -1),
    ),
    suite.OutOfRange(
        "el2n_scores.probs.range",
        "probs",
        lambda v: s2l.el2n_scores(np.full((4, 3), v), [0, 1, 2, 0]),
        st.floats(1.01, 10) | st.floats(-10, -0.01),
    ),
    suite.Int("datamap_select.budget", "budget", lambda v: s2l.datamap_select(R, v), minimum=0),
    K(
        suite.Option,
        s2l.datamap_select,
        "measure",
        R,
        2,
        valid=frozenset({"variability", "confidence"}),
    ),
    K(suite.Option, s2l.datamap_select, "kind", R, 2, valid=frozenset({"high", "low", "middle"})),
    suite.Array(
        "facility_location_select.embeddings",
        "embeddings",
        lambda v: s2l.facility_location_select(v, 1),
        (5, 2),
        (2,),
    ),
    suite.Int(
        "facility_location_select.budget",
        "budget",
        lambda v: s2l.facility_location_select(E, v),
        minimum=0,
    ),
    suite.OutOfRange(
        "facility_location_select.budget>n",
        "budget",
        lambda v: s2l.facility_location_select(E, v),
        st.integers(6, 100),
    ),
    # diagnostics and helpers
    suite.Array(
        "gradient_similarity.G",
        "G",
        lambda v: s2l.gradient_similarity(v, [0, 0, 1, 1]),
        (4, 3),
        (2,),
    ),
    suite.Array(
        "gradient_similarity.labels", "labels", lambda v: s2l.gradient_similarity(G, v), (4,), (1,)
    ),
    suite.Mismatch(
        "gradient_similarity.labels.length", "labels", lambda: s2l.gradient_similarity(G, [0, 0])
    ),
    suite.Int("random_select.n", "n", lambda v: s2l.random_select(v, 0), minimum=1),
    suite.Int("random_select.budget", "budget", lambda v: s2l.random_select(12, v), minimum=0),
    K(suite.Rng, s2l.random_select, "rng", 12, 3),
    suite.Array("water_fill.sizes", "sizes", lambda v: s2l.water_fill(v, 1), (3,), (1,)),
    suite.Int("water_fill.budget", "budget", lambda v: s2l.water_fill([1, 2], v), minimum=0),
]

globals().update(suite.bad_input_suite(CASES, max_examples=3))

TRAJECTORY_FUNCTIONS = {
    "cluster_trajectories": lambda v: s2l.cluster_trajectories(v, n_clusters=1),
    "S2LSelector.select": lambda v: s2l.S2LSelector(n_clusters=1).select(v, 1),
    "datamap_select": lambda v: s2l.datamap_select(v, 1),
}


@pytest.mark.parametrize("call", TRAJECTORY_FUNCTIONS.values(), ids=TRAJECTORY_FUNCTIONS.keys())
def test_trajectories_bad_input(call):
    for value in (np.ones(4), np.ones((2, 2, 2)), np.ones(()), np.zeros((0, 3)), np.zeros((3, 0))):
        assert_rejects(ValueError, "trajectories", call, value)
    for value in (None, "abc", np.full((3, 2), "a"), [[1.0, 2.0], [3.0]], np.full((2, 2), 1 + 1j)):
        assert_rejects(TypeError, "trajectories", call, value)
    for bad in (np.inf, -np.inf):
        x = np.ones((4, 2))
        x[1, 1] = bad
        assert_rejects(ValueError, "trajectories", call, x)


def test_trajectories_nan_becomes_zero():
    x = np.abs(np.random.default_rng(3).standard_normal((10, 3)))
    x_nan = x.copy()
    x_nan[2, 1] = np.nan
    x_zero = np.where(np.isnan(x_nan), 0.0, x_nan)
    np.testing.assert_array_equal(s2l.datamap_select(x_nan, 4), s2l.datamap_select(x_zero, 4))


def test_strata_bad_input():
    assert_rejects(TypeError, "strata", s2l.balanced_sample, LAB, 3, strata="abc")
    assert_rejects(TypeError, "strata", s2l.balanced_sample, LAB, 3, strata=[None] * 12)
    assert_rejects(ValueError, "strata", s2l.balanced_sample, LAB, 3, strata=np.full(12, np.nan))
    assert_rejects(ValueError, "strata", s2l.balanced_sample, LAB, 3, strata=np.ones((12, 1)))


def test_negative_losses_in_datamap():
    assert_rejects(ValueError, "trajectories", s2l.datamap_select, -R, 2)
