"""Bad input: a TypeError or ValueError naming the argument, one suite case per argument."""

import numpy as np
import pytest
import weiper as wp
from hypothesis import strategies as st

from papershelf_harness import suite
from papershelf_harness.testing import assert_rejects

rng = np.random.default_rng(0)
W = rng.normal(size=(3, 4))
B = rng.normal(size=3)
Z = np.abs(rng.normal(size=(6, 4)))
W_T, B_T = wp.perturb_class_projections(W, B, r=2, rng=0)
V = rng.normal(size=(3, 5))
P = rng.random((2, 6))
FITTED = wp.WeiPerKLD(r=2, n_bins=5, rng=0).fit(Z, W, B)
_neg = st.floats(-1e6, -1e-9)
SMALL = {k: [v[0]] for k, v in wp.PAPER_GRID.items()}

WEIPER_SCORES = [wp.msp_weiper, wp.energy_weiper]
LAYER_FUNCS = [wp.perturb_class_projections, *WEIPER_SCORES]


def _kw(name):
    """WeiPerKLD(name=value), then fit."""
    return lambda v: wp.WeiPerKLD(**{"r": 2, "n_bins": 5, name: v}).fit(Z, W, B)


CASES = [
    # layers and features
    suite.Array("perturb.W", "W", lambda v: wp.perturb_class_projections(v, B), (3, 4), (2,)),
    suite.Array(
        "perturb.b", "b", lambda v: wp.perturb_class_projections(W, v), (3,), (1,), none_ok=True
    ),
    *(
        suite.Array(f"{f.__name__}.Z", "Z", lambda v, f=f: f(v, W, B, r=2), (6, 4), (2,))
        for f in WEIPER_SCORES
    ),
    *(
        suite.Array(f"{f.__name__}.W", "W", lambda v, f=f: f(Z, v, B, r=2), (3, 4), (2,))
        for f in WEIPER_SCORES
    ),
    suite.Array("weiper_logits.Z", "Z", lambda v: wp.weiper_logits(v, W_T, B_T), (6, 4), (2,)),
    suite.Array(
        "weiper_logits.W_tilde", "W_tilde", lambda v: wp.weiper_logits(Z, v, B_T), (6, 4), (2,)
    ),
    suite.Array(
        "react_weiper.Z", "Z", lambda v: wp.react_weiper(v, W, B, threshold=1.0, r=2), (6, 4), (2,)
    ),
    suite.Array(
        "react_threshold.Z_train", "Z_train", lambda v: wp.react_threshold(v), (6, 4), (2,)
    ),
    suite.Array(
        "WeiPerKLD.fit.Z_train",
        "Z_train",
        lambda v: wp.WeiPerKLD(r=2, n_bins=5).fit(v, W, B),
        (6, 4),
        (2,),
    ),
    suite.Array(
        "WeiPerKLD.fit.W", "W", lambda v: wp.WeiPerKLD(r=2, n_bins=5).fit(Z, v, B), (3, 4), (2,)
    ),
    suite.Array("WeiPerKLD.score.Z", "Z", lambda v: FITTED.score(v), (6, 4), (2,)),
    suite.Array("WeiPerKLD.components.Z", "Z", lambda v: FITTED.components(v), (6, 4), (2,)),
    suite.Array(
        "histogram_rows.V", "V", lambda v: wp.histogram_rows(v, -1.0, 1.0, 4), (3, 5), (1, 2)
    ),
    suite.Array("uniform_smooth.P", "P", lambda v: wp.uniform_smooth(v, 3), (2, 6), (1, 2)),
    suite.Array("symmetric_kl.p", "p", lambda v: wp.symmetric_kl(v, P), (6,), (1, 2)),
    suite.Array("symmetric_kl.Q", "Q", lambda v: wp.symmetric_kl(P[0], v), (2, 6), (1, 2)),
    # shapes that do not fit together
    suite.Mismatch("perturb.b", "b", lambda: wp.perturb_class_projections(W, B[:2])),
    suite.Mismatch("msp_weiper.Z", "Z", lambda: wp.msp_weiper(Z[:, :3], W, B, r=2)),
    suite.Mismatch("WeiPerKLD.score.Z", "Z", lambda: FITTED.score(Z[:, :3])),
    suite.Mismatch(
        "WeiPerKLD.fit.Z_train", "Z_train", lambda: wp.WeiPerKLD(r=2).fit(Z[:, :2], W, B)
    ),
    suite.Mismatch("weiper_logits.b_tilde", "b_tilde", lambda: wp.weiper_logits(Z, W_T, B)),
    suite.Mismatch("symmetric_kl.Q", "Q", lambda: wp.symmetric_kl(P[0], P[:, :4])),
    suite.Mismatch("symmetric_kl.Q.rows", "Q", lambda: wp.symmetric_kl(P, rng.random((3, 6)))),
    # integers
    *(
        suite.keyword(
            suite.Int,
            f,
            "r",
            *((W, B) if f is wp.perturb_class_projections else (Z, W, B)),
            minimum=1,
        )
        for f in LAYER_FUNCS
    ),
    suite.Int(
        "histogram_rows.n_bins", "n_bins", lambda v: wp.histogram_rows(V, -1, 1, v), minimum=1
    ),
    suite.Int("uniform_smooth.width", "width", lambda v: wp.uniform_smooth(P, v), minimum=1),
    *(suite.Int(f"WeiPerKLD.{k}", k, _kw(k), minimum=1) for k in ("r", "n_bins", "s1", "s2")),
    # real numbers
    *(
        suite.keyword(
            suite.Number,
            f,
            "delta",
            *((W, B) if f is wp.perturb_class_projections else (Z, W, B)),
            kwargs={"r": 2},
        )
        for f in LAYER_FUNCS
    ),
    *(
        suite.keyword(
            suite.OutOfRange,
            f,
            "delta",
            *((W, B) if f is wp.perturb_class_projections else (Z, W, B)),
            kwargs={"r": 2},
            values=_neg,
        )
        for f in LAYER_FUNCS
    ),
    *(suite.Number(f"WeiPerKLD.{k}", k, _kw(k)) for k in ("delta", "lambda1", "lambda2", "eps")),
    *(
        suite.OutOfRange(f"WeiPerKLD.{k}", k, _kw(k), _neg)
        for k in ("delta", "lambda1", "lambda2", "eps")
    ),
    suite.OutOfRange("WeiPerKLD.eps=0", "eps", _kw("eps"), st.just(0.0)),
    suite.Number("histogram_rows.lo", "lo", lambda v: wp.histogram_rows(V, v, 10.0, 4)),
    suite.Number("histogram_rows.hi", "hi", lambda v: wp.histogram_rows(V, -10.0, v, 4)),
    suite.OutOfRange("histogram_rows.hi<lo", "hi", lambda v: wp.histogram_rows(V, 0.0, v, 4), _neg),
    suite.keyword(suite.Number, wp.symmetric_kl, "eps", P[0], P),
    suite.keyword(suite.OutOfRange, wp.symmetric_kl, "eps", P[0], P, values=_neg),
    suite.keyword(suite.Number, wp.react_threshold, "percentile", Z),
    suite.keyword(
        suite.OutOfRange,
        wp.react_threshold,
        "percentile",
        Z,
        values=st.one_of(_neg, st.floats(100.001, 1e6)),
    ),
    suite.keyword(suite.Number, wp.react_weiper, "threshold", Z, W, B, kwargs={"r": 2}),
    # randomness
    suite.keyword(suite.Rng, wp.perturb_class_projections, "rng", W, B, kwargs={"r": 2}),
    *(suite.keyword(suite.Rng, f, "rng", Z, W, B, kwargs={"r": 2}) for f in WEIPER_SCORES),
    suite.Rng("WeiPerKLD.rng", "rng", lambda v: wp.WeiPerKLD(rng=v)),
    # sweep
    *(
        suite.Array(f"sweep.{name}", name, call, (6, 4), (2,))
        for name, call in [
            ("Z_train", lambda v: wp.sweep(v, Z, Z, W, B, grid=SMALL, r=2)),
            ("Z_val_id", lambda v: wp.sweep(Z, v, Z, W, B, grid=SMALL, r=2)),
            ("Z_val_ood", lambda v: wp.sweep(Z, Z, v, W, B, grid=SMALL, r=2)),
        ]
    ),
    suite.keyword(suite.Int, wp.sweep, "r", Z, Z, Z, W, B, kwargs={"grid": SMALL}, minimum=1),
    suite.keyword(suite.Rng, wp.sweep, "rng", Z, Z, Z, W, B, kwargs={"grid": SMALL, "r": 2}),
    suite.Values(
        "sweep.grid",
        "grid",
        lambda v: wp.sweep(Z, Z, Z, W, B, grid=v, r=2),
        bad=(
            ("delta", TypeError),
            ([1.8], TypeError),
            ({"delta": []}, ValueError),
            ({"delta": [-1.0]}, ValueError),
            ({"nope": [1]}, ValueError),
        ),
    ),
    # the re-exported metrics (papershelf-ood's checks)
    suite.Array("auroc.score_id", "score_id", lambda v: wp.auroc(v, [0.1, 0.2]), (3,), (1,)),
    suite.Array("msp.logits", "logits", lambda v: wp.msp(v), (4, 3), (2,)),
    suite.keyword(
        suite.Option, wp.fpr_at_tpr, "positive", [1.0, 2.0], [0.5], valid=frozenset({"ood", "id"})
    ),
]

globals().update(suite.bad_input_suite(CASES))


def test_eps_pair_must_have_two_entries():
    for bad in ((0.1,), (0.1, 0.2, 0.3), []):
        assert_rejects(ValueError, "eps", wp.WeiPerKLD, eps=bad)
    assert_rejects(TypeError, "eps", wp.WeiPerKLD, eps=("a", 0.1))
    assert_rejects(ValueError, "eps", wp.WeiPerKLD, eps=(0.1, 0.0))


def test_negative_histograms_are_rejected_by_symmetric_kl():
    assert_rejects(ValueError, "Q", wp.symmetric_kl, P[0], -P)
    assert_rejects(ValueError, "p", wp.symmetric_kl, -P[0], P)


def test_too_many_bins_for_a_tiny_range():
    assert_rejects(ValueError, "n_bins", wp.histogram_rows, V, 0.0, 1e-320, 10**4)


def test_options_are_keyword_only():
    with pytest.raises(TypeError):
        wp.perturb_class_projections(W, B, 2)
    with pytest.raises(TypeError):
        wp.msp_weiper(Z, W, B, 2)
    with pytest.raises(TypeError):
        wp.WeiPerKLD(2)
