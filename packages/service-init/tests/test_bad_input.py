"""Bad input gets a TypeError (wrong type) or ValueError (wrong value) naming the argument.

Every public function and class of ``service_init`` (and the user-population methods the
algorithms call: ``losses``, ``loss_to``, ``query``, ``fit``, ``fit_weighted``) is fed wrong types,
bools where a number is expected, NaN/inf, out-of-range values, wrong shapes, empty arrays,
mismatched lengths, unknown options and bad seeds. A case is ``(id, name, call)``: ``call(value)``
passes ``value`` as the argument ``name`` with every other argument valid.
"""

from __future__ import annotations

import numpy as np
import pytest
import service_init as si
from hypothesis import given, settings
from hypothesis import strategies as st

from papershelf_harness import strategies as invalid
from papershelf_harness import suite
from papershelf_harness.testing import assert_rejects

FEW = settings(max_examples=5, deadline=None)

_rng = np.random.default_rng(0)
N, D = 10, 2
X = _rng.normal(size=(N, D))  # (N, d) personal optima
USERS = si.QuadraticUsers(X)
GROUPS = np.repeat([0, 1], N // 2)
C2 = X[:2].copy()  # (2, d) services
XS = [_rng.normal(size=(4, D)) for _ in range(N)]
YS = [x @ np.ones(D) for x in XS]


def _callable_users(**kw):
    return si.CallableUsers(lambda c: ((X[:, None] - c[None]) ** 2).sum(-1), lambda i: X[i], **kw)


def _ids(cases):
    return [c[0] for c in cases]


SEEDERS = [  # (id, seeder(users, k, **kw)) sharing users, k, rng
    ("acquire", lambda u, k, **kw: si.acquire(u, k, **kw)),
    ("fair_acquire", lambda u, k, **kw: si.fair_acquire(u, k, GROUPS, **kw)),
    ("random_init", lambda u, k, **kw: si.random_init(u, k, **kw)),
    ("greedy_init", lambda u, k, **kw: si.greedy_init(u, k, **kw)),
    ("eps_greedy_init", lambda u, k, **kw: si.eps_greedy_init(u, k, **kw)),
    ("balanced_random_init", lambda u, k, **kw: si.balanced_random_init(u, k, GROUPS, **kw)),
    ("balanced_greedy_init", lambda u, k, **kw: si.balanced_greedy_init(u, k, GROUPS, **kw)),
]

# --- real numbers: (id, name, call) --------------------------------------------------------------
NUMBERS = [
    ("eps_greedy_init.eps", "eps", lambda v: si.eps_greedy_init(USERS, 3, rng=0, eps=v)),
    (
        "alternating_minimization.tol",
        "tol",
        lambda v: si.alternating_minimization(USERS, C2, tol=v),
    ),
    (
        "multiplicative_weights.step",
        "step",
        lambda v: si.multiplicative_weights(USERS, C2, iters=2, step=v),
    ),
]


def _floats(lo=None, hi=None):
    return st.floats(min_value=lo, max_value=hi, allow_nan=False, allow_infinity=False)


OUT_OF_RANGE = [
    (
        "eps_greedy_init.eps",
        "eps",
        lambda v: si.eps_greedy_init(USERS, 3, rng=0, eps=v),
        invalid.bad_probabilities(),
    ),
    (
        "alternating_minimization.tol",
        "tol",
        lambda v: si.alternating_minimization(USERS, C2, tol=v),
        _floats(hi=-1e-9),
    ),
    (
        "multiplicative_weights.step",
        "step",
        lambda v: si.multiplicative_weights(USERS, C2, iters=2, step=v),
        _floats(hi=0.0),
    ),
]


# --- integers: (id, name, call, minimum, maximum) ------------------------------------------------
INTS = [
    *[
        (f"{sid}.k", "k", (lambda s: lambda v: s(USERS, v, rng=0))(seed), 1, N)
        for sid, seed in SEEDERS
    ],
    ("exact_optimum.k", "k", lambda v: si.exact_optimum(si.QuadraticUsers(X[:4]), v), 1, 4),
    (
        "acquire_expected_loss.k",
        "k",
        lambda v: si.acquire_expected_loss(si.QuadraticUsers(X[:4]), v),
        1,
        4,
    ),
    (
        "exact_optimum.max_assignments",
        "max_assignments",
        lambda v: si.exact_optimum(si.QuadraticUsers(X[:3]), 2, max_assignments=v),
        1,
        None,
    ),
    (
        "acquire_expected_loss.max_states",
        "max_states",
        lambda v: si.acquire_expected_loss(si.QuadraticUsers(X[:3]), 2, max_states=v),
        1,
        None,
    ),
    (
        "alternating_minimization.iters",
        "iters",
        lambda v: si.alternating_minimization(USERS, C2, iters=v),
        0,
        None,
    ),
    (
        "multiplicative_weights.iters",
        "iters",
        lambda v: si.multiplicative_weights(USERS, C2, iters=v),
        0,
        None,
    ),
    ("CallableUsers.n_users", "n_users", lambda v: _callable_users(n_users=v, dim=D), 1, None),
    ("CallableUsers.dim", "dim", lambda v: _callable_users(n_users=N, dim=v), 1, None),
    ("QuadraticUsers.query.i", "i", lambda v: USERS.query(v), 0, N - 1),
    ("CallableUsers.query.i", "i", lambda v: _callable_users().query(v), 0, N - 1),
    ("QuadraticUsers.fit.k", "k", lambda v: USERS.fit(np.zeros(N, dtype=int), v, C2), 1, None),
]


NONE_OK = {"CallableUsers.n_users", "CallableUsers.dim"}  # None: inferred from the callables


# --- bool flags ------------------------------------------------------------------------------------
BOOLS = [
    ("acquire.excess", "excess", lambda v: si.acquire(USERS, 3, rng=0, excess=v)),
    ("fair_acquire.excess", "excess", lambda v: si.fair_acquire(USERS, 3, GROUPS, rng=0, excess=v)),
    ("greedy_init.excess", "excess", lambda v: si.greedy_init(USERS, 3, rng=0, excess=v)),
    ("eps_greedy_init.excess", "excess", lambda v: si.eps_greedy_init(USERS, 3, rng=0, excess=v)),
    (
        "balanced_greedy_init.excess",
        "excess",
        lambda v: si.balanced_greedy_init(USERS, 3, GROUPS, rng=0, excess=v),
    ),
    (
        "acquire_expected_loss.excess",
        "excess",
        lambda v: si.acquire_expected_loss(si.QuadraticUsers(X[:4]), 2, excess=v),
    ),
]


# --- arrays: (id, name, call, good shape, allowed ndims) ------------------------------------------
ARRAYS = [
    ("QuadraticUsers.optima", "optima", lambda v: si.QuadraticUsers(v), (N, D), (2,)),
    (
        "QuadraticUsers.metrics.diag",
        "metrics",
        lambda v: si.QuadraticUsers(X, metrics=v),
        (N, D),
        (2, 3),
    ),
    (
        "QuadraticUsers.metrics.full",
        "metrics",
        lambda v: si.QuadraticUsers(X, metrics=v),
        (N, D, D),
        (2, 3),
    ),
    ("QuadraticUsers.offsets", "offsets", lambda v: si.QuadraticUsers(X, offsets=v), (N,), (1,)),
    ("QuadraticUsers.weights", "weights", lambda v: si.QuadraticUsers(X, weights=v), (N,), (1,)),
    (
        "RegressionUsers.X_list[i]",
        "X_list",
        lambda v: si.RegressionUsers([v, *XS[1:]], YS),
        (4, D),
        (2,),
    ),
    (
        "RegressionUsers.y_list[i]",
        "y_list",
        lambda v: si.RegressionUsers(XS, [v, *YS[1:]]),
        (4,),
        (1,),
    ),
    (
        "RegressionUsers.weights",
        "weights",
        lambda v: si.RegressionUsers(XS, YS, weights=v),
        (N,),
        (1,),
    ),
    (
        "CallableUsers.optimal_losses",
        "optimal_losses",
        lambda v: _callable_users(optimal_losses=v),
        (N,),
        (1,),
    ),
    ("losses.centers", "centers", lambda v: USERS.losses(v), (2, D), (1, 2)),
    ("loss_to.center", "center", lambda v: USERS.loss_to(v), (D,), (1,)),
    ("CallableUsers.loss_to.center", "center", lambda v: _callable_users().loss_to(v), (D,), (1,)),
    ("fit.previous", "previous", lambda v: USERS.fit(np.zeros(N, dtype=int), 2, v), (2, D), (2,)),
    ("fit_weighted.resp", "resp", lambda v: USERS.fit_weighted(v, C2), (N, 2), (2,)),
    (
        "fit_weighted.previous",
        "previous",
        lambda v: USERS.fit_weighted(np.ones((N, 2)), v),
        (2, D),
        (2,),
    ),
    ("total_loss.centers", "centers", lambda v: si.total_loss(USERS, v), (2, D), (2,)),
    ("user_losses.centers", "centers", lambda v: si.user_losses(USERS, v), (2, D), (2,)),
    ("group_losses.centers", "centers", lambda v: si.group_losses(USERS, v, GROUPS), (2, D), (2,)),
    (
        "max_group_loss.centers",
        "centers",
        lambda v: si.max_group_loss(USERS, v, GROUPS),
        (2, D),
        (2,),
    ),
    (
        "alternating_minimization.centers",
        "centers",
        lambda v: si.alternating_minimization(USERS, v),
        (2, D),
        (2,),
    ),
    (
        "multiplicative_weights.centers",
        "centers",
        lambda v: si.multiplicative_weights(USERS, v, iters=2),
        (2, D),
        (2,),
    ),
]


# --- values and shapes that do not fit together ---------------------------------------------------
MISMATCH = [
    (
        "QuadraticUsers.metrics.shape",
        "metrics",
        lambda: si.QuadraticUsers(X, metrics=np.ones((N, D + 1))),
    ),
    (
        "QuadraticUsers.metrics.negative",
        "metrics",
        lambda: si.QuadraticUsers(X, metrics=-np.ones((N, D))),
    ),
    (
        "QuadraticUsers.metrics.asymmetric",
        "metrics",
        lambda: si.QuadraticUsers(X[:1], metrics=np.array([[[1.0, 2], [0, 1]]])),
    ),
    (
        "QuadraticUsers.metrics.not-psd",
        "metrics",
        lambda: si.QuadraticUsers(X[:1], metrics=np.array([[[1.0, 2], [2, 1]]])),
    ),
    (
        "QuadraticUsers.offsets.negative",
        "offsets",
        lambda: si.QuadraticUsers(X, offsets=-np.ones(N)),
    ),
    (
        "QuadraticUsers.offsets.length",
        "offsets",
        lambda: si.QuadraticUsers(X, offsets=np.ones(N - 1)),
    ),
    (
        "QuadraticUsers.weights.negative",
        "weights",
        lambda: si.QuadraticUsers(X, weights=np.r_[-1.0, np.ones(N - 1)]),
    ),
    ("QuadraticUsers.weights.zero", "weights", lambda: si.QuadraticUsers(X, weights=np.zeros(N))),
    (
        "QuadraticUsers.weights.length",
        "weights",
        lambda: si.QuadraticUsers(X, weights=np.ones(N + 1)),
    ),
    ("RegressionUsers.lengths", "y_list", lambda: si.RegressionUsers(XS, YS[:-1])),
    ("RegressionUsers.empty", "X_list", lambda: si.RegressionUsers([], [])),
    (
        "RegressionUsers.y_list[i].length",
        "y_list",
        lambda: si.RegressionUsers(XS, [np.ones(3), *YS[1:]]),
    ),
    (
        "RegressionUsers.X_list[i].dim",
        "X_list",
        lambda: si.RegressionUsers([np.ones((4, D + 1)), *XS[1:]], YS),
    ),
    (
        "CallableUsers.optimal_losses.negative",
        "optimal_losses",
        lambda: _callable_users(optimal_losses=-np.ones(N)),
    ),
    (
        "CallableUsers.optimal_losses.length",
        "optimal_losses",
        lambda: _callable_users(optimal_losses=np.ones(N - 1)),
    ),
    ("losses.centers.dim", "centers", lambda: USERS.losses(np.ones((2, D + 1)))),
    ("loss_to.center.dim", "center", lambda: USERS.loss_to(np.ones(D + 1))),
    ("fit.assignment.length", "assignment", lambda: USERS.fit(np.zeros(N - 1, dtype=int), 2, C2)),
    ("fit.assignment.range", "assignment", lambda: USERS.fit(np.full(N, 2), 2, C2)),
    ("fit.assignment.negative", "assignment", lambda: USERS.fit(np.full(N, -1), 2, C2)),
    ("fit.previous.k", "previous", lambda: USERS.fit(np.zeros(N, dtype=int), 3, C2)),
    ("fit_weighted.resp.shape", "resp", lambda: USERS.fit_weighted(np.ones((N, 3)), C2)),
    ("fit_weighted.resp.negative", "resp", lambda: USERS.fit_weighted(-np.ones((N, 2)), C2)),
    ("centers.dim", "centers", lambda: si.total_loss(USERS, np.ones((2, D + 1)))),
    ("fair_acquire.groups.length", "groups", lambda: si.fair_acquire(USERS, 2, GROUPS[:-1], rng=0)),
    (
        "balanced_random_init.groups.length",
        "groups",
        lambda: si.balanced_random_init(USERS, 2, GROUPS[:-1], rng=0),
    ),
    (
        "balanced_greedy_init.groups.length",
        "groups",
        lambda: si.balanced_greedy_init(USERS, 2, GROUPS[:-1], rng=0),
    ),
    ("group_losses.groups.length", "groups", lambda: si.group_losses(USERS, C2, GROUPS[:-1])),
    ("fair_acquire.groups.2d", "groups", lambda: si.fair_acquire(USERS, 2, GROUPS[:, None], rng=0)),
    (
        "fair_acquire.groups.nan",
        "groups",
        lambda: si.fair_acquire(USERS, 2, np.r_[np.nan, np.zeros(N - 1)], rng=0),
    ),
    (
        "fair_acquire.groups.zero-weight",
        "groups",
        lambda: si.fair_acquire(
            si.QuadraticUsers(X, weights=np.r_[np.zeros(5), np.ones(5)]), 2, GROUPS, rng=0
        ),
    ),
    (
        "random_init.k>positive-weight",
        "k",
        lambda: si.random_init(si.QuadraticUsers(X, weights=np.r_[1.0, np.zeros(N - 1)]), 2, rng=0),
    ),
    (
        "exact_optimum.max_assignments",
        "max_assignments",
        lambda: si.exact_optimum(si.QuadraticUsers(X[:6]), 3, max_assignments=10),
    ),
]


@pytest.mark.parametrize("value", ["users", 3, None, X], ids=["str", "int", "None", "array"])
@pytest.mark.parametrize("case", SEEDERS, ids=_ids(SEEDERS))
def test_users_must_be_a_population(case, value):
    _, seed = case
    assert_rejects(TypeError, "users", seed, value, 2, rng=0)


def test_population_class_instead_of_instance():
    assert_rejects(TypeError, "users", si.acquire, si.QuadraticUsers, 2, rng=0)
    assert_rejects(TypeError, "users", si.total_loss, si.QuadraticUsers, C2)


def test_regression_users_need_sequences():
    assert_rejects(TypeError, "X_list", si.RegressionUsers, 5, 6)
    assert_rejects(TypeError, "X_list", si.RegressionUsers, "abc", YS)


def test_fit_assignment_of_the_wrong_type():
    assert_rejects(TypeError, "assignment", USERS.fit, np.full(N, 0.5), 2, C2)
    assert_rejects(TypeError, "assignment", USERS.fit, np.full(N, "a"), 2, C2)


# --- callables -----------------------------------------------------------------------------------
def test_callable_users_need_callables():
    assert_rejects(TypeError, "loss_fn", si.CallableUsers, "f", lambda i: X[i])
    assert_rejects(TypeError, "argmin_fn", si.CallableUsers, lambda c: c, 3)
    assert_rejects(TypeError, "fit_fn", _callable_users, fit_fn="f")


def test_callables_that_misbehave_name_themselves():
    def bad_loss(value):
        return si.CallableUsers(lambda c: value, lambda i: X[i], n_users=N, dim=D)

    for out in (
        np.full((N, 2), -1.0),
        np.full((N, 2), np.nan),
        np.ones((N, 3)),
        np.full((N, 2), "a"),
    ):
        assert_rejects((ValueError, TypeError), "loss_fn", bad_loss(out).losses, C2)
    for out in (np.array([np.nan, 0.0]), np.ones(3), "ab"):
        users = si.CallableUsers(
            lambda c: np.zeros((N, c.shape[0])), lambda i, o=out: o, n_users=N, dim=D
        )
        assert_rejects((ValueError, TypeError), "argmin_fn", users.query, 0)
    # inferring dim / n_users calls the callables too
    assert_rejects(
        (ValueError, TypeError), "argmin_fn", si.CallableUsers, lambda c: c, lambda i: "ab"
    )
    assert_rejects(ValueError, "loss_fn", si.CallableUsers, lambda c: np.zeros(5), lambda i: X[i])
    users = _callable_users(fit_fn=lambda r, p: np.ones((5, 5)))
    assert_rejects(ValueError, "fit_fn", users.fit_weighted, np.ones((N, 2)), C2)
    assert_rejects(
        ValueError, "fit_fn", _callable_users().fit_weighted, np.ones((N, 2)), C2
    )  # none


def test_excess_needs_optimal_losses():
    assert_rejects(ValueError, "excess", si.acquire, _callable_users(), 2, rng=0, excess=True)


# --- options -----------------------------------------------------------------------------------
@FEW
@given(value=st.text(max_size=6).filter(lambda s: s not in ("proportional", "worst-group")))
def test_unknown_rule_is_a_value_error(value):
    assert_rejects(ValueError, "rule", si.fair_acquire, USERS, 2, GROUPS, rng=0, rule=value)


@pytest.mark.parametrize("value", [1, None, ["proportional"]], ids=repr)
def test_non_string_rule_is_a_type_error(value):
    assert_rejects(TypeError, "rule", si.fair_acquire, USERS, 2, GROUPS, rng=0, rule=value)


# --- randomness ----------------------------------------------------------------------------------
RNGS = [
    (f"{sid}.rng", "rng", (lambda s: lambda v: s(USERS, 3, rng=v))(seed)) for sid, seed in SEEDERS
]


def test_good_rng_forms_still_work():
    a = si.acquire(USERS, 3, rng=np.random.default_rng(4))
    b = si.acquire(USERS, 3, rng=4)
    np.testing.assert_array_equal(a[1], b[1])


# the tables above, as suite cases (every array argument here has a default, so None is valid;
# complex arrays used to be cast to real silently)
CASES = [
    *(suite.Number(*c) for c in NUMBERS),
    *(suite.OutOfRange(*c) for c in OUT_OF_RANGE),
    *(suite.Int(*c, none_ok=c[0] in NONE_OK) for c in INTS),
    *(suite.Flag(*c) for c in BOOLS),
    *(suite.Array(*c, none_ok=True, complex_type_error=True) for c in ARRAYS),
    *(suite.Mismatch(*c) for c in MISMATCH),
    *(suite.Rng(*c) for c in RNGS),
]
globals().update(suite.bad_input_suite(CASES))
