"""Bad input: a TypeError or ValueError naming the argument, one suite case per argument."""

from __future__ import annotations

import data_attrib as da
import numpy as np
import pytest
import torch
from _lr import ce_loss, make_model
from hypothesis import strategies as st

from papershelf_harness import suite
from papershelf_harness.testing import assert_rejects

MODEL = make_model()
LOSS = ce_loss(MODEL)
TASK = da.AttributionTask(LOSS, MODEL)
X = torch.randn(6, 4, dtype=torch.float64)
Y = torch.tensor([0, 1, 2, 0, 1, 2])
DATA = (X, Y)
S = np.random.default_rng(0).standard_normal((6, 3))
SUB = np.array([[0, 1, 2], [3, 4, 5], [0, 2, 4]])
T = np.random.default_rng(1).standard_normal((3, 3))
FLIP = np.array([True, False, False, True, False, False])
NAN = float("nan")


def train_fn(idx):
    return np.array([float(np.sum(idx)), 1.0])


ATTRIBUTORS = [da.IFExplicit, da.IFCG, da.IFLiSSA, da.IFArnoldi, da.TRAK]
NEG = st.floats(max_value=-1e-9, allow_nan=False, allow_infinity=False)

BAD_LOADERS = (
    (None, TypeError),
    ("abc", TypeError),
    (torch.zeros(3, 4), TypeError),
    (np.zeros((3, 4)), TypeError),
    ([], ValueError),
    ((X, Y[:4]), ValueError),
    ((torch.full((2, 4), NAN, dtype=torch.float64), Y[:2]), ValueError),
    (torch.utils.data.DataLoader(torch.utils.data.TensorDataset(X, Y), shuffle=True), ValueError),
    ([(X, Y), (X,)], ValueError),
    ([[1, 2]], TypeError),
    (5, TypeError),
)
BAD_GENERATORS = (("abc", TypeError), (0, TypeError), (np.random.default_rng(0), TypeError))

CASES = [
    *[
        suite.keyword(suite.Number, c, "regularization", TASK, id=f"{c.__name__}.regularization")
        for c in ATTRIBUTORS
    ],
    *[
        suite.keyword(
            suite.OutOfRange,
            c,
            "regularization",
            TASK,
            values=NEG,
            id=f"{c.__name__}.regularization<0",
        )
        for c in ATTRIBUTORS
    ],
    suite.keyword(suite.Int, da.IFCG, "max_iter", TASK, minimum=1),
    suite.keyword(suite.Number, da.IFCG, "tol", TASK),
    suite.keyword(suite.OutOfRange, da.IFCG, "tol", TASK, values=NEG, id="IFCG.tol<0"),
    suite.keyword(suite.Int, da.IFLiSSA, "depth", TASK, minimum=1),
    suite.keyword(suite.Number, da.IFLiSSA, "scale", TASK),
    suite.keyword(
        suite.OutOfRange,
        da.IFLiSSA,
        "scale",
        TASK,
        values=st.floats(max_value=0.0, allow_nan=False, allow_infinity=False),
        id="IFLiSSA.scale<=0",
    ),
    suite.keyword(suite.Int, da.IFLiSSA, "batch_size", TASK, minimum=1),
    suite.keyword(suite.Values, da.IFLiSSA, "generator", TASK, bad=BAD_GENERATORS),
    suite.keyword(suite.Int, da.IFArnoldi, "k", TASK, minimum=1),
    suite.keyword(suite.Int, da.IFArnoldi, "max_iter", TASK, minimum=1),
    suite.keyword(suite.Values, da.IFArnoldi, "generator", TASK, bad=BAD_GENERATORS),
    suite.keyword(suite.Int, da.TRAK, "proj_dim", TASK, minimum=1, none_ok=True),
    suite.keyword(suite.Values, da.TRAK, "generator", TASK, bad=BAD_GENERATORS),
    suite.keyword(suite.Array, da.TracIn, "weights", TASK, shape=(1,), ndims=(1,), none_ok=True),
    suite.keyword(suite.Flag, da.TracIn, "normalize", TASK),
    suite.Mismatch("TracIn.weights.length", "weights", lambda: da.TracIn(TASK, weights=[1, 2])),
    suite.Values(
        "AttributionTask.loss_func",
        "loss_func",
        lambda v: da.AttributionTask(v, MODEL),
        bad=((None, TypeError), (3, TypeError)),
    ),
    suite.Values(
        "AttributionTask.model",
        "model",
        lambda v: da.AttributionTask(LOSS, v),
        bad=((None, TypeError), ("m", TypeError), (torch.zeros(2), TypeError)),
    ),
    suite.keyword(
        suite.Values,
        da.AttributionTask,
        "layers",
        LOSS,
        MODEL,
        bad=(("nope", ValueError), ([], ValueError), (3, TypeError), ([1], TypeError)),
    ),
    suite.keyword(
        suite.Values,
        da.AttributionTask,
        "checkpoints",
        LOSS,
        MODEL,
        bad=(
            ([], ValueError),
            (3, TypeError),
            ({"weight": torch.zeros(3, 4)}, ValueError),
            ({"weight": torch.zeros(2, 2), "bias": torch.zeros(3)}, ValueError),
            ({"weight": torch.full((3, 4), NAN), "bias": torch.zeros(3)}, ValueError),
            ([{"weight": 1, "bias": torch.zeros(3)}], TypeError),
        ),
    ),
    *[
        suite.Values(
            f"{c.__name__}.task",
            "task",
            lambda v, c=c: c(v),
            bad=((None, TypeError), (MODEL, TypeError)),
        )
        for c in [*ATTRIBUTORS, da.TracIn]
    ],
    suite.Values(
        "attribute.train_loader",
        "train_loader",
        lambda v: da.TracIn(TASK).attribute(v, DATA),
        bad=BAD_LOADERS,
    ),
    suite.Values(
        "attribute.test_loader",
        "test_loader",
        lambda v: da.TracIn(TASK).attribute(DATA, v),
        bad=BAD_LOADERS,
    ),
    suite.Values(
        "cache.train_loader",
        "train_loader",
        lambda v: da.IFExplicit(TASK).cache(v),
        bad=BAD_LOADERS,
    ),
    suite.Values(
        "self_attribute.train_loader",
        "train_loader",
        lambda v: da.TracIn(TASK).self_attribute(v),
        bad=BAD_LOADERS,
    ),
    suite.Array("loo_corr.scores", "scores", lambda v: da.loo_corr(v, S), shape=(6, 3), ndims=(2,)),
    suite.Array(
        "loo_corr.loo_change", "loo_change", lambda v: da.loo_corr(S, v), shape=(6, 3), ndims=(2,)
    ),
    suite.Mismatch("loo_corr.shapes", "loo_change", lambda: da.loo_corr(S, S[:5])),
    suite.Array("lds.scores", "scores", lambda v: da.lds(v, T, SUB), shape=(6, 3), ndims=(2,)),
    suite.Array("lds.targets", "targets", lambda v: da.lds(S, v, SUB), shape=(3, 3), ndims=(2,)),
    suite.Values(
        "lds.subsets",
        "subsets",
        lambda v: da.lds(S, T, v),
        bad=(
            (SUB + 6, ValueError),
            (-SUB - 1, ValueError),
            (SUB[:2], ValueError),
            (SUB[0], ValueError),
            (SUB + 0.5, TypeError),
            ("ab", TypeError),
            (None, TypeError),
        ),
    ),
    suite.Mismatch("lds.targets.columns", "targets", lambda: da.lds(S, T[:, :2], SUB)),
    suite.Array(
        "mislabel_auc.self_scores",
        "self_scores",
        lambda v: da.mislabel_auc(v, FLIP),
        shape=(6,),
        ndims=(1,),
    ),
    suite.Array(
        "mislabel_auc.is_flipped",
        "is_flipped",
        lambda v: da.mislabel_auc(S[:, 0], v),
        shape=(6,),
        ndims=(1,),
    ),
    suite.Mismatch("mislabel_auc.length", "is_flipped", lambda: da.mislabel_auc(S[:, 0], FLIP[:5])),
    suite.Mismatch(
        "mislabel_auc.one_class", "is_flipped", lambda: da.mislabel_auc(S[:, 0], np.zeros(6, bool))
    ),
    suite.Values(
        "retrain_lds.train_fn",
        "train_fn",
        lambda v: da.retrain_lds(v, 6, rng=0),
        bad=((None, TypeError), (3, TypeError)),
    ),
    suite.Int(
        "retrain_lds.n_train", "n_train", lambda v: da.retrain_lds(train_fn, v, rng=0), minimum=1
    ),
    suite.keyword(suite.Int, da.retrain_lds, "n_subsets", train_fn, 6, minimum=2),
    suite.keyword(suite.Number, da.retrain_lds, "ratio", train_fn, 6),
    suite.keyword(
        suite.OutOfRange,
        da.retrain_lds,
        "ratio",
        train_fn,
        6,
        values=st.one_of(st.just(0.0), NEG, st.floats(min_value=1.001, max_value=1e9)),
        id="retrain_lds.ratio.range",
    ),
    suite.keyword(suite.Rng, da.retrain_lds, "rng", train_fn, 6),
    suite.Int("retrain_loo.n_train", "n_train", lambda v: da.retrain_loo(train_fn, v), minimum=2),
    suite.keyword(
        suite.Values,
        da.retrain_loo,
        "indices",
        train_fn,
        6,
        bad=(
            ([6], ValueError),
            ([-1], ValueError),
            ([1, 1], ValueError),
            ([0.5], TypeError),
            ([[1]], ValueError),
            ([], ValueError),
        ),
    ),
]


def fit_call(**kwargs):
    """fit_to_optimum on a fresh tiny quadratic (min at 1), with ``kwargs`` overriding."""
    w = torch.zeros(3, dtype=torch.float64, requires_grad=True)
    args = {"params": w, "objective": lambda: ((w - 1.0) ** 2).sum()} | kwargs
    return da.fit_to_optimum(args.pop("params"), args.pop("objective"), **args)


CASES += [
    suite.Int(f"fit_to_optimum.{n}", n, lambda v, n=n: fit_call(**{n: v}), minimum=1)
    for n in ("max_iter", "rounds")
]
CASES += [
    suite.Number(f"fit_to_optimum.{n}", n, lambda v, n=n: fit_call(**{n: v}))
    for n in ("tolerance_grad", "tolerance_change")
]
CASES += [
    suite.OutOfRange(f"fit_to_optimum.{n}<0", n, lambda v, n=n: fit_call(**{n: v}), values=NEG)
    for n in ("tolerance_grad", "tolerance_change")
]
FIT_BAD = {
    "params": (
        (None, TypeError),
        ([1.0], TypeError),
        (torch.zeros(3, dtype=torch.long), TypeError),
        (torch.zeros(3), ValueError),  # requires_grad is False
        (torch.zeros(3, requires_grad=True) * 2, ValueError),  # not a leaf
        (torch.full((3,), NAN, requires_grad=True), ValueError),
        ([], ValueError),
        (torch.nn.Linear(2, 2).requires_grad_(False), ValueError),
    ),
    "objective": (
        (None, TypeError),
        (3, TypeError),
        (lambda: 1.0, TypeError),
        (lambda: torch.ones(2, requires_grad=True), ValueError),
    ),
}
CASES += [
    suite.Values(f"fit_to_optimum.{n}", n, lambda v, n=n: fit_call(**{n: v}), bad=bad)
    for n, bad in FIT_BAD.items()
]

globals().update(suite.bad_input_suite(CASES, max_examples=3))


def test_loss_func_returning_a_batch_or_a_non_tensor_is_rejected():
    task = da.AttributionTask(lambda p, b: torch.ones(3), MODEL)
    assert_rejects(ValueError, "loss_func", da.TracIn(task).attribute, DATA, DATA)
    task = da.AttributionTask(lambda p, b: 1.0, MODEL)
    assert_rejects(TypeError, "loss_func", da.TracIn(task).attribute, DATA, DATA)


def test_train_fn_returning_nan_or_changing_length_is_rejected():
    assert_rejects(ValueError, "train_fn", da.retrain_lds, lambda i: np.array([NAN]), 6, rng=0)
    lengths = iter(range(1, 100))
    assert_rejects(
        ValueError, "train_fn", da.retrain_lds, lambda i: np.ones(next(lengths)), 6, rng=0
    )


def test_constant_columns_are_a_value_error():
    assert_rejects(ValueError, "scores", da.loo_corr, np.ones((6, 3)), S)
    with pytest.raises(ValueError):
        da.lds(np.zeros((6, 3)), T, SUB)
