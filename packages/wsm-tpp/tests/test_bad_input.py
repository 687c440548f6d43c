"""Bad input gets a TypeError (wrong type) or ValueError (wrong value) naming the argument.

Every public function and class of ``wsm_tpp`` (numpy side; the torch extra is probed in
``test_bad_input_torch.py``) is fed wrong types, bools where a number is expected, NaN/inf,
out-of-range values, wrong shapes, empty arrays, mismatched lengths, unknown options and bad
seeds. A case is ``(id, name, call)``: ``call(value)`` passes ``value`` as argument ``name`` with
every other argument valid.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import settings
from hypothesis import strategies as st
from wsm_tpp import (
    ExpHawkes,
    GaussHawkes,
    InhomogeneousPoisson,
    fit,
    log_likelihood,
    objective,
    simulate_hawkes,
    simulate_poisson,
    type_accuracy,
    weight,
)

from papershelf_harness import suite
from papershelf_harness.testing import assert_rejects

FEW = settings(max_examples=5, deadline=None)

TIMES = np.array([0.5, 1.0, 2.0])
SEQ1 = (TIMES, np.zeros(3, dtype=np.int64))  # one mark
SEQ2 = (TIMES, np.array([0, 1, 0]))  # two marks
EXP1 = ExpHawkes(1, beta=2.0, mu=[0.5], A=[[0.8]])
EXP2 = ExpHawkes(2, beta=2.0, mu=[0.5, 0.4], A=[[0.3, 0.2], [0.1, 0.4]])
GAUSS1 = GaussHawkes(1, m=1.0, sigma=0.5, mu=[0.5], A=[[0.6]])
POIS = InhomogeneousPoisson(1, weights=[0.1, 0.0])


def _fit(**kw):
    """A fit that returns at once when its input is wrongly accepted (no long optimisation)."""
    kw.setdefault("model", ExpHawkes(1, beta=2.0))
    kw.setdefault("T", 10.0)
    kw.setdefault("maxiter", 2)
    return fit(kw.pop("seqs", [SEQ1]), **kw)


def _ids(cases):
    return [c.id if hasattr(c, "id") else c[0] for c in cases]


# --- real numbers: (id, name, call, none_ok) ----------------------------------------------
NUMBERS = [
    suite.Number(
        "simulate_hawkes.mu",
        "mu",
        lambda v: simulate_hawkes(v, 0.5, 1.0, 5.0, rng=0),
        none_ok=False,
    ),
    suite.Number(
        "simulate_hawkes.A", "A", lambda v: simulate_hawkes(0.5, v, 1.0, 5.0, rng=0), none_ok=False
    ),
    suite.Number(
        "simulate_hawkes.beta",
        "beta",
        lambda v: simulate_hawkes(0.5, 0.5, v, 5.0, rng=0),
        none_ok=False,
    ),
    suite.Number(
        "simulate_hawkes.T", "T", lambda v: simulate_hawkes(0.5, 0.5, 1.0, v, rng=0), none_ok=False
    ),
    suite.Number(
        "simulate_hawkes.sigma",
        "sigma",
        lambda v: simulate_hawkes(0.5, 0.5, 1.0, 5.0, kernel="gauss", sigma=v, rng=0),
        none_ok=True,
    ),
    suite.Number(
        "simulate_poisson.rate_fn",
        "rate_fn",
        lambda v: simulate_poisson(v, 5.0, rng=0),
        none_ok=False,
    ),
    suite.Number(
        "simulate_poisson.T", "T", lambda v: simulate_poisson(1.0, v, rng=0), none_ok=False
    ),
    suite.Number(
        "simulate_poisson.rate_max",
        "rate_max",
        lambda v: simulate_poisson(lambda t: 1.0 + 0 * t, 5.0, rng=0, rate_max=v),
        none_ok=True,
    ),
    suite.Number("weight.T", "T", lambda v: weight(TIMES, 0.0, v), none_ok=False),
    suite.Number("fit.mark_coef", "mark_coef", lambda v: _fit(mark_coef=v), none_ok=False),
    suite.Number("fit.T", "T", lambda v: _fit(T=v), none_ok=True),
    suite.Number("fit.sigma", "sigma", lambda v: _fit(method="dsm", sigma=v), none_ok=False),
    suite.Number("fit.sigma.awsm", "sigma", lambda v: _fit(sigma=v), none_ok=False),
    suite.Number("fit.tol", "tol", lambda v: _fit(tol=v), none_ok=False),
    suite.Number(
        "objective.mark_coef",
        "mark_coef",
        lambda v: objective(EXP2, [SEQ2], T=10.0, mark_coef=v),
        none_ok=False,
    ),
    suite.Number(
        "objective.sigma",
        "sigma",
        lambda v: objective(EXP1, [SEQ1], method="dsm", T=10.0, sigma=v),
        none_ok=False,
    ),
    suite.Number("objective.T", "T", lambda v: objective(EXP1, [SEQ1], T=v), none_ok=True),
    suite.Number(
        "log_likelihood.T", "T", lambda v: log_likelihood(EXP1, [SEQ1], T=v), none_ok=True
    ),
    suite.Number("type_accuracy.T", "T", lambda v: type_accuracy(EXP2, [SEQ2], T=v), none_ok=True),
    suite.Number(
        "ExpHawkes.score_terms.T", "T", lambda v: EXP1.score_terms(SEQ1, T=v), none_ok=True
    ),
    suite.Number("ExpHawkes.beta", "beta", lambda v: ExpHawkes(1, beta=v), none_ok=True),
    suite.Number("GaussHawkes.m", "m", lambda v: GaussHawkes(1, m=v), none_ok=False),
    suite.Number("GaussHawkes.sigma", "sigma", lambda v: GaussHawkes(1, sigma=v), none_ok=False),
    suite.Number(
        "InhomogeneousPoisson.scale",
        "scale",
        lambda v: InhomogeneousPoisson(2, scale=v),
        none_ok=False,
    ),
]


def _floats(lo=None, hi=None):
    return st.floats(min_value=lo, max_value=hi, allow_nan=False, allow_infinity=False)


# --- numbers out of range: (id, name, call, strategy) ------------------------------------------
OUT_OF_RANGE = [
    suite.OutOfRange(
        "simulate_hawkes.mu",
        "mu",
        lambda v: simulate_hawkes(v, 0.5, 1.0, 5.0, rng=0),
        _floats(hi=0.0),
    ),
    suite.OutOfRange(
        "simulate_hawkes.A",
        "A",
        lambda v: simulate_hawkes(0.5, v, 1.0, 5.0, rng=0),
        _floats(hi=-1e-9),
    ),
    suite.OutOfRange(
        "simulate_hawkes.beta",
        "beta",
        lambda v: simulate_hawkes(0.5, 0.5, v, 5.0, rng=0),
        _floats(hi=0.0),
    ),
    suite.OutOfRange(
        "simulate_hawkes.T",
        "T",
        lambda v: simulate_hawkes(0.5, 0.5, 1.0, v, rng=0),
        _floats(hi=0.0),
    ),
    suite.OutOfRange(
        "simulate_hawkes.sigma",
        "sigma",
        lambda v: simulate_hawkes(0.5, 0.5, 1.0, 5.0, kernel="gauss", sigma=v, rng=0),
        _floats(hi=0.0),
    ),
    suite.OutOfRange(
        "simulate_poisson.rate_fn",
        "rate_fn",
        lambda v: simulate_poisson(v, 5.0, rng=0),
        _floats(hi=-1e-9),
    ),
    suite.OutOfRange(
        "simulate_poisson.T", "T", lambda v: simulate_poisson(1.0, v, rng=0), _floats(hi=0.0)
    ),
    suite.OutOfRange(
        "simulate_poisson.rate_max",
        "rate_max",
        lambda v: simulate_poisson(lambda t: 0 * t, 5.0, rng=0, rate_max=v),
        _floats(hi=0.0),
    ),
    suite.OutOfRange("fit.mark_coef", "mark_coef", lambda v: _fit(mark_coef=v), _floats(hi=-1e-9)),
    suite.OutOfRange("fit.T", "T", lambda v: _fit(T=v), _floats(hi=1.999)),
    suite.OutOfRange("fit.sigma", "sigma", lambda v: _fit(method="dsm", sigma=v), _floats(hi=0.0)),
    suite.OutOfRange("fit.tol", "tol", lambda v: _fit(tol=v), _floats(hi=-1e-9)),
    suite.OutOfRange(
        "objective.mark_coef",
        "mark_coef",
        lambda v: objective(EXP2, [SEQ2], T=10.0, mark_coef=v),
        _floats(hi=-1e-9),
    ),
    suite.OutOfRange(
        "log_likelihood.T", "T", lambda v: log_likelihood(EXP1, [SEQ1], T=v), _floats(hi=1.999)
    ),
    suite.OutOfRange("ExpHawkes.beta", "beta", lambda v: ExpHawkes(1, beta=v), _floats(hi=0.0)),
    suite.OutOfRange("GaussHawkes.m", "m", lambda v: GaussHawkes(1, m=v), _floats(hi=-1e-9)),
    suite.OutOfRange(
        "GaussHawkes.sigma", "sigma", lambda v: GaussHawkes(1, sigma=v), _floats(hi=0.0)
    ),
    suite.OutOfRange(
        "InhomogeneousPoisson.scale",
        "scale",
        lambda v: InhomogeneousPoisson(2, scale=v),
        _floats(hi=0.0),
    ),
    suite.OutOfRange("weight.T<t", "T", lambda v: weight(TIMES, 0.0, v), _floats(0.0, 1.999)),
]


# --- integers: (id, name, call, minimum) -------------------------------------------------------
INTS = [
    suite.Int(
        "simulate_hawkes.max_events",
        "max_events",
        lambda v: simulate_hawkes(0.5, 0.5, 1.0, 5.0, rng=0, max_events=v),
        minimum=1,
    ),
    suite.Int("fit.maxiter", "maxiter", lambda v: _fit(maxiter=v), minimum=1),
    suite.Int("fit.n_noise", "n_noise", lambda v: _fit(method="dsm", n_noise=v), minimum=1),
    suite.Int(
        "objective.n_noise",
        "n_noise",
        lambda v: objective(EXP1, [SEQ1], method="dsm", T=10.0, n_noise=v),
        minimum=1,
    ),
    suite.Int("ExpHawkes.K", "K", lambda v: ExpHawkes(v), minimum=1),
    suite.Int("GaussHawkes.K", "K", lambda v: GaussHawkes(v), minimum=1),
    suite.Int("InhomogeneousPoisson.basis", "basis", lambda v: InhomogeneousPoisson(v), minimum=0),
    suite.Int(
        "InhomogeneousPoisson.n_quad",
        "n_quad",
        lambda v: InhomogeneousPoisson(1, n_quad=v),
        minimum=1,
    ),
]


@pytest.mark.parametrize("value", [0, 1, "yes", None, 1.0], ids=repr)
def test_non_bool_flag_is_a_type_error(value):
    assert_rejects(TypeError, "per_event", log_likelihood, EXP1, [SEQ1], T=10.0, per_event=value)


# --- arrays: (id, name, call, good shape, allowed ndims, empty_ok) -----------------------------
ARRAYS = [
    suite.Array(
        "simulate_hawkes.mu[K]",
        "mu",
        lambda v: simulate_hawkes(v, np.zeros((2, 2)), 1.0, 5.0, rng=0),
        (2,),
        (1,),
        empty_ok=False,
    ),
    suite.Array(
        "simulate_hawkes.A[K,K]",
        "A",
        lambda v: simulate_hawkes(np.ones(2), v, 1.0, 5.0, rng=0),
        (2, 2),
        (2,),
        empty_ok=False,
    ),
    suite.Array("weight.t", "t", lambda v: weight(v, 0.0, 100.0), (3,), (1,), empty_ok=False),
    suite.Array(
        "weight.tprev", "tprev", lambda v: weight(TIMES, v, 100.0), (3,), (0, 1), empty_ok=False
    ),
    suite.Array("weight.T[M]", "T", lambda v: weight(TIMES, 0.0, v), (3,), (0, 1), empty_ok=False),
    suite.Array("fit.seqs.times", "seqs", lambda v: _fit(seqs=[v]), (3,), (1,), empty_ok=False),
    suite.Array(
        "fit.T[S]", "T", lambda v: _fit(seqs=[SEQ1, SEQ1], T=v), (2,), (0, 1), empty_ok=False
    ),
    suite.Array(
        "objective.seqs.times",
        "seqs",
        lambda v: objective(EXP1, [v], T=10.0),
        (3,),
        (1,),
        empty_ok=False,
    ),
    suite.Array(
        "log_likelihood.seqs.times",
        "seqs",
        lambda v: log_likelihood(EXP1, [v], T=10.0),
        (3,),
        (1,),
        empty_ok=False,
    ),
    suite.Array(
        "type_accuracy.seqs.times",
        "seqs",
        lambda v: type_accuracy(EXP1, [v], T=10.0),
        (3,),
        (1,),
        empty_ok=False,
    ),
    suite.Array("ExpHawkes.mu", "mu", lambda v: ExpHawkes(2, mu=v), (2,), (1,), empty_ok=False),
    suite.Array("ExpHawkes.A", "A", lambda v: ExpHawkes(2, A=v), (2, 2), (2,), empty_ok=False),
    suite.Array("GaussHawkes.mu", "mu", lambda v: GaussHawkes(2, mu=v), (2,), (1,), empty_ok=False),
    suite.Array("GaussHawkes.A", "A", lambda v: GaussHawkes(2, A=v), (2, 2), (2,), empty_ok=False),
    suite.Array(
        "InhomogeneousPoisson.weights",
        "weights",
        lambda v: InhomogeneousPoisson(1, weights=v),
        (2,),
        (1,),
        empty_ok=False,
    ),
    suite.Array(
        "ExpHawkes.intensity.t",
        "t",
        lambda v: EXP1.intensity(v, SEQ1),
        (3,),
        (0, 1),
        empty_ok=False,
    ),
    suite.Array(
        "GaussHawkes.intensity.t",
        "t",
        lambda v: GAUSS1.intensity(v, SEQ1),
        (3,),
        (0, 1),
        empty_ok=False,
    ),
    suite.Array(
        "InhomogeneousPoisson.intensity.t",
        "t",
        lambda v: POIS.intensity(v),
        (3,),
        (0, 1),
        empty_ok=False,
    ),
    suite.Array(
        "ExpHawkes.intensity.history",
        "history",
        lambda v: EXP1.intensity([3.0], v),
        (3,),
        (1,),
        empty_ok=True,
    ),
    suite.Array(
        "GaussHawkes.intensity.history",
        "history",
        lambda v: GAUSS1.intensity([3.0], v),
        (3,),
        (1,),
        empty_ok=True,
    ),
    suite.Array(
        "ExpHawkes.score_terms.seq",
        "seq",
        lambda v: EXP1.score_terms(v, T=10.0),
        (3,),
        (1,),
        empty_ok=False,
    ),
    suite.Array(
        "InhomogeneousPoisson.score_terms.seq",
        "seq",
        lambda v: POIS.score_terms(v, T=10.0),
        (3,),
        (1,),
        empty_ok=False,
    ),
]


# every array argument here has a default: None means "use it"; complex was cast silently
ARRAYS = [dataclasses.replace(c, none_ok=True, complex_type_error=True) for c in ARRAYS]

RATES = [
    c for c in ARRAYS if c.id.startswith(("ExpHawkes.mu", "GaussHawkes.mu", "simulate_hawkes.mu"))
]


@pytest.mark.parametrize("case", RATES, ids=_ids(RATES))
def test_bool_array_for_rates_is_a_type_error(case):
    assert_rejects(TypeError, case.name, case.call, np.ones(case.shape, dtype=bool))


# --- marks -------------------------------------------------------------------------------------
MARKS = [
    ("fit", "seqs", lambda v: _fit(seqs=[(TIMES, v)], model=ExpHawkes(2, beta=2.0))),
    ("log_likelihood", "seqs", lambda v: log_likelihood(EXP2, [(TIMES, v)], T=10.0)),
    ("ExpHawkes.intensity", "history", lambda v: EXP2.intensity([3.0], (TIMES, v))),
    (
        "GaussHawkes.score_terms",
        "seq",
        lambda v: GaussHawkes(2, mu=[1, 1], A=np.eye(2)).score_terms((TIMES, v), T=10.0),
    ),
]


@pytest.mark.parametrize("case", MARKS, ids=_ids(MARKS))
@pytest.mark.parametrize(
    "marks, exc",
    [
        (np.array([0, 1]), ValueError),  # length != times
        (np.array([0, -1, 0]), ValueError),  # negative
        (np.array([0, 2, 0]), ValueError),  # >= K = 2
        (np.array([0.0, 0.5, 1.0]), TypeError),  # non-integral
        (np.array([0.0, np.nan, 1.0]), TypeError),  # NaN is not an integer
        (np.array(["a", "b", "c"]), TypeError),
        (np.array([[0, 1, 0]]), ValueError),  # 2-d
    ],
    ids=["short", "negative", ">=K", "fractional", "nan", "strings", "2d"],
)
def test_bad_marks(case, marks, exc):
    _, name, call = case
    assert_rejects(exc, name, call, marks)


# --- sequences, windows and shapes that do not fit together -------------------------------------
MISMATCH = [
    suite.Mismatch(
        "simulate_hawkes.A", "A", lambda: simulate_hawkes(np.ones(2), np.ones((3, 3)), 1.0, 5.0)
    ),
    suite.Mismatch(
        "simulate_hawkes.A.flat", "A", lambda: simulate_hawkes(np.ones(2), np.ones(4), 1.0, 5.0)
    ),
    suite.Mismatch("ExpHawkes.A.flat", "A", lambda: ExpHawkes(2, A=[1.0, 2.0, 3.0, 4.0])),
    suite.Mismatch("ExpHawkes.mu", "mu", lambda: ExpHawkes(2, mu=[1.0, 2.0, 3.0])),
    suite.Mismatch("weight.tprev", "tprev", lambda: weight(TIMES, np.zeros(2), 10.0)),
    suite.Mismatch("weight.tprev>t", "tprev", lambda: weight(TIMES, 1.5, 10.0)),
    suite.Mismatch("fit.T[S]", "T", lambda: _fit(seqs=[SEQ1, SEQ1], T=[10.0, 10.0, 10.0])),
    suite.Mismatch("fit.T<last", "T", lambda: _fit(T=1.0)),
    suite.Mismatch("fit.seqs.decreasing", "seqs", lambda: _fit(seqs=[np.array([1.0, 0.5])])),
    suite.Mismatch("fit.seqs.negative", "seqs", lambda: _fit(seqs=[np.array([-1.0, 0.5])])),
    suite.Mismatch("fit.seqs.empty-list", "seqs", lambda: _fit(seqs=[])),
    suite.Mismatch("fit.seqs.no-events", "seqs", lambda: _fit(seqs=[np.array([]), np.array([])])),
    suite.Mismatch(
        "fit.model.K<marks", "seqs", lambda: _fit(seqs=[SEQ2], model=ExpHawkes(1, beta=2.0))
    ),
    suite.Mismatch("log_likelihood.K<marks", "seqs", lambda: log_likelihood(EXP1, [SEQ2], T=10.0)),
    suite.Mismatch(
        "InhomogeneousPoisson.weights", "weights", lambda: InhomogeneousPoisson(1, weights=[0.1])
    ),
    suite.Mismatch("score_terms.T<last", "T", lambda: EXP1.score_terms(SEQ1, T=1.0)),
]


@pytest.mark.parametrize("value", ["abc", 3.0, None, {"t": 1}, object()], ids=repr)
def test_seqs_of_the_wrong_type(value):
    assert_rejects(TypeError, "seqs", _fit, seqs=value)


def test_model_must_be_a_model_with_parameters():
    for fn in (log_likelihood, type_accuracy, objective):
        assert_rejects(TypeError, "model", fn, "hawkes", [SEQ1], T=10.0)
        assert_rejects(ValueError, "model", fn, ExpHawkes(1), [SEQ1], T=10.0)  # mu, A not set
    assert_rejects(TypeError, "model", _fit, model=ExpHawkes)  # the class, not an instance


# --- options -----------------------------------------------------------------------------------
_VALID = {
    "exp",
    "gauss",
    "awsm",
    "asm",
    "dsm",
    "mle",
    "two_sided_min",
    "two_sided_product",
    "one_sided",
    "none",
}
OPTIONS = [
    suite.Option(
        "simulate_hawkes.kernel",
        "kernel",
        lambda v: simulate_hawkes(0.5, 0.5, 1.0, 5.0, kernel=v),
        valid=frozenset(_VALID),
    ),
    suite.Option("fit.method", "method", lambda v: _fit(method=v), valid=frozenset(_VALID)),
    suite.Option("fit.weight", "weight", lambda v: _fit(weight=v), valid=frozenset(_VALID)),
    suite.Option(
        "objective.method",
        "method",
        lambda v: objective(EXP1, [SEQ1], method=v, T=10.0),
        valid=frozenset(_VALID),
    ),
    suite.Option(
        "objective.weight",
        "weight",
        lambda v: objective(EXP1, [SEQ1], T=10.0, weight=v),
        valid=frozenset(_VALID),
    ),
    suite.Option(
        "weight.kind", "kind", lambda v: weight(TIMES, 0.0, 10.0, kind=v), valid=frozenset(_VALID)
    ),
]


# --- callables -----------------------------------------------------------------------------------
def test_rate_fn_that_misbehaves_names_rate_fn():
    for bad in (
        lambda t: np.nan * t,  # NaN on the grid
        lambda t: -1.0 + 0 * t,  # negative
        lambda t: 0 * t,  # zero everywhere: no bound for thinning
        lambda t: np.ones(3),  # not vectorised
        lambda t: "abc",
    ):
        assert_rejects((ValueError, TypeError), "rate_fn", simulate_poisson, bad, 5.0, rng=0)


def test_callable_basis_that_misbehaves_names_basis():
    for bad in (
        lambda t: np.ones((len(t), 2)),  # not a (Phi, dPhi, d2Phi) triple
        lambda t: (
            np.ones((len(t), 2)),
            np.ones((len(t), 3)),
            np.ones((len(t), 2)),
        ),  # shapes differ
    ):
        assert_rejects(ValueError, "basis", InhomogeneousPoisson, bad)


def test_rate_above_rate_max_names_rate_max():
    assert_rejects(
        ValueError, "rate_max", simulate_poisson, lambda t: 5 + 0 * t, 10.0, rate_max=1.0, rng=0
    )


def test_unset_parameters_name_the_model_and_do_not_mutate_it():
    m = ExpHawkes(1, beta=1.0)
    for call in (lambda: m.intensity([1.0], SEQ1), lambda: m.score_terms(SEQ1, T=10.0)):
        assert_rejects(ValueError, "model", call)
    assert_rejects(ValueError, "model", objective, m, [SEQ1], T=10.0)
    assert m.mu is None and m.A is None
    assert_rejects(ValueError, "model", InhomogeneousPoisson(1).intensity, [1.0])


def test_lone_pair_instead_of_a_list_gets_a_hint():
    with pytest.raises(ValueError, match=r"wrap one \(times, marks\) pair"):
        _fit(seqs=(np.array([0.5, 1.0, 2.0]), np.array([0, 0, 0])))


def test_scalar_tprev_and_T_broadcast():
    h, dh = weight([1.0, 2.5], 0.0, 3.0)
    assert h.tolist() == [1.0, 0.5] and dh.tolist() == [1.0, -1.0]


def test_gauss_kernel_needs_sigma():
    assert_rejects(ValueError, "sigma", simulate_hawkes, 0.5, 0.5, 1.0, 5.0, kernel="gauss")


# --- randomness --------------------------------------------------------------------------------
RNGS = [
    suite.Rng("simulate_hawkes.rng", "rng", lambda v: simulate_hawkes(0.5, 0.5, 1.0, 5.0, rng=v)),
    suite.Rng(
        "simulate_hawkes.gauss.rng",
        "rng",
        lambda v: simulate_hawkes(0.5, 0.5, 1.0, 5.0, kernel="gauss", sigma=0.5, rng=v),
    ),
    suite.Rng("simulate_poisson.rng", "rng", lambda v: simulate_poisson(1.0, 5.0, rng=v)),
    suite.Rng("fit.rng.dsm", "rng", lambda v: _fit(method="dsm", rng=v)),
    suite.Rng("fit.rng.awsm", "rng", lambda v: _fit(rng=v)),
    suite.Rng(
        "objective.rng", "rng", lambda v: objective(EXP1, [SEQ1], method="dsm", T=10.0, rng=v)
    ),
]


def test_good_rng_forms_still_work():
    a = simulate_hawkes(0.5, 0.5, 1.0, 5.0, rng=np.random.default_rng(3))
    b = simulate_hawkes(0.5, 0.5, 1.0, 5.0, rng=3)
    np.testing.assert_array_equal(a[0], b[0])


globals().update(
    suite.bad_input_suite([*NUMBERS, *OUT_OF_RANGE, *INTS, *ARRAYS, *MISMATCH, *OPTIONS, *RNGS])
)
