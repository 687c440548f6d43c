"""Bad input raises TypeError (wrong type) or ValueError (wrong value) naming the argument.

Every public function in ``stratppi.__all__`` is fed wrong types, wrong shapes, NaN/inf, empty
arrays, length mismatches and out-of-range options (hypothesis draws them).
"""

import numpy as np
import pytest
import stratppi as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from papershelf_harness import strategies as invalid
from papershelf_harness.testing import assert_rejects

FAST = settings(max_examples=6, deadline=None, derandomize=True)
n, N = 40, 200
rng = np.random.default_rng(0)
Y, F, FU = (rng.random(n) < 0.5).astype(float), rng.random(n), rng.random(N)
S, SU = np.arange(n) % 2, np.arange(N) % 2
X, XU = np.c_[np.ones(n), rng.normal(size=n)], np.c_[np.ones(N), rng.normal(size=N)]
MEAN = {"Y": Y, "Yhat": F, "Yhat_unlabeled": FU, "strata": S, "strata_unlabeled": SU}
REG = {
    "X": X,
    "Y": Y,
    "Yhat": F,
    "X_unlabeled": XU,
    "Yhat_unlabeled": FU,
    "strata": S,
    "strata_unlabeled": SU,
}
PPI_MEAN = {"Y": Y, "Yhat": F, "Yhat_unlabeled": FU}
PPI_REG = {"X": X, "Y": Y, "Yhat": F, "X_unlabeled": XU, "Yhat_unlabeled": FU}

STRAT_MEAN = [
    sp.stratppi_mean_ci,
    sp.stratppi_mean_pointestimate,
    sp.stratppi_mean_pval,
    sp.stratppi_mean_lam,
]
STRAT_REG = [
    sp.stratppi_ols_ci,
    sp.stratppi_ols_pointestimate,
    sp.stratppi_logistic_ci,
    sp.stratppi_logistic_pointestimate,
]
PPI_MEANS = [sp.ppi_mean_ci, sp.ppi_mean_pointestimate, sp.ppi_mean_pval]
PPI_REGS = [
    sp.ppi_ols_ci,
    sp.ppi_ols_pointestimate,
    sp.ppi_logistic_ci,
    sp.ppi_logistic_pointestimate,
    sp.ppi_logistic_pval,
]
CASES = (
    [(f, MEAN) for f in STRAT_MEAN + [sp.stratum_sigma]]
    + [(f, REG) for f in STRAT_REG]
    + [(f, PPI_MEAN) for f in PPI_MEANS]
    + [(f, PPI_REG) for f in PPI_REGS]
)
IDS = [f.__name__ for f, _ in CASES]
WITH_ALPHA = {
    sp.stratppi_mean_ci,
    sp.stratppi_ols_ci,
    sp.stratppi_logistic_ci,
    sp.ppi_mean_ci,
    sp.ppi_ols_ci,
    sp.ppi_logistic_ci,
}
WITH_ALTERNATIVE = WITH_ALPHA | {sp.stratppi_mean_pval, sp.ppi_mean_pval, sp.ppi_logistic_pval}
# arguments whose length must equal an earlier argument's
TIED = {
    id(MEAN): ["Yhat", "strata", "strata_unlabeled"],
    id(REG): ["Y", "Yhat", "Yhat_unlabeled", "strata", "strata_unlabeled"],
    id(PPI_MEAN): ["Yhat"],
    id(PPI_REG): ["Y", "Yhat", "Yhat_unlabeled"],
}


def _call(fn, data, **change):
    kw = {**data, **change}
    return fn(*[kw.pop(k) for k in data], **kw)


def _array_arg(data, which):
    """The ``which``-th (cyclically) numeric array argument of ``data`` (not the strata)."""
    arrays = [k for k in data if not k.startswith("strata")]
    return arrays[which % len(arrays)]


def _ok_ndims(fn, name):
    return (2,) if name.startswith("X") else (1,) if fn in STRAT_REG + PPI_REGS else (1, 2)


# wrong-value arrays (a ValueError naming the argument): strategy given (fn, data, name)
BAD_ARRAYS = {
    "nan_or_inf": lambda fn, data, name: invalid.non_finite_arrays(
        shape=data[name].shape, base=0.5
    ),
    "wrong_ndim": lambda fn, data, name: invalid.wrong_ndim_arrays(_ok_ndims(fn, name), max_side=3),
}


@pytest.mark.parametrize(("fn", "data"), CASES, ids=IDS)
@FAST
@given(value=invalid.non_numeric(), which=st.integers(0, 10))
def test_non_numeric_data(fn, data, value, which):
    name = _array_arg(data, which)
    assert_rejects(TypeError, name, _call, fn, data, **{name: value})


@pytest.mark.parametrize("kind", list(BAD_ARRAYS))
@pytest.mark.parametrize(("fn", "data"), CASES, ids=IDS)
@FAST
@given(which=st.integers(0, 10), where=st.data())
def test_bad_array_data(kind, fn, data, which, where):
    name = _array_arg(data, which)
    bad = where.draw(BAD_ARRAYS[kind](fn, data, name))
    assert_rejects(ValueError, name, _call, fn, data, **{name: bad})


@pytest.mark.parametrize(("fn", "data"), CASES, ids=IDS)
@FAST
@given(which=st.integers(0, 10), drop=st.integers(1, 5))
def test_length_mismatch_and_empty(fn, data, which, drop):
    tied = TIED[id(data)]
    name = tied[which % len(tied)]
    assert_rejects(ValueError, name, _call, fn, data, **{name: data[name][drop:]})
    name = list(data)[which % len(data)]
    assert_rejects(ValueError, name, _call, fn, data, **{name: data[name][:0]})


@pytest.mark.parametrize(
    ("fn", "data"),
    [c for c in CASES if c[0] in WITH_ALPHA],
    ids=lambda v: getattr(v, "__name__", ""),
)
@FAST
@given(alpha=st.one_of(invalid.bad_probabilities(), st.sampled_from([0.0, 1.0])))
def test_alpha_out_of_range(fn, data, alpha):
    assert_rejects(ValueError, "alpha", _call, fn, data, alpha=alpha)
    assert_rejects(TypeError, "alpha", _call, fn, data, alpha="0.1")


@pytest.mark.parametrize(
    ("fn", "data"),
    [c for c in CASES if c[0] in WITH_ALTERNATIVE],
    ids=lambda v: getattr(v, "__name__", ""),
)
@FAST
@given(
    alternative=st.text(max_size=8).filter(
        lambda s: s not in ("two-sided", "larger", "smaller", "greater", "less")
    )
)
def test_unknown_alternative(fn, data, alternative):
    assert_rejects(ValueError, "alternative", _call, fn, data, alternative=alternative)


@pytest.mark.parametrize(("fn", "data"), CASES, ids=IDS)
@FAST
@given(clip=st.one_of(st.integers(0, 1), st.text(max_size=3), st.none()))
def test_clip_must_be_bool(fn, data, clip):
    assert_rejects(TypeError, "clip", _call, fn, data, clip=clip)


@pytest.mark.parametrize(
    "fn",
    [
        sp.stratppi_mean_ci,
        sp.stratppi_mean_pval,
        sp.stratum_sigma,
        sp.stratppi_ols_ci,
        sp.ppi_mean_ci,
        sp.classical_mean_ci,
    ],
)
@FAST
@given(ddof=st.one_of(st.integers(2, 10), st.integers(-10, -1)))
def test_ddof_out_of_range(fn, ddof):
    data = {sp.stratppi_ols_ci: REG, sp.ppi_mean_ci: PPI_MEAN, sp.classical_mean_ci: {"Y": Y}}.get(
        fn, MEAN
    )
    assert_rejects(ValueError, "ddof", _call, fn, data, ddof=ddof)
    assert_rejects(TypeError, "ddof", _call, fn, data, ddof=True)


@pytest.mark.parametrize(
    ("fn", "data"), [(f, MEAN) for f in STRAT_MEAN] + [(f, PPI_MEAN) for f in PPI_MEANS]
)
@FAST
@given(mode=st.text(max_size=8).filter(lambda s: s not in ("overall", "element")))
def test_unknown_lam_optim_mode(fn, data, mode):
    assert_rejects(ValueError, "lam_optim_mode", _call, fn, data, lam_optim_mode=mode)


@pytest.mark.parametrize(
    ("fn", "data"),
    [c for c in CASES if c[0] is not sp.stratppi_mean_lam],
    ids=lambda v: getattr(v, "__name__", ""),
)
@FAST
@given(lam=st.one_of(st.just(np.nan), st.just(np.inf), st.just("one"), st.just([0.1, 0.2, 0.3])))
def test_bad_lam(fn, data, lam):
    float_only = fn in PPI_REGS  # ppi_py's regressions take one float lam
    exc = (
        TypeError if isinstance(lam, str) or (float_only and isinstance(lam, list)) else ValueError
    )
    assert_rejects(exc, "lam", _call, fn, data, lam=lam)


@pytest.mark.parametrize("fn", [f for f in STRAT_MEAN + STRAT_REG])
@FAST
@given(
    w=st.one_of(st.just([0.5]), st.just([-1.0, 2.0]), st.just([0.0, 0.0]), st.just([np.nan, 1.0]))
)
def test_bad_stratum_weights(fn, w):
    data = MEAN if fn in STRAT_MEAN else REG
    assert_rejects(ValueError, "weights", _call, fn, data, weights=w)


@pytest.mark.parametrize("name", ["strata", "strata_unlabeled"])
@FAST
@given(bad=st.one_of(st.just(0.5), st.none(), st.just({"a": 1}), st.just("abc")))
def test_bad_strata(name, bad):
    exc = ValueError if isinstance(bad, float) else TypeError
    assert_rejects(exc, name, _call, sp.stratppi_mean_ci, MEAN, **{name: bad})
    frac = MEAN[name] + 0.5  # non-integral float labels
    assert_rejects(TypeError, name, _call, sp.stratppi_mean_ci, MEAN, **{name: frac})
    mixed = np.array([1, "a"] * (len(MEAN[name]) // 2), dtype=object)
    assert_rejects(TypeError, name, _call, sp.stratppi_mean_ci, MEAN, **{name: mixed})


@pytest.mark.parametrize("fn", PPI_MEANS + PPI_REGS)
@FAST
@given(
    w=st.one_of(st.just(-np.ones(n)), st.just(np.ones(n - 1)), st.just(np.full(n, np.nan))),
    which=st.sampled_from(["w", "w_unlabeled"]),
)
def test_bad_sample_weights(fn, w, which):
    data = PPI_MEAN if fn in PPI_MEANS else PPI_REG
    if which == "w_unlabeled":
        w = np.r_[w, np.ones(N - n)] if w.shape[0] == n else np.ones(N + 1)
    assert_rejects(ValueError, which, _call, fn, data, **{which: w})


@pytest.mark.parametrize("fn", PPI_MEANS + PPI_REGS)
@FAST
@given(coord=st.one_of(st.integers(2, 50), st.integers(-50, -1), st.just(1.0)))
def test_bad_coord(fn, coord):
    data = PPI_MEAN if fn in PPI_MEANS else PPI_REG
    exc = TypeError if isinstance(coord, float) else ValueError
    assert_rejects(exc, "coord", _call, fn, data, coord=coord)


@pytest.mark.parametrize(
    "fn", [sp.ppi_logistic_ci, sp.ppi_logistic_pointestimate, sp.ppi_logistic_pval]
)
def test_bad_optimizer_options(fn):
    assert_rejects(
        TypeError, "optimizer_options", _call, fn, PPI_REG, optimizer_options=[("gtol", 1)]
    )
    assert_rejects(
        ValueError, "optimizer_options", _call, fn, PPI_REG, optimizer_options={"eps": 1}
    )
    assert_rejects(
        ValueError, "optimizer_options", _call, fn, PPI_REG, optimizer_options={"gtol": -1.0}
    )


@pytest.mark.parametrize("fn", STRAT_REG[2:] + PPI_REGS[2:])
def test_logistic_needs_binary_labels_and_probabilities(fn):
    data = REG if fn in STRAT_REG else PPI_REG
    assert_rejects(ValueError, "Y", _call, fn, data, Y=Y + 0.5)
    assert_rejects(ValueError, "Yhat", _call, fn, data, Yhat=F + 1.0)
    assert_rejects(ValueError, "Yhat_unlabeled", _call, fn, data, Yhat_unlabeled=FU - 1.0)


def test_null_must_match():
    assert_rejects(ValueError, "null", sp.stratppi_mean_pval, *MEAN.values(), null=[0.1, 0.2])
    assert_rejects(TypeError, "null", sp.ppi_mean_pval, Y, F, FU, null="zero")


# --- allocation, stratification, simulation -------------------------------------------------------


@FAST
@given(budget=invalid.non_integers())
def test_allocate_budget_type(budget):
    assert_rejects(TypeError, "budget", sp.allocate, budget, [0.5, 0.5])


@FAST
@given(budget=invalid.negative_or_zero_ints(), n_min=invalid.negative_or_zero_ints(-1))
def test_allocate_budget_and_n_min_range(budget, n_min):
    assert_rejects(ValueError, "budget", sp.allocate, budget, [0.5, 0.5])
    assert_rejects(ValueError, "n_min", sp.allocate, 10, [0.5, 0.5], n_min=n_min)
    assert_rejects(ValueError, "budget", sp.allocate, 3, [0.5, 0.5], n_min=2)


@FAST
@given(
    w=st.one_of(
        st.just([]),
        st.just([-0.1, 1.1]),
        st.just([0.0, 0.0]),
        st.just([np.nan, 1.0]),
        st.just([[0.5, 0.5]]),
    )
)
def test_allocate_bad_weights(w):
    assert_rejects(ValueError, "weights", sp.allocate, 10, w)


def test_allocate_bad_options():
    assert_rejects(ValueError, "method", sp.allocate, 10, [0.5, 0.5], method="neyman")
    assert_rejects(TypeError, "method", sp.allocate, 10, [0.5, 0.5], method=1)
    assert_rejects(ValueError, "sigma", sp.allocate, 10, [0.5, 0.5], method="optimal")
    assert_rejects(ValueError, "sigma", sp.allocate, 10, [0.5, 0.5], sigma=[1.0], method="optimal")
    assert_rejects(
        ValueError, "sigma", sp.allocate, 10, [0.5, 0.5], sigma=[-1.0, 1.0], method="optimal"
    )
    assert_rejects(ValueError, "scores", sp.allocate, 10, [0.5, 0.5], method="heuristic")
    assert_rejects(
        ValueError,
        "scores[0]",
        sp.allocate,
        10,
        [0.5, 0.5],
        scores=[[0.2, 1.5], [0.3]],
        method="heuristic",
    )
    assert_rejects(TypeError, "scores", sp.allocate, 10, [0.5, 0.5], scores=0.5, method="heuristic")
    assert_rejects(ValueError, "caps", sp.allocate, 10, [0.5, 0.5], caps=[3, 3])
    assert_rejects(ValueError, "caps", sp.allocate, 10, [0.5, 0.5], caps=[1, 20])
    assert_rejects(ValueError, "caps", sp.allocate, 10, [0.5, 0.5], caps=[5, 5, 5])
    assert_rejects(TypeError, "caps", sp.allocate, 10, [0.5, 0.5], caps=[5.5, 5])


@FAST
@given(K=invalid.non_integers())
def test_make_strata_bad_K(K):
    assert_rejects(TypeError, "K", sp.make_strata, [0.1, 0.2], K=K)


def test_make_strata_bad_values():
    assert_rejects(ValueError, "K", sp.make_strata, [0.1, 0.2], K=0)
    assert_rejects(ValueError, "method", sp.make_strata, [0.1, 0.2], method="kmeans")
    assert_rejects(ValueError, "scores", sp.make_strata, [0.1, np.nan])
    assert_rejects(ValueError, "scores", sp.make_strata, [])
    assert_rejects(ValueError, "edges", sp.make_strata, [0.1, 0.2], edges=[0.5, 0.1])
    assert_rejects(TypeError, "scores", sp.make_strata, "abc")


def test_neyman_variance_and_heuristic_sigma():
    assert_rejects(ValueError, "n_k", sp.neyman_variance, [0, 10], [0.5, 0.5], [1.0, 1.0])
    assert_rejects(ValueError, "sigma", sp.neyman_variance, [5, 10], [0.5, 0.5], [1.0])
    assert_rejects(ValueError, "weights", sp.neyman_variance, [5, 10], [0.5], [1.0, 1.0])
    assert_rejects(ValueError, "scores", sp.heuristic_sigma, [])
    assert_rejects(ValueError, "scores[1]", sp.heuristic_sigma, [[0.5], [np.inf]])


@FAST
@given(rng_=invalid.not_rngs())
def test_simulate_rng(rng_):
    assert_rejects((TypeError, ValueError), "rng", sp.simulate, n=100, N=1000, rng=rng_)


def test_simulate_bad_values():
    assert_rejects(ValueError, "p", sp.simulate, n=100, N=1000, p=(1.5, 0.5, 0.5, 0.5))
    assert_rejects(ValueError, "q", sp.simulate, n=100, N=1000, q=(0.5,))
    assert_rejects(ValueError, "n", sp.simulate, n=3, N=1000)
    assert_rejects(TypeError, "N", sp.simulate, n=100, N=10.5)
    assert_rejects(ValueError, "n_k", sp.simulate, N=1000, n_k=[10, 10])
    assert_rejects(ValueError, "lam", sp.oracle_sigma, lam=[0.5, 0.5])
