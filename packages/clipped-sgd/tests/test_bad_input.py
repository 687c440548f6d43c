"""Bad input gets a TypeError (wrong type) or ValueError (wrong value) naming the argument.

Every public function and class of ``clipped_sgd`` is probed with wrong types, bools where a
number is expected, NaN/inf, out-of-range values, wrong shapes, empty arrays, length mismatches,
unknown options and bad seeds. Each case is ``(id, name, call)``: ``call(value)`` feeds ``value``
as the argument ``name`` with every other argument valid.
"""

from __future__ import annotations

import dataclasses
import math

import clipped_sgd as cs
import numpy as np
import pytest
from hypothesis import settings
from hypothesis import strategies as st

from papershelf_harness import suite
from papershelf_harness.testing import assert_rejects

FEW = settings(max_examples=5, deadline=None)

_rng = np.random.default_rng(0)
X = _rng.standard_normal((20, 2))  # (n, d) rows for the estimators
Y = X @ np.array([1.0, -1.0]) + 0.1 * _rng.standard_normal(20)  # (n,) regression target
S = np.tile([0, 1], 10)  # (n,) binary labels
XS = _rng.standard_normal((10, 3))  # (n, d) for the batch baselines


LINREG = cs.StreamingLinearRegression().fit(X, Y)
LOGREG = cs.StreamingLogisticRegression().fit(X, S)


# --- real-number arguments: (id, name, call, none_ok, inf_ok) ---------------------------------
NUMBERS = [
    suite.Number(
        "clip_norm.level",
        "level",
        lambda v: cs.clip_norm(np.ones(3), v),
        inf_ok=True,
    ),
    suite.Number("clip_level.noise_trace", "noise_trace", lambda v: cs.clip_level(v, 10)),
    suite.keyword(suite.Number, cs.clip_level, "delta", 1.0, 10),
    suite.keyword(suite.Number, cs.clip_level, "c", 1.0, 10),
    suite.keyword(suite.Number, cs.clip_level, "grad_norm_init", 1.0, 10),
    suite.Number("strongly_convex_step.t", "t", lambda v: cs.strongly_convex_step(v)),
    suite.keyword(suite.Number, cs.strongly_convex_step, "mu", 1, kwargs={"L": 1000000000.0}),
    suite.keyword(suite.Number, cs.strongly_convex_step, "L", 1),
    suite.keyword(suite.Number, cs.strongly_convex_step, "t0", 1, none_ok=True),
    suite.Number(
        "project_ball.radius",
        "radius",
        lambda v: cs.project_ball(np.ones(2), v),
    ),
    suite.keyword(suite.Number, cs.ClippedSGD, "mu", 2, kwargs={"L": 1000000000.0}),
    suite.keyword(suite.Number, cs.ClippedSGD, "L", 2),
    suite.keyword(suite.Number, cs.ClippedSGD, "t0", 2, none_ok=True),
    suite.keyword(suite.Number, cs.ClippedSGD, "lr", 2, kwargs={"step": 0.1}, none_ok=True),
    suite.keyword(suite.Number, cs.ClippedSGD, "clip", 2, none_ok=True, inf_ok=True),
    suite.keyword(suite.Number, cs.PlainSGD, "mu", 2, kwargs={"L": 1000000000.0}),
    suite.Number(
        "ClippedSGD.projection.radius",
        "projection",
        lambda v: cs.ClippedSGD(2, projection=("ball", v)),
    ),
    suite.keyword(suite.Number, cs.median_of_means, "delta", XS),
    suite.keyword(suite.Number, cs.geometric_median_of_means, "delta", XS),
    suite.keyword(suite.Number, cs.geometric_median, "tol", XS),
    suite.keyword(suite.Number, cs.heavy_tailed_noise, "tail", 3),
    suite.Number(
        "StreamingMean.clip",
        "clip",
        lambda v: cs.StreamingMean(clip=v).fit(X),
        none_ok=True,
        inf_ok=True,
    ),
    suite.Number("StreamingMean.delta", "delta", lambda v: cs.StreamingMean(delta=v).fit(X)),
    suite.Number("StreamingMean.c", "c", lambda v: cs.StreamingMean(c=v).fit(X)),
    suite.Number(
        "StreamingLinearRegression.mu",
        "mu",
        lambda v: cs.StreamingLinearRegression(mu=v, L=1e9).fit(X, Y),
    ),
    suite.Number(
        "StreamingLinearRegression.L",
        "L",
        lambda v: cs.StreamingLinearRegression(mu=1e-9, L=v).fit(X, Y),
    ),
    suite.Number(
        "StreamingLogisticRegression.c",
        "c",
        lambda v: cs.StreamingLogisticRegression(c=v).fit(X, S),
    ),
]


# --- numbers out of their range: (id, name, call, strategy of bad values) ---------------------
def _floats(lo=None, hi=None):
    return st.floats(min_value=lo, max_value=hi, allow_nan=False, allow_infinity=False)


def _l_below_mu(fn, *args):
    """L < mu (no strongly convex function has it) is a ValueError naming L."""
    label = f"{fn.__name__}.L<mu"
    return suite.keyword(
        suite.OutOfRange, fn, "L", *args, kwargs={"mu": 2.0}, id=label, values=_floats(1e-06, 1.999)
    )


OUT_OF_RANGE = [
    suite.OutOfRange(
        "clip_norm.level", "level", lambda v: cs.clip_norm(np.ones(3), v), _floats(hi=0.0)
    ),
    suite.OutOfRange(
        "clip_level.noise_trace", "noise_trace", lambda v: cs.clip_level(v, 10), _floats(hi=-1e-9)
    ),
    *(
        suite.keyword(suite.OutOfRange, cs.clip_level, "delta", 1.0, 10, id=label, values=bad)
        for label, bad in [
            ("clip_level.delta<=0", _floats(hi=0.0)),
            ("clip_level.delta>=1", _floats(lo=1.0)),
        ]
    ),
    suite.keyword(suite.OutOfRange, cs.clip_level, "c", 1.0, 10, values=_floats(hi=0.0)),
    suite.keyword(
        suite.OutOfRange, cs.clip_level, "grad_norm_init", 1.0, 10, values=_floats(hi=-1e-09)
    ),
    suite.OutOfRange(
        "strongly_convex_step.t", "t", lambda v: cs.strongly_convex_step(v), _floats(hi=0.999)
    ),
    suite.keyword(suite.OutOfRange, cs.strongly_convex_step, "mu", 1, values=_floats(hi=0.0)),
    _l_below_mu(cs.strongly_convex_step, 1),
    suite.keyword(suite.OutOfRange, cs.strongly_convex_step, "t0", 1, values=_floats(hi=-1.0)),
    suite.OutOfRange(
        "project_ball.radius", "radius", lambda v: cs.project_ball(np.ones(2), v), _floats(hi=0.0)
    ),
    suite.keyword(suite.OutOfRange, cs.ClippedSGD, "mu", 2, values=_floats(hi=0.0)),
    _l_below_mu(cs.ClippedSGD, 2),
    suite.keyword(
        suite.OutOfRange,
        cs.ClippedSGD,
        "lr",
        2,
        kwargs={"step": "constant"},
        values=_floats(hi=0.0),
    ),
    suite.keyword(suite.OutOfRange, cs.ClippedSGD, "step", 2, values=_floats(hi=0.0)),
    suite.keyword(suite.OutOfRange, cs.ClippedSGD, "clip", 2, values=_floats(hi=0.0)),
    suite.OutOfRange(
        "ClippedSGD.projection.radius",
        "projection",
        lambda v: cs.ClippedSGD(2, projection=("ball", v)),
        _floats(hi=0.0),
    ),
    suite.keyword(suite.OutOfRange, cs.median_of_means, "delta", XS, values=_floats(lo=1.0)),
    suite.keyword(suite.OutOfRange, cs.geometric_median, "tol", XS, values=_floats(hi=-1e-09)),
    *(
        suite.keyword(
            suite.OutOfRange,
            cs.heavy_tailed_noise,
            "tail",
            3,
            kwargs={"kind": kind},
            id=f"heavy_tailed_noise.tail.{kind}",
            values=_floats(hi=hi),
        )
        for kind, hi in [("student_t", 2.0), ("pareto", 2.0), ("lognormal", 0.0)]
    ),
    suite.OutOfRange(
        "StreamingMean.clip", "clip", lambda v: cs.StreamingMean(clip=v).fit(X), _floats(hi=0.0)
    ),
    suite.OutOfRange(
        "StreamingMean.delta>=1",
        "delta",
        lambda v: cs.StreamingMean(delta=v).fit(X),
        _floats(lo=1.0),
    ),
    suite.OutOfRange(
        "StreamingMean.delta<=0",
        "delta",
        lambda v: cs.StreamingMean(delta=v).fit(X),
        _floats(hi=0.0),
    ),
    suite.OutOfRange(
        "StreamingMean.c", "c", lambda v: cs.StreamingMean(c=v).fit(X), _floats(hi=0.0)
    ),
    suite.OutOfRange(
        "StreamingLinearRegression.mu",
        "mu",
        lambda v: cs.StreamingLinearRegression(mu=v).fit(X, Y),
        _floats(hi=0.0),
    ),
    suite.OutOfRange(
        "StreamingLinearRegression.L<mu",
        "L",
        lambda v: cs.StreamingLinearRegression(mu=2.0, L=v).fit(X, Y),
        _floats(1e-6, 1.999),
    ),
]


# --- integer arguments: (id, name, call, minimum, none_ok) ------------------------------------
INTS = [
    suite.Int("ClippedSGD.dim", "dim", lambda v: cs.ClippedSGD(v), minimum=1),
    suite.Int("PlainSGD.dim", "dim", lambda v: cs.PlainSGD(v), minimum=1),
    suite.Int(
        "ClippedSGD.current_clip_level.t",
        "t",
        lambda v: cs.ClippedSGD(2).current_clip_level(v),
        minimum=1,
        none_ok=True,
    ),
    suite.Int("clip_level.horizon", "horizon", lambda v: cs.clip_level(1.0, v), minimum=1),
    suite.keyword(suite.Int, cs.estimate_noise_trace, "n_blocks", XS, minimum=1, none_ok=True),
    suite.keyword(suite.Int, cs.median_of_means, "n_blocks", XS, minimum=1, none_ok=True),
    suite.keyword(suite.Int, cs.geometric_median_of_means, "n_blocks", XS, minimum=1, none_ok=True),
    suite.keyword(suite.Int, cs.geometric_median, "max_iter", XS, minimum=1),
    suite.keyword(suite.Int, cs.geometric_median_of_means, "max_iter", XS, minimum=1),
    suite.Int("heavy_tailed_noise.size", "size", lambda v: cs.heavy_tailed_noise(v), minimum=0),
    suite.Int(
        "heavy_tailed_noise.size[i]",
        "size",
        lambda v: cs.heavy_tailed_noise((2, v)),
        minimum=0,
    ),
    suite.Int(
        "StreamingMean.batch_size",
        "batch_size",
        lambda v: cs.StreamingMean(batch_size=v).fit(X),
        minimum=1,
    ),
    suite.Int(
        "StreamingMean.horizon",
        "horizon",
        lambda v: cs.StreamingMean(horizon=v).partial_fit(X),
        minimum=1,
        none_ok=True,
    ),
    suite.Int(
        "StreamingLinearRegression.batch_size",
        "batch_size",
        lambda v: cs.StreamingLinearRegression(batch_size=v).fit(X, Y),
        minimum=1,
    ),
    suite.Int(
        "StreamingLogisticRegression.horizon",
        "horizon",
        lambda v: cs.StreamingLogisticRegression(horizon=v).partial_fit(X, S, classes=[0, 1]),
        minimum=1,
        none_ok=True,
    ),
]


def test_more_blocks_than_rows_is_a_value_error():
    # n_blocks > n used to be capped at n silently
    for fn in (cs.median_of_means, cs.geometric_median_of_means, cs.estimate_noise_trace):
        assert_rejects(ValueError, "n_blocks", fn, XS, n_blocks=XS.shape[0] + 1)


# --- bool flags -------------------------------------------------------------------------------
BOOLS = [
    suite.keyword(suite.Flag, cs.ClippedSGD, "average", 2),
    suite.Flag("StreamingMean.average", "average", lambda v: cs.StreamingMean(average=v).fit(X)),
    suite.Flag("StreamingMean.shuffle", "shuffle", lambda v: cs.StreamingMean(shuffle=v).fit(X)),
    suite.Flag(
        "StreamingLinearRegression.fit_intercept",
        "fit_intercept",
        lambda v: cs.StreamingLinearRegression(fit_intercept=v).fit(X, Y),
    ),
    suite.Flag(
        "StreamingLogisticRegression.fit_intercept",
        "fit_intercept",
        lambda v: cs.StreamingLogisticRegression(fit_intercept=v).fit(X, S),
    ),
]


# --- array arguments: (id, name, call, good shape, allowed ndims, none_ok) --------------------
ARRAYS = [
    suite.Array("clip_norm.v", "v", lambda v: cs.clip_norm(v, 1.0), (3,), (1, 2, 3, 4)),
    suite.Array("project_ball.x", "x", lambda v: cs.project_ball(v, 1.0), (3,), (1, 2, 3, 4)),
    suite.keyword(
        suite.Array,
        cs.project_ball,
        "center",
        np.ones(3),
        1.0,
        shape=(3,),
        ndims=(1,),
        none_ok=True,
    ),
    suite.Array("estimate_noise_trace.G", "G", lambda v: cs.estimate_noise_trace(v), (10, 3), (2,)),
    suite.Array("sample_mean.X", "X", lambda v: cs.sample_mean(v), (10, 3), (2, 3, 4)),
    suite.Array("median_of_means.X", "X", lambda v: cs.median_of_means(v), (10, 3), (2, 3, 4)),
    suite.Array("geometric_median.Z", "Z", lambda v: cs.geometric_median(v), (10, 3), (2, 3, 4)),
    suite.Array(
        "geometric_median_of_means.X",
        "X",
        lambda v: cs.geometric_median_of_means(v),
        (10, 3),
        (2, 3, 4),
    ),
    suite.keyword(
        suite.Array, cs.ClippedSGD, "x0", 2, shape=(2,), ndims=(1, 2, 3, 4), none_ok=True
    ),
    suite.Array("ClippedSGD.step.g", "g", lambda v: cs.ClippedSGD(2).step(v), (2,), (1,)),
    suite.Array("StreamingMean.fit.X", "X", lambda v: cs.StreamingMean().fit(v), (20, 2), (2,)),
    suite.Array(
        "StreamingMean.partial_fit.X",
        "X",
        lambda v: cs.StreamingMean().partial_fit(v),
        (20, 2),
        (2,),
    ),
    suite.Array(
        "StreamingLinearRegression.fit.X",
        "X",
        lambda v: cs.StreamingLinearRegression().fit(v, Y),
        (20, 2),
        (2,),
    ),
    *(
        suite.Array(f"StreamingLinearRegression.{m}.y", "y", call, (20,), (1,), none_ok=True)
        for m, call in [
            ("fit", lambda v: cs.StreamingLinearRegression().fit(X, v)),
            ("partial_fit", lambda v: cs.StreamingLinearRegression().partial_fit(X, v)),
        ]
    ),
    suite.Array(
        "StreamingLinearRegression.predict.X", "X", lambda v: LINREG.predict(v), (5, 2), (2,)
    ),
    suite.Array(
        "StreamingLogisticRegression.fit.X",
        "X",
        lambda v: cs.StreamingLogisticRegression().fit(v, S),
        (20, 2),
        (2,),
    ),
    suite.Array(
        "StreamingLogisticRegression.predict_proba.X",
        "X",
        lambda v: LOGREG.predict_proba(v),
        (5, 2),
        (2,),
    ),
]


# --- length / shape mismatches ----------------------------------------------------------------
MISMATCH = [
    suite.Mismatch("ClippedSGD.step.g", "g", lambda: cs.ClippedSGD(2).step(np.ones(3))),
    suite.Mismatch("ClippedSGD.x0", "x0", lambda: cs.ClippedSGD(2, x0=np.zeros((4, 3)))),
    suite.Mismatch(
        "project_ball.center", "center", lambda: cs.project_ball(np.ones(3), 1.0, center=np.ones(2))
    ),
    suite.Mismatch("clip_norm.level", "level", lambda: cs.clip_norm(np.ones((4, 3)), np.ones(3))),
    suite.Mismatch(
        "StreamingLinearRegression.fit.y",
        "y",
        lambda: cs.StreamingLinearRegression().fit(X, Y[:-1]),
    ),
    suite.Mismatch(
        "StreamingLinearRegression.partial_fit.y",
        "y",
        lambda: cs.StreamingLinearRegression().partial_fit(X[:5], Y),
    ),
    suite.Mismatch(
        "StreamingLogisticRegression.fit.y",
        "y",
        lambda: cs.StreamingLogisticRegression().fit(X, S[:7]),
    ),
    suite.Mismatch(
        "StreamingMean.partial_fit.X", "X", lambda: cs.StreamingMean().fit(X).partial_fit(XS)
    ),
    suite.Mismatch("StreamingLinearRegression.predict.X", "X", lambda: LINREG.predict(XS)),
]


def test_too_few_rows_or_labels_are_value_errors():
    assert_rejects(ValueError, "G", cs.estimate_noise_trace, np.ones((1, 3)))  # needs m >= 2
    # clip="auto" needs a pilot of >= 2 rows
    assert_rejects(ValueError, "samples", cs.StreamingMean().fit, np.ones((1, 3)))
    assert_rejects(ValueError, "y", cs.StreamingLogisticRegression().fit, X, np.arange(20) % 3)
    clf = cs.StreamingLogisticRegression().partial_fit(X, S)
    assert_rejects(ValueError, "y", clf.partial_fit, X[:2], [0, 5])  # a label outside classes_


def test_missing_required_values_are_value_errors():
    assert_rejects(ValueError, "lr", cs.ClippedSGD, 2, step="constant")
    assert_rejects(
        ValueError, "y", cs.StreamingLinearRegression().fit, X, None
    )  # scikit-learn's rule


def test_regression_target_of_strings_is_a_type_error():
    # used to reach numpy's lstsq: "Cannot cast ufunc 'lstsq' input 1 from dtype('<U1')"
    assert_rejects(TypeError, "y", cs.StreamingLinearRegression().fit, X, np.full(20, "a"))


def test_continuous_labels_name_y():
    assert_rejects(ValueError, "y", cs.StreamingLogisticRegression().fit, X, np.linspace(0, 1, 20))


def test_classes_must_be_two_labels():
    assert_rejects(
        ValueError, "classes", cs.StreamingLogisticRegression().partial_fit, X, S, classes=[0]
    )
    assert_rejects(
        ValueError, "classes", cs.StreamingLogisticRegression().partial_fit, X, S, classes=[[0, 1]]
    )


# --- options ----------------------------------------------------------------------------------
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
OPTIONS = [
    suite.keyword(suite.Option, cs.ClippedSGD, "step", 2, valid=frozenset(_OK_STRINGS)),
    suite.Option(
        "ClippedSGD.projection",
        "projection",
        lambda v: cs.ClippedSGD(2, projection=(v, 1.0)),
        valid=frozenset(_OK_STRINGS),
    ),
    suite.keyword(suite.Option, cs.heavy_tailed_noise, "kind", 3, valid=frozenset(_OK_STRINGS)),
    suite.Option(
        "StreamingMean.clip",
        "clip",
        lambda v: cs.StreamingMean(clip=v).fit(X),
        valid=frozenset(_OK_STRINGS),
    ),
    suite.Option(
        "StreamingLinearRegression.mu",
        "mu",
        lambda v: cs.StreamingLinearRegression(mu=v).fit(X, Y),
        valid=frozenset(_OK_STRINGS),
    ),
    suite.Option(
        "StreamingLogisticRegression.L",
        "L",
        lambda v: cs.StreamingLogisticRegression(L=v).fit(X, S),
        valid=frozenset(_OK_STRINGS),
    ),
]
# these options also take numbers or callables: only unknown strings are checked generically
OPTIONS = [dataclasses.replace(c, strings_only=False) for c in OPTIONS]


def test_non_string_kind_is_a_type_error():
    for value in (5, None, 2.5, ["student_t"]):
        assert_rejects(TypeError, "kind", cs.heavy_tailed_noise, 3, kind=value)


@pytest.mark.parametrize("value", ["ball", 3.0, {"ball": 1}, ("ball",), ("ball", 1.0, 2.0)])
def test_malformed_projection(value):
    exc = ValueError if isinstance(value, tuple) else TypeError
    assert_rejects(exc, "projection", cs.ClippedSGD, 2, projection=value)


def test_non_callable_grad_fn_is_a_type_error():
    assert_rejects(TypeError, "grad_fn", cs.ClippedSGD(2).partial_fit, "not a function", None)


def test_callable_clip_or_step_returning_nonsense_is_a_value_error():
    # a clip schedule returning a negative level used to flip the gradient silently, and NaN used
    # to disable clipping silently
    for bad in (-1.0, 0.0, math.nan):
        opt = cs.ClippedSGD(2, clip=lambda t, b=bad: b)
        assert_rejects(ValueError, "clip", opt.step, np.array([3.0, 4.0]))
    for bad in (-1.0, 0.0, math.nan, math.inf):
        opt = cs.ClippedSGD(2, step=lambda t, b=bad: b)
        assert_rejects(ValueError, "step", opt.step, np.array([3.0, 4.0]))


# --- randomness -------------------------------------------------------------------------------
RNGS = [
    suite.keyword(suite.Rng, cs.heavy_tailed_noise, "rng", 3),
    suite.Rng(
        "StreamingMean.random_state",
        "random_state",
        lambda v: cs.StreamingMean(shuffle=True, random_state=v).fit(X),
    ),
    suite.Rng(
        "StreamingLinearRegression.random_state",
        "random_state",
        lambda v: cs.StreamingLinearRegression(shuffle=True, random_state=v).fit(X, Y),
    ),
]


def test_good_rng_forms_still_work():
    a = cs.heavy_tailed_noise(4, rng=np.random.default_rng(3))
    np.testing.assert_array_equal(a, cs.heavy_tailed_noise(4, rng=3))
    est = cs.StreamingMean(shuffle=True, random_state=np.random.default_rng(1)).fit(X)
    assert est.random_state is not None  # kept as given (scikit-learn convention)


globals().update(
    suite.bad_input_suite(
        [*NUMBERS, *OUT_OF_RANGE, *INTS, *BOOLS, *ARRAYS, *MISMATCH, *OPTIONS, *RNGS]
    )
)
