"""Bad input gets a TypeError (wrong type) or ValueError (wrong value) naming the argument.

One case per public argument, by kind (see ``papershelf_harness.suite``); plain tests for the
rules the kinds do not cover.
"""

import numpy as np
import pheno_impute as pi
import pytest
from hypothesis import strategies as st
from pheno_impute.data import holdout, synthetic_cohort

from papershelf_harness import suite
from papershelf_harness.testing import assert_rejects

X = synthetic_cohort(20, 3, modalities={"a": 3, "b": 2}, rng=0).X  # (20, 8)
XF = np.random.default_rng(0).standard_normal((20, 4))  # features only
S = np.random.default_rng(1).random((4, 5))
TEST = np.zeros((4, 5), bool)
TEST[:, 0] = True
TRAIN = np.zeros((4, 5), bool)
TRAIN[:, 1] = True
FIT = pi.MPIImputer(n_phenotypes=3, modalities=[3, 2], epochs=2, random_state=0).fit(X)
RQ = pi.ResidualQuantizer(levels=2, codebook_size=3, random_state=0).fit(XF)


IMPUTER = {"n_phenotypes": 3, "modalities": [3, 2], "epochs": 2}


def imputer(**kw):
    return lambda: pi.MPIImputer(**{**IMPUTER, **kw}).fit(X)


def _imp(name, kind, id=None, **case):
    """A case for the MPIImputer option ``name`` (checked in fit), the other options valid."""

    def call(v):
        return pi.MPIImputer(**{**IMPUTER, name: v}).fit(X)

    return kind(id or f"MPIImputer.{name}", name, call, **case)


def _rq(name, kind, **case):
    """A case for the ResidualQuantizer option ``name`` (checked in fit), codebook_size 3."""

    def call(v):
        return pi.ResidualQuantizer(**{"codebook_size": 3, name: v}).fit(XF)

    return kind(f"ResidualQuantizer.{name}", name, call, **case)


COHORT = {"n_patients": 5, "n_phenotypes": 3}


def _cohort(name, kind, **case):
    """A case for the synthetic_cohort argument ``name``, the others valid (5 patients, 3
    phenotypes; the two sizes passed by position as in the public signature)."""

    def call(v):
        args = {**COHORT, name: v}
        return synthetic_cohort(args.pop("n_patients"), args.pop("n_phenotypes"), **args)

    return kind(f"synthetic_cohort.{name}", name, call, **case)


def _floats(lo=None, hi=None):
    return st.floats(min_value=lo, max_value=hi, allow_nan=False, allow_infinity=False)


CASES = [
    # MPIImputer options (checked in fit, scikit-learn style)
    _imp("n_phenotypes", suite.Int, minimum=0, maximum=8, none_ok=True),
    _imp("dim", suite.Int, minimum=1),
    _imp("rq_levels", suite.Int, minimum=1),
    _imp("codebook_size", suite.Int, minimum=1),
    _imp("gnn_layers", suite.Int, minimum=1),
    _imp("epochs", suite.Int, minimum=1),
    _imp("kd_weight", suite.Number),
    _imp("tau", suite.Number),
    _imp("lr", suite.Number),
    _imp("kd_weight", suite.OutOfRange, id="MPIImputer.kd_weight<0", values=_floats(hi=-1e-9)),
    _imp("tau", suite.OutOfRange, id="MPIImputer.tau<=0", values=_floats(hi=0.0)),
    _imp("lr", suite.OutOfRange, id="MPIImputer.lr<=0", values=_floats(hi=0.0)),
    _imp("random_state", suite.Rng),
    suite.Mismatch("MPIImputer.transform.X", "X", lambda: FIT.transform(X[:, :5])),
    suite.Mismatch("MPIImputer.modalities", "modalities", imputer(modalities=[3, 3])),
    suite.Mismatch("MPIImputer.n_phenotypes", "n_phenotypes", imputer(n_phenotypes=9)),
    # ResidualQuantizer
    _rq("levels", suite.Int, minimum=1),
    _rq("codebook_size", suite.Int, minimum=1, maximum=20),
    _rq("random_state", suite.Rng),
    suite.Array(
        "ResidualQuantizer.fit.X",
        "X",
        lambda v: pi.ResidualQuantizer(codebook_size=1).fit(v),
        (20, 4),
        (2,),
    ),
    suite.Array("ResidualQuantizer.encode.X", "X", lambda v: RQ.encode(v), (5, 4), (2,)),
    suite.Mismatch("ResidualQuantizer.encode.X", "X", lambda: RQ.encode(XF[:, :3])),
    suite.Mismatch(
        "ResidualQuantizer.decode.codes", "codes", lambda: RQ.decode(np.full((2, 2), 3))
    ),
    suite.Mismatch("ResidualQuantizer.decode.codes", "codes", lambda: RQ.decode(np.zeros((2, 3)))),
    # metrics
    suite.Array(
        "hit_at_k.scores", "scores", lambda v: pi.hit_at_k(v, TEST, TRAIN, k=2), (4, 5), (2,)
    ),
    suite.Array("mrr.scores", "scores", lambda v: pi.mrr(v, TEST, TRAIN), (4, 5), (2,)),
    suite.keyword(suite.Int, pi.hit_at_k, "k", S, TEST, TRAIN, minimum=1),
    suite.Mismatch("hit_at_k.test_mask", "test_mask", lambda: pi.hit_at_k(S, TEST[:3], TRAIN, k=1)),
    suite.Mismatch("mrr.train_mask", "train_mask", lambda: pi.mrr(S, TEST, TRAIN[:, :4])),
    suite.Mismatch("mrr.test_mask.overlap", "test_mask", lambda: pi.mrr(S, TEST, TEST)),
    suite.Mismatch("mrr.test_mask.empty", "test_mask", lambda: pi.mrr(S, TRAIN & TEST, TRAIN)),
    # data
    _cohort("n_patients", suite.Int, minimum=1),
    _cohort("n_phenotypes", suite.Int, minimum=1),
    _cohort("n_latent", suite.Int, minimum=1),
    _cohort("bio_signal", suite.Number),
    _cohort("bio_signal", suite.OutOfRange, values=_floats(lo=1.0001)),
    _cohort("modality_missing", suite.Number),
    _cohort("entry_missing", suite.Number),
    _cohort("phenotype_missing", suite.Number),
    _cohort("rng", suite.Rng),
    suite.keyword(suite.Int, holdout, "n_phenotypes", X, minimum=1, maximum=8),
    suite.keyword(suite.Number, holdout, "fraction", X, kwargs={"n_phenotypes": 3}),
    suite.keyword(suite.Rng, holdout, "rng", X, kwargs={"n_phenotypes": 3}),
]

globals().update(suite.bad_input_suite(CASES))


def test_phenotype_columns_must_be_binary():
    bad = X.copy()
    bad[0, 0] = 0.5
    assert_rejects(ValueError, "X", pi.MPIImputer(n_phenotypes=3, modalities=[3, 2]).fit, bad)


TABLE_CALLS = {
    "MPIImputer.fit": lambda v: pi.MPIImputer(n_phenotypes=0, epochs=2).fit(v),
    "MPIImputer.transform": lambda v: FIT.transform(v),
    "MPIImputer.encode": lambda v: FIT.encode(v),
    "MPIImputer.predict_phenotypes": lambda v: FIT.predict_phenotypes(v),
    "holdout": lambda v: holdout(v, n_phenotypes=1),
}


@pytest.mark.parametrize("where", sorted(TABLE_CALLS))
def test_tables_where_nan_means_missing(where):
    """X of the imputer and of holdout: NaN is a missing entry, everything else is refused."""
    call = TABLE_CALLS[where]
    good = np.where(np.isnan(X), 0.0, X) if where != "MPIImputer.fit" else XF
    bad_inf = good.copy()
    bad_inf[0, 0] = np.inf
    assert_rejects(ValueError, "X", call, bad_inf)
    assert_rejects(ValueError, "X", call, good[0])  # 1-d
    assert_rejects(ValueError, "X", call, good[None])  # 3-d
    assert_rejects(ValueError, "X", call, good[:0])  # no rows
    for value in (None, "abc", np.full(good.shape, "a"), [[1.0, 2.0], [3.0]]):
        assert_rejects(TypeError, "X", call, value)
    assert_rejects(ValueError, "X", call, good.astype(complex))


def test_infinity_is_not_missing():
    bad = X.copy()
    bad[1, 4] = np.inf
    assert_rejects(ValueError, "X", pi.MPIImputer(n_phenotypes=3, modalities=[3, 2]).fit, bad)
    assert_rejects(ValueError, "X", FIT.transform, bad)


def test_malformed_modalities():
    for value in ("ab", 5, 2.5):
        assert_rejects(TypeError, "modalities", imputer(modalities=value))
    assert_rejects(TypeError, "modalities", imputer(modalities=[3.5, 1.5]))
    assert_rejects(ValueError, "modalities", imputer(modalities=[5, 0]))
    assert_rejects(TypeError, "modalities", synthetic_cohort, 5, 3, modalities=[3, 2])
    pi.MPIImputer(n_phenotypes=3, modalities={"a": 3, "b": 2}, epochs=1).fit(X)  # dicts work


def test_sparse_input_is_a_type_error():
    import scipy.sparse as sp

    assert_rejects(TypeError, "X", pi.MPIImputer(n_phenotypes=0).fit, sp.csr_matrix(XF))


def test_unfitted_use_is_an_error():
    from sklearn.exceptions import NotFittedError

    for call in (pi.MPIImputer().transform, pi.ResidualQuantizer().encode):
        try:
            call(XF)
        except NotFittedError:
            continue
        raise AssertionError("no NotFittedError")
