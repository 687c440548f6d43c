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
def _gauss_sigma(kind, **options):
    """A case for simulate_hawkes's Gaussian-kernel width."""
    gauss = {"kernel": "gauss", "rng": 0}
    return suite.keyword(
        kind, simulate_hawkes, "sigma", 0.5, 0.5, 1.0, 5.0, kwargs=gauss, **options
    )


NUMBERS = [
    suite.Number("simulate_hawkes.mu", "mu", lambda v: simulate_hawkes(v, 0.5, 1.0, 5.0, rng=0)),
    suite.Number("simulate_hawkes.A", "A", lambda v: simulate_hawkes(0.5, v, 1.0, 5.0, rng=0)),
    suite.Number(
        "simulate_hawkes.beta", "beta", lambda v: simulate_hawkes(0.5, 0.5, v, 5.0, rng=0)
    ),
    suite.Number("simulate_hawkes.T", "T", lambda v: simulate_hawkes(0.5, 0.5, 1.0, v, rng=0)),
    _gauss_sigma(suite.Number, none_ok=True),
    suite.Number("simulate_poisson.rate_fn", "rate_fn", lambda v: simulate_poisson(v, 5.0, rng=0)),
    suite.Number("simulate_poisson.T", "T", lambda v: simulate_poisson(1.0, v, rng=0)),
    suite.keyword(
        suite.Number,
        simulate_poisson,
        "rate_max",
        lambda t: 1.0 + 0 * t,
        5.0,
        kwargs={"rng": 0},
        none_ok=True,
    ),
    suite.Number("weight.T", "T", lambda v: weight(TIMES, 0.0, v)),
    suite.keyword(suite.Number, _fit, "mark_coef", id="fit.mark_coef"),
    suite.keyword(suite.Number, _fit, "T", id="fit.T", none_ok=True),
    suite.keyword(suite.Number, _fit, "sigma", kwargs={"method": "dsm"}, id="fit.sigma"),
    suite.keyword(suite.Number, _fit, "sigma", id="fit.sigma.awsm"),
    suite.keyword(suite.Number, _fit, "tol", id="fit.tol"),
    suite.keyword(suite.Number, objective, "mark_coef", EXP2, [SEQ2], kwargs={"T": 10.0}),
    suite.keyword(
        suite.Number, objective, "sigma", EXP1, [SEQ1], kwargs={"method": "dsm", "T": 10.0}
    ),
    suite.keyword(suite.Number, objective, "T", EXP1, [SEQ1], none_ok=True),
    suite.keyword(suite.Number, log_likelihood, "T", EXP1, [SEQ1], none_ok=True),
    suite.keyword(suite.Number, type_accuracy, "T", EXP2, [SEQ2], none_ok=True),
    suite.keyword(
        suite.Number, EXP1.score_terms, "T", SEQ1, id="ExpHawkes.score_terms.T", none_ok=True
    ),
    suite.keyword(suite.Number, ExpHawkes, "beta", 1, none_ok=True),
    suite.keyword(suite.Number, GaussHawkes, "m", 1),
    suite.keyword(suite.Number, GaussHawkes, "sigma", 1),
    suite.keyword(suite.Number, InhomogeneousPoisson, "scale", 2),
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
    _gauss_sigma(suite.OutOfRange, values=_floats(hi=0.0)),
    suite.OutOfRange(
        "simulate_poisson.rate_fn",
        "rate_fn",
        lambda v: simulate_poisson(v, 5.0, rng=0),
        _floats(hi=-1e-9),
    ),
    suite.OutOfRange(
        "simulate_poisson.T", "T", lambda v: simulate_poisson(1.0, v, rng=0), _floats(hi=0.0)
    ),
    suite.keyword(
        suite.OutOfRange,
        simulate_poisson,
        "rate_max",
        lambda t: 0 * t,
        5.0,
        kwargs={"rng": 0},
        values=_floats(hi=0.0),
    ),
    suite.keyword(
        suite.OutOfRange, _fit, "mark_coef", id="fit.mark_coef", values=_floats(hi=-1e-09)
    ),
    suite.keyword(suite.OutOfRange, _fit, "T", id="fit.T", values=_floats(hi=1.999)),
    suite.keyword(
        suite.OutOfRange,
        _fit,
        "sigma",
        kwargs={"method": "dsm"},
        id="fit.sigma",
        values=_floats(hi=0.0),
    ),
    suite.keyword(suite.OutOfRange, _fit, "tol", id="fit.tol", values=_floats(hi=-1e-09)),
    suite.keyword(
        suite.OutOfRange,
        objective,
        "mark_coef",
        EXP2,
        [SEQ2],
        kwargs={"T": 10.0},
        values=_floats(hi=-1e-09),
    ),
    suite.keyword(suite.OutOfRange, log_likelihood, "T", EXP1, [SEQ1], values=_floats(hi=1.999)),
    suite.keyword(suite.OutOfRange, ExpHawkes, "beta", 1, values=_floats(hi=0.0)),
    suite.keyword(suite.OutOfRange, GaussHawkes, "m", 1, values=_floats(hi=-1e-09)),
    suite.keyword(suite.OutOfRange, GaussHawkes, "sigma", 1, values=_floats(hi=0.0)),
    suite.keyword(suite.OutOfRange, InhomogeneousPoisson, "scale", 2, values=_floats(hi=0.0)),
    suite.OutOfRange("weight.T<t", "T", lambda v: weight(TIMES, 0.0, v), _floats(0.0, 1.999)),
]


# --- integers: (id, name, call, minimum) -------------------------------------------------------
INTS = [
    suite.keyword(
        suite.Int, simulate_hawkes, "max_events", 0.5, 0.5, 1.0, 5.0, kwargs={"rng": 0}, minimum=1
    ),
    suite.keyword(suite.Int, _fit, "maxiter", id="fit.maxiter", minimum=1),
    suite.keyword(
        suite.Int, _fit, "n_noise", kwargs={"method": "dsm"}, id="fit.n_noise", minimum=1
    ),
    suite.keyword(
        suite.Int,
        objective,
        "n_noise",
        EXP1,
        [SEQ1],
        kwargs={"method": "dsm", "T": 10.0},
        minimum=1,
    ),
    suite.Int("ExpHawkes.K", "K", lambda v: ExpHawkes(v), minimum=1),
    suite.Int("GaussHawkes.K", "K", lambda v: GaussHawkes(v), minimum=1),
    suite.Int("InhomogeneousPoisson.basis", "basis", lambda v: InhomogeneousPoisson(v), minimum=0),
    suite.keyword(suite.Int, InhomogeneousPoisson, "n_quad", 1, minimum=1),
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
    ),
    suite.Array(
        "simulate_hawkes.A[K,K]",
        "A",
        lambda v: simulate_hawkes(np.ones(2), v, 1.0, 5.0, rng=0),
        (2, 2),
        (2,),
    ),
    suite.Array("weight.t", "t", lambda v: weight(v, 0.0, 100.0), (3,), (1,)),
    suite.Array("weight.tprev", "tprev", lambda v: weight(TIMES, v, 100.0), (3,), (0, 1)),
    suite.Array("weight.T[M]", "T", lambda v: weight(TIMES, 0.0, v), (3,), (0, 1)),
    suite.Array("fit.seqs.times", "seqs", lambda v: _fit(seqs=[v]), (3,), (1,)),
    suite.keyword(
        suite.Array,
        _fit,
        "T",
        kwargs={"seqs": [SEQ1, SEQ1]},
        id="fit.T[S]",
        shape=(2,),
        ndims=(0, 1),
    ),
    *(
        suite.Array(
            f"{fn.__name__}.seqs.times", "seqs", lambda v, fn=fn: fn(EXP1, [v], T=10.0), (3,), (1,)
        )
        for fn in (objective, log_likelihood, type_accuracy)
    ),
    suite.keyword(suite.Array, ExpHawkes, "mu", 2, shape=(2,), ndims=(1,)),
    suite.keyword(suite.Array, ExpHawkes, "A", 2, shape=(2, 2), ndims=(2,)),
    suite.keyword(suite.Array, GaussHawkes, "mu", 2, shape=(2,), ndims=(1,)),
    suite.keyword(suite.Array, GaussHawkes, "A", 2, shape=(2, 2), ndims=(2,)),
    suite.keyword(suite.Array, InhomogeneousPoisson, "weights", 1, shape=(2,), ndims=(1,)),
    suite.Array("ExpHawkes.intensity.t", "t", lambda v: EXP1.intensity(v, SEQ1), (3,), (0, 1)),
    suite.Array("GaussHawkes.intensity.t", "t", lambda v: GAUSS1.intensity(v, SEQ1), (3,), (0, 1)),
    suite.Array("InhomogeneousPoisson.intensity.t", "t", lambda v: POIS.intensity(v), (3,), (0, 1)),
    *(
        suite.Array(f"{m}.intensity.history", "history", f, (3,), (1,), empty_ok=True)
        for m, f in [
            ("ExpHawkes", lambda v: EXP1.intensity([3.0], v)),
            ("GaussHawkes", lambda v: GAUSS1.intensity([3.0], v)),
        ]
    ),
    suite.Array(
        "ExpHawkes.score_terms.seq", "seq", lambda v: EXP1.score_terms(v, T=10.0), (3,), (1,)
    ),
    suite.Array(
        "InhomogeneousPoisson.score_terms.seq",
        "seq",
        lambda v: POIS.score_terms(v, T=10.0),
        (3,),
        (1,),
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
    suite.keyword(
        suite.Option, simulate_hawkes, "kernel", 0.5, 0.5, 1.0, 5.0, valid=frozenset(_VALID)
    ),
    suite.keyword(suite.Option, _fit, "method", id="fit.method", valid=frozenset(_VALID)),
    suite.keyword(suite.Option, _fit, "weight", id="fit.weight", valid=frozenset(_VALID)),
    suite.keyword(
        suite.Option, objective, "method", EXP1, [SEQ1], kwargs={"T": 10.0}, valid=frozenset(_VALID)
    ),
    suite.keyword(
        suite.Option, objective, "weight", EXP1, [SEQ1], kwargs={"T": 10.0}, valid=frozenset(_VALID)
    ),
    suite.keyword(suite.Option, weight, "kind", TIMES, 0.0, 10.0, valid=frozenset(_VALID)),
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
    suite.keyword(suite.Rng, simulate_hawkes, "rng", 0.5, 0.5, 1.0, 5.0),
    suite.keyword(
        suite.Rng,
        simulate_hawkes,
        "rng",
        0.5,
        0.5,
        1.0,
        5.0,
        kwargs={"kernel": "gauss", "sigma": 0.5},
        id="simulate_hawkes.gauss.rng",
    ),
    suite.keyword(suite.Rng, simulate_poisson, "rng", 1.0, 5.0),
    suite.keyword(suite.Rng, _fit, "rng", kwargs={"method": "dsm"}, id="fit.rng.dsm"),
    suite.keyword(suite.Rng, _fit, "rng", id="fit.rng.awsm"),
    suite.keyword(suite.Rng, objective, "rng", EXP1, [SEQ1], kwargs={"method": "dsm", "T": 10.0}),
]


def test_good_rng_forms_still_work():
    a = simulate_hawkes(0.5, 0.5, 1.0, 5.0, rng=np.random.default_rng(3))
    b = simulate_hawkes(0.5, 0.5, 1.0, 5.0, rng=3)
    np.testing.assert_array_equal(a[0], b[0])


globals().update(
    suite.bad_input_suite([*NUMBERS, *OUT_OF_RANGE, *INTS, *ARRAYS, *MISMATCH, *OPTIONS, *RNGS])
)
