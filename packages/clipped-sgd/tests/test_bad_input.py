"""Bad input gets a TypeError (wrong type) or ValueError (wrong value) naming the argument.

Every public function and class of ``clipped_sgd`` is probed with wrong types, bools where a
number is expected, NaN/inf, out-of-range values, wrong shapes, empty arrays, length mismatches,
unknown options and bad seeds. Each case is ``(id, name, call)``: ``call(value)`` feeds ``value``
as the argument ``name`` with every other argument valid.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from clipped_sgd import (
    ClippedSGD,
    PlainSGD,
    StreamingLinearRegression,
    StreamingLogisticRegression,
    StreamingMean,
    clip_level,
    clip_norm,
    estimate_noise_trace,
    geometric_median,
    geometric_median_of_means,
    heavy_tailed_noise,
    median_of_means,
    project_ball,
    sample_mean,
    strongly_convex_step,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from papershelf_harness.strategies import (
    negative_or_zero_ints,
    non_finite_arrays,
    non_integers,
    non_numeric,
    not_rngs,
    wrong_ndim_arrays,
)
from papershelf_harness.testing import assert_rejects

FEW = settings(max_examples=5, deadline=None)

_rng = np.random.default_rng(0)
X = _rng.standard_normal((20, 2))  # (n, d) rows for the estimators
Y = X @ np.array([1.0, -1.0]) + 0.1 * _rng.standard_normal(20)  # (n,) regression target
S = np.tile([0, 1], 10)  # (n,) binary labels
XS = _rng.standard_normal((10, 3))  # (n, d) for the batch baselines


LINREG = StreamingLinearRegression().fit(X, Y)
LOGREG = StreamingLogisticRegression().fit(X, S)


def _ids(cases):
    return [c[0] for c in cases]


# --- real-number arguments: (id, name, call, none_ok, inf_ok) ---------------------------------
NUMBERS = [
    ("clip_norm.level", "level", lambda v: clip_norm(np.ones(3), v), False, True),
    ("clip_level.noise_trace", "noise_trace", lambda v: clip_level(v, 10), False, False),
    ("clip_level.delta", "delta", lambda v: clip_level(1.0, 10, delta=v), False, False),
    ("clip_level.c", "c", lambda v: clip_level(1.0, 10, c=v), False, False),
    (
        "clip_level.grad_norm_init",
        "grad_norm_init",
        lambda v: clip_level(1.0, 10, grad_norm_init=v),
        False,
        False,
    ),
    ("strongly_convex_step.t", "t", lambda v: strongly_convex_step(v), False, False),
    ("strongly_convex_step.mu", "mu", lambda v: strongly_convex_step(1, mu=v, L=1e9), False, False),
    ("strongly_convex_step.L", "L", lambda v: strongly_convex_step(1, L=v), False, False),
    ("strongly_convex_step.t0", "t0", lambda v: strongly_convex_step(1, t0=v), True, False),
    ("project_ball.radius", "radius", lambda v: project_ball(np.ones(2), v), False, False),
    ("ClippedSGD.mu", "mu", lambda v: ClippedSGD(2, mu=v, L=1e9), False, False),
    ("ClippedSGD.L", "L", lambda v: ClippedSGD(2, L=v), False, False),
    ("ClippedSGD.t0", "t0", lambda v: ClippedSGD(2, t0=v), True, False),
    ("ClippedSGD.lr", "lr", lambda v: ClippedSGD(2, step=0.1, lr=v), True, False),
    ("ClippedSGD.clip", "clip", lambda v: ClippedSGD(2, clip=v), True, True),
    ("PlainSGD.mu", "mu", lambda v: PlainSGD(2, mu=v, L=1e9), False, False),
    (
        "ClippedSGD.projection.radius",
        "projection",
        lambda v: ClippedSGD(2, projection=("ball", v)),
        False,
        False,
    ),
    ("median_of_means.delta", "delta", lambda v: median_of_means(XS, delta=v), False, False),
    (
        "geometric_median_of_means.delta",
        "delta",
        lambda v: geometric_median_of_means(XS, delta=v),
        False,
        False,
    ),
    ("geometric_median.tol", "tol", lambda v: geometric_median(XS, tol=v), False, False),
    ("heavy_tailed_noise.tail", "tail", lambda v: heavy_tailed_noise(3, tail=v), False, False),
    ("StreamingMean.clip", "clip", lambda v: StreamingMean(clip=v).fit(X), True, True),
    ("StreamingMean.delta", "delta", lambda v: StreamingMean(delta=v).fit(X), False, False),
    ("StreamingMean.c", "c", lambda v: StreamingMean(c=v).fit(X), False, False),
    (
        "StreamingLinearRegression.mu",
        "mu",
        lambda v: StreamingLinearRegression(mu=v, L=1e9).fit(X, Y),
        False,
        False,
    ),
    (
        "StreamingLinearRegression.L",
        "L",
        lambda v: StreamingLinearRegression(mu=1e-9, L=v).fit(X, Y),
        False,
        False,
    ),
    (
        "StreamingLogisticRegression.c",
        "c",
        lambda v: StreamingLogisticRegression(c=v).fit(X, S),
        False,
        False,
    ),
]


@pytest.mark.parametrize("case", NUMBERS, ids=_ids(NUMBERS))
@FEW
@given(value=non_numeric().filter(lambda v: not isinstance(v, str)))
def test_non_numeric_number_is_a_type_error(case, value):
    _, name, call, none_ok, _ = case
    if value is None and none_ok:
        return
    assert_rejects(TypeError, name, call, value)


@pytest.mark.parametrize("case", NUMBERS, ids=_ids(NUMBERS))
@pytest.mark.parametrize("value", [True, False], ids=["True", "False"])
def test_bool_number_is_a_type_error(case, value):
    _, name, call, _, _ = case
    assert_rejects(TypeError, name, call, value)


@pytest.mark.parametrize("case", NUMBERS, ids=_ids(NUMBERS))
@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf], ids=["nan", "inf", "-inf"])
def test_non_finite_number_is_a_value_error(case, value):
    _, name, call, _, inf_ok = case
    if inf_ok and value == math.inf:
        call(value)  # inf is meaningful here (no clipping)
        return
    assert_rejects(ValueError, name, call, value)


# --- numbers out of their range: (id, name, call, strategy of bad values) ---------------------
def _floats(lo=None, hi=None):
    return st.floats(min_value=lo, max_value=hi, allow_nan=False, allow_infinity=False)


OUT_OF_RANGE = [
    ("clip_norm.level", "level", lambda v: clip_norm(np.ones(3), v), _floats(hi=0.0)),
    ("clip_level.noise_trace", "noise_trace", lambda v: clip_level(v, 10), _floats(hi=-1e-9)),
    ("clip_level.delta<=0", "delta", lambda v: clip_level(1.0, 10, delta=v), _floats(hi=0.0)),
    ("clip_level.delta>=1", "delta", lambda v: clip_level(1.0, 10, delta=v), _floats(lo=1.0)),
    ("clip_level.c", "c", lambda v: clip_level(1.0, 10, c=v), _floats(hi=0.0)),
    (
        "clip_level.grad_norm_init",
        "grad_norm_init",
        lambda v: clip_level(1.0, 10, grad_norm_init=v),
        _floats(hi=-1e-9),
    ),
    ("strongly_convex_step.t", "t", lambda v: strongly_convex_step(v), _floats(hi=0.999)),
    ("strongly_convex_step.mu", "mu", lambda v: strongly_convex_step(1, mu=v), _floats(hi=0.0)),
    (
        "strongly_convex_step.L<mu",
        "L",
        lambda v: strongly_convex_step(1, mu=2.0, L=v),
        _floats(1e-6, 1.999),
    ),
    ("strongly_convex_step.t0", "t0", lambda v: strongly_convex_step(1, t0=v), _floats(hi=-1.0)),
    ("project_ball.radius", "radius", lambda v: project_ball(np.ones(2), v), _floats(hi=0.0)),
    ("ClippedSGD.mu", "mu", lambda v: ClippedSGD(2, mu=v), _floats(hi=0.0)),
    ("ClippedSGD.L<mu", "L", lambda v: ClippedSGD(2, mu=2.0, L=v), _floats(1e-6, 1.999)),
    ("ClippedSGD.lr", "lr", lambda v: ClippedSGD(2, step="constant", lr=v), _floats(hi=0.0)),
    ("ClippedSGD.step", "step", lambda v: ClippedSGD(2, step=v), _floats(hi=0.0)),
    ("ClippedSGD.clip", "clip", lambda v: ClippedSGD(2, clip=v), _floats(hi=0.0)),
    (
        "ClippedSGD.projection.radius",
        "projection",
        lambda v: ClippedSGD(2, projection=("ball", v)),
        _floats(hi=0.0),
    ),
    ("median_of_means.delta", "delta", lambda v: median_of_means(XS, delta=v), _floats(lo=1.0)),
    ("geometric_median.tol", "tol", lambda v: geometric_median(XS, tol=v), _floats(hi=-1e-9)),
    (
        "heavy_tailed_noise.tail.student_t",
        "tail",
        lambda v: heavy_tailed_noise(3, kind="student_t", tail=v),
        _floats(hi=2.0),
    ),
    (
        "heavy_tailed_noise.tail.pareto",
        "tail",
        lambda v: heavy_tailed_noise(3, kind="pareto", tail=v),
        _floats(hi=2.0),
    ),
    (
        "heavy_tailed_noise.tail.lognormal",
        "tail",
        lambda v: heavy_tailed_noise(3, kind="lognormal", tail=v),
        _floats(hi=0.0),
    ),
    ("StreamingMean.clip", "clip", lambda v: StreamingMean(clip=v).fit(X), _floats(hi=0.0)),
    ("StreamingMean.delta>=1", "delta", lambda v: StreamingMean(delta=v).fit(X), _floats(lo=1.0)),
    ("StreamingMean.delta<=0", "delta", lambda v: StreamingMean(delta=v).fit(X), _floats(hi=0.0)),
    ("StreamingMean.c", "c", lambda v: StreamingMean(c=v).fit(X), _floats(hi=0.0)),
    (
        "StreamingLinearRegression.mu",
        "mu",
        lambda v: StreamingLinearRegression(mu=v).fit(X, Y),
        _floats(hi=0.0),
    ),
    (
        "StreamingLinearRegression.L<mu",
        "L",
        lambda v: StreamingLinearRegression(mu=2.0, L=v).fit(X, Y),
        _floats(1e-6, 1.999),
    ),
]


@pytest.mark.parametrize("case", OUT_OF_RANGE, ids=_ids(OUT_OF_RANGE))
@FEW
@given(data=st.data())
def test_out_of_range_number_is_a_value_error(case, data):
    _, name, call, values = case
    assert_rejects(ValueError, name, call, data.draw(values))


# --- integer arguments: (id, name, call, minimum, none_ok) ------------------------------------
INTS = [
    ("ClippedSGD.dim", "dim", lambda v: ClippedSGD(v), 1, False),
    ("PlainSGD.dim", "dim", lambda v: PlainSGD(v), 1, False),
    (
        "ClippedSGD.current_clip_level.t",
        "t",
        lambda v: ClippedSGD(2).current_clip_level(v),
        1,
        True,
    ),
    ("clip_level.horizon", "horizon", lambda v: clip_level(1.0, v), 1, False),
    (
        "estimate_noise_trace.n_blocks",
        "n_blocks",
        lambda v: estimate_noise_trace(XS, n_blocks=v),
        1,
        True,
    ),
    ("median_of_means.n_blocks", "n_blocks", lambda v: median_of_means(XS, n_blocks=v), 1, True),
    (
        "geometric_median_of_means.n_blocks",
        "n_blocks",
        lambda v: geometric_median_of_means(XS, n_blocks=v),
        1,
        True,
    ),
    ("geometric_median.max_iter", "max_iter", lambda v: geometric_median(XS, max_iter=v), 1, False),
    (
        "geometric_median_of_means.max_iter",
        "max_iter",
        lambda v: geometric_median_of_means(XS, max_iter=v),
        1,
        False,
    ),
    ("heavy_tailed_noise.size", "size", lambda v: heavy_tailed_noise(v), 0, False),
    ("heavy_tailed_noise.size[i]", "size", lambda v: heavy_tailed_noise((2, v)), 0, False),
    (
        "StreamingMean.batch_size",
        "batch_size",
        lambda v: StreamingMean(batch_size=v).fit(X),
        1,
        False,
    ),
    (
        "StreamingMean.horizon",
        "horizon",
        lambda v: StreamingMean(horizon=v).partial_fit(X),
        1,
        True,
    ),
    (
        "StreamingLinearRegression.batch_size",
        "batch_size",
        lambda v: StreamingLinearRegression(batch_size=v).fit(X, Y),
        1,
        False,
    ),
    (
        "StreamingLogisticRegression.horizon",
        "horizon",
        lambda v: StreamingLogisticRegression(horizon=v).partial_fit(X, S, classes=[0, 1]),
        1,
        True,
    ),
]


@pytest.mark.parametrize("case", INTS, ids=_ids(INTS))
@FEW
@given(value=non_integers())
def test_non_integer_is_a_type_error(case, value):
    _, name, call, _, none_ok = case
    if value is None and none_ok:
        return
    assert_rejects(TypeError, name, call, value)


@pytest.mark.parametrize("case", INTS, ids=_ids(INTS))
@FEW
@given(data=st.data())
def test_integer_below_minimum_is_a_value_error(case, data):
    _, name, call, minimum, _ = case
    assert_rejects(ValueError, name, call, data.draw(negative_or_zero_ints(maximum=minimum - 1)))


def test_more_blocks_than_rows_is_a_value_error():
    # n_blocks > n used to be capped at n silently
    for fn in (median_of_means, geometric_median_of_means, estimate_noise_trace):
        assert_rejects(ValueError, "n_blocks", fn, XS, n_blocks=XS.shape[0] + 1)


# --- bool flags -------------------------------------------------------------------------------
BOOLS = [
    ("ClippedSGD.average", "average", lambda v: ClippedSGD(2, average=v)),
    ("StreamingMean.average", "average", lambda v: StreamingMean(average=v).fit(X)),
    ("StreamingMean.shuffle", "shuffle", lambda v: StreamingMean(shuffle=v).fit(X)),
    (
        "StreamingLinearRegression.fit_intercept",
        "fit_intercept",
        lambda v: StreamingLinearRegression(fit_intercept=v).fit(X, Y),
    ),
    (
        "StreamingLogisticRegression.fit_intercept",
        "fit_intercept",
        lambda v: StreamingLogisticRegression(fit_intercept=v).fit(X, S),
    ),
]


@pytest.mark.parametrize("case", BOOLS, ids=_ids(BOOLS))
@pytest.mark.parametrize("value", [0, 1, "yes", "False", None, 1.0], ids=repr)
def test_non_bool_flag_is_a_type_error(case, value):
    _, name, call = case
    assert_rejects(TypeError, name, call, value)


# --- array arguments: (id, name, call, good shape, allowed ndims, none_ok) --------------------
ARRAYS = [
    ("clip_norm.v", "v", lambda v: clip_norm(v, 1.0), (3,), (1, 2, 3, 4), False),
    ("project_ball.x", "x", lambda v: project_ball(v, 1.0), (3,), (1, 2, 3, 4), False),
    (
        "project_ball.center",
        "center",
        lambda v: project_ball(np.ones(3), 1.0, center=v),
        (3,),
        (1,),
        True,
    ),
    ("estimate_noise_trace.G", "G", lambda v: estimate_noise_trace(v), (10, 3), (2,), False),
    ("sample_mean.X", "X", lambda v: sample_mean(v), (10, 3), (2, 3, 4), False),
    ("median_of_means.X", "X", lambda v: median_of_means(v), (10, 3), (2, 3, 4), False),
    ("geometric_median.Z", "Z", lambda v: geometric_median(v), (10, 3), (2, 3, 4), False),
    (
        "geometric_median_of_means.X",
        "X",
        lambda v: geometric_median_of_means(v),
        (10, 3),
        (2, 3, 4),
        False,
    ),
    ("ClippedSGD.x0", "x0", lambda v: ClippedSGD(2, x0=v), (2,), (1, 2, 3, 4), True),
    ("ClippedSGD.step.g", "g", lambda v: ClippedSGD(2).step(v), (2,), (1,), False),
    ("StreamingMean.fit.X", "X", lambda v: StreamingMean().fit(v), (20, 2), (2,), False),
    (
        "StreamingMean.partial_fit.X",
        "X",
        lambda v: StreamingMean().partial_fit(v),
        (20, 2),
        (2,),
        False,
    ),
    (
        "StreamingLinearRegression.fit.X",
        "X",
        lambda v: StreamingLinearRegression().fit(v, Y),
        (20, 2),
        (2,),
        False,
    ),
    (
        "StreamingLinearRegression.fit.y",
        "y",
        lambda v: StreamingLinearRegression().fit(X, v),
        (20,),
        (1,),
        True,  # y=None: scikit-learn's ValueError "requires y to be passed" (see below)
    ),
    (
        "StreamingLinearRegression.partial_fit.y",
        "y",
        lambda v: StreamingLinearRegression().partial_fit(X, v),
        (20,),
        (1,),
        True,
    ),
    ("StreamingLinearRegression.predict.X", "X", lambda v: LINREG.predict(v), (5, 2), (2,), False),
    (
        "StreamingLogisticRegression.fit.X",
        "X",
        lambda v: StreamingLogisticRegression().fit(v, S),
        (20, 2),
        (2,),
        False,
    ),
    (
        "StreamingLogisticRegression.predict_proba.X",
        "X",
        lambda v: LOGREG.predict_proba(v),
        (5, 2),
        (2,),
        False,
    ),
]


@pytest.mark.parametrize("case", ARRAYS, ids=_ids(ARRAYS))
@FEW
@given(data=st.data())
def test_nan_or_inf_array_is_a_value_error(case, data):
    _, name, call, shape, _, _ = case
    assert_rejects(ValueError, name, call, data.draw(non_finite_arrays(shape=shape)))


@pytest.mark.parametrize("case", ARRAYS, ids=_ids(ARRAYS))
@FEW
@given(data=st.data())
def test_wrong_ndim_array_is_a_value_error(case, data):
    _, name, call, _, ndims, _ = case
    assert_rejects(ValueError, name, call, data.draw(wrong_ndim_arrays(ndims)))


@pytest.mark.parametrize("case", ARRAYS, ids=_ids(ARRAYS))
def test_empty_array_is_a_value_error(case):
    _, name, call, shape, _, _ = case
    for axis in range(len(shape)):
        empty = np.zeros(tuple(0 if i == axis else s for i, s in enumerate(shape)))
        assert_rejects(ValueError, name, call, empty)


@pytest.mark.parametrize("case", ARRAYS, ids=_ids(ARRAYS))
@FEW
@given(value=non_numeric())
def test_non_numeric_array_is_a_type_error(case, value):
    _, name, call, _, _, none_ok = case
    if value is None and none_ok:
        return
    assert_rejects(TypeError, name, call, value)


@pytest.mark.parametrize("case", ARRAYS, ids=_ids(ARRAYS))
def test_string_array_is_a_type_error(case):
    _, name, call, shape, _, _ = case
    assert_rejects(TypeError, name, call, np.full(shape, "a"))


# --- length / shape mismatches ----------------------------------------------------------------
MISMATCH = [
    ("ClippedSGD.step.g", "g", lambda: ClippedSGD(2).step(np.ones(3))),
    ("ClippedSGD.x0", "x0", lambda: ClippedSGD(2, x0=np.zeros((4, 3)))),
    ("project_ball.center", "center", lambda: project_ball(np.ones(3), 1.0, center=np.ones(2))),
    ("clip_norm.level", "level", lambda: clip_norm(np.ones((4, 3)), np.ones(3))),
    ("StreamingLinearRegression.fit.y", "y", lambda: StreamingLinearRegression().fit(X, Y[:-1])),
    (
        "StreamingLinearRegression.partial_fit.y",
        "y",
        lambda: StreamingLinearRegression().partial_fit(X[:5], Y),
    ),
    ("StreamingLogisticRegression.fit.y", "y", lambda: StreamingLogisticRegression().fit(X, S[:7])),
    ("StreamingMean.partial_fit.X", "X", lambda: StreamingMean().fit(X).partial_fit(XS)),
    ("StreamingLinearRegression.predict.X", "X", lambda: LINREG.predict(XS)),
]


@pytest.mark.parametrize("case", MISMATCH, ids=_ids(MISMATCH))
def test_mismatched_shape_is_a_value_error(case):
    _, name, call = case
    assert_rejects(ValueError, name, call)


def test_too_few_rows_or_labels_are_value_errors():
    assert_rejects(ValueError, "G", estimate_noise_trace, np.ones((1, 3)))  # needs m >= 2
    # clip="auto" needs a pilot of >= 2 rows
    assert_rejects(ValueError, "samples", StreamingMean().fit, np.ones((1, 3)))
    assert_rejects(ValueError, "y", StreamingLogisticRegression().fit, X, np.arange(20) % 3)
    clf = StreamingLogisticRegression().partial_fit(X, S)
    assert_rejects(ValueError, "y", clf.partial_fit, X[:2], [0, 5])  # a label outside classes_


def test_missing_required_values_are_value_errors():
    assert_rejects(ValueError, "lr", ClippedSGD, 2, step="constant")
    assert_rejects(ValueError, "y", StreamingLinearRegression().fit, X, None)  # scikit-learn's rule


def test_regression_target_of_strings_is_a_type_error():
    # used to reach numpy's lstsq: "Cannot cast ufunc 'lstsq' input 1 from dtype('<U1')"
    assert_rejects(TypeError, "y", StreamingLinearRegression().fit, X, np.full(20, "a"))


def test_continuous_labels_name_y():
    assert_rejects(ValueError, "y", StreamingLogisticRegression().fit, X, np.linspace(0, 1, 20))


def test_classes_must_be_two_labels():
    assert_rejects(
        ValueError, "classes", StreamingLogisticRegression().partial_fit, X, S, classes=[0]
    )
    assert_rejects(
        ValueError, "classes", StreamingLogisticRegression().partial_fit, X, S, classes=[[0, 1]]
    )


# --- options ----------------------------------------------------------------------------------
OPTIONS = [
    ("ClippedSGD.step", "step", lambda v: ClippedSGD(2, step=v)),
    ("ClippedSGD.projection", "projection", lambda v: ClippedSGD(2, projection=(v, 1.0))),
    ("heavy_tailed_noise.kind", "kind", lambda v: heavy_tailed_noise(3, kind=v)),
    ("StreamingMean.clip", "clip", lambda v: StreamingMean(clip=v).fit(X)),
    ("StreamingLinearRegression.mu", "mu", lambda v: StreamingLinearRegression(mu=v).fit(X, Y)),
    ("StreamingLogisticRegression.L", "L", lambda v: StreamingLogisticRegression(L=v).fit(X, S)),
]
_OK_STRINGS = {
    "auto",
    "strongly_convex",
    "constant",
    "ball",
    "student_t",
    "pareto",
    "lognormal",
    "gaussian",
}


@pytest.mark.parametrize("case", OPTIONS, ids=_ids(OPTIONS))
@FEW
@given(value=st.text(max_size=6).filter(lambda s: s not in _OK_STRINGS))
def test_unknown_option_is_a_value_error(case, value):
    _, name, call = case
    assert_rejects(ValueError, name, call, value)


def test_non_string_kind_is_a_type_error():
    for value in (5, None, 2.5, ["student_t"]):
        assert_rejects(TypeError, "kind", heavy_tailed_noise, 3, kind=value)


@pytest.mark.parametrize("value", ["ball", 3.0, {"ball": 1}, ("ball",), ("ball", 1.0, 2.0)])
def test_malformed_projection(value):
    exc = ValueError if isinstance(value, tuple) else TypeError
    assert_rejects(exc, "projection", ClippedSGD, 2, projection=value)


def test_non_callable_grad_fn_is_a_type_error():
    assert_rejects(TypeError, "grad_fn", ClippedSGD(2).partial_fit, "not a function", None)


def test_callable_clip_or_step_returning_nonsense_is_a_value_error():
    # a clip schedule returning a negative level used to flip the gradient silently, and NaN used
    # to disable clipping silently
    for bad in (-1.0, 0.0, math.nan):
        opt = ClippedSGD(2, clip=lambda t, b=bad: b)
        assert_rejects(ValueError, "clip", opt.step, np.array([3.0, 4.0]))
    for bad in (-1.0, 0.0, math.nan, math.inf):
        opt = ClippedSGD(2, step=lambda t, b=bad: b)
        assert_rejects(ValueError, "step", opt.step, np.array([3.0, 4.0]))


# --- randomness -------------------------------------------------------------------------------
RNGS = [
    ("heavy_tailed_noise.rng", "rng", lambda v: heavy_tailed_noise(3, rng=v)),
    (
        "StreamingMean.random_state",
        "random_state",
        lambda v: StreamingMean(shuffle=True, random_state=v).fit(X),
    ),
    (
        "StreamingLinearRegression.random_state",
        "random_state",
        lambda v: StreamingLinearRegression(shuffle=True, random_state=v).fit(X, Y),
    ),
]


@pytest.mark.parametrize("case", RNGS, ids=_ids(RNGS))
@FEW
@given(value=not_rngs())
def test_bad_rng_is_rejected(case, value):
    _, name, call = case
    exc = ValueError if isinstance(value, int) and not isinstance(value, bool) else TypeError
    assert_rejects(exc, name, call, value)


@pytest.mark.parametrize("case", RNGS, ids=_ids(RNGS))
def test_rng_abc_and_minus_one(case):
    _, name, call = case
    assert_rejects(TypeError, name, call, "abc")
    assert_rejects(ValueError, name, call, -1)


def test_good_rng_forms_still_work():
    a = heavy_tailed_noise(4, rng=np.random.default_rng(3))
    np.testing.assert_array_equal(a, heavy_tailed_noise(4, rng=3))
    est = StreamingMean(shuffle=True, random_state=np.random.default_rng(1)).fit(X)
    assert est.random_state is not None  # kept as given (scikit-learn convention)
