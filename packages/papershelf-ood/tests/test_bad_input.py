"""Bad input: a TypeError or ValueError naming the argument, one suite case per argument."""

import numpy as np
from hypothesis import strategies as st

import papershelf_ood as po
from papershelf_harness import suite
from papershelf_harness.testing import assert_rejects

A = np.array([0.9, 0.4, 0.7])
B = np.array([0.1, 0.5])
L = np.random.default_rng(0).normal(size=(4, 3))
METRICS = [po.auroc, po.aupr_in, po.aupr_out, po.fpr_at_tpr, po.ood_metrics]
SCORES = [po.msp, po.energy, po.max_logit]
_bad_tpr = st.one_of(st.floats(-1e6, -1e-9), st.floats(1.0 + 1e-9, 1e6))

CASES = [
    *(
        suite.Array(f"{f.__name__}.score_id", "score_id", lambda v, f=f: f(v, B), (3,), (1,))
        for f in METRICS
    ),
    *(
        suite.Array(f"{f.__name__}.score_ood", "score_ood", lambda v, f=f: f(A, v), (2,), (1,))
        for f in METRICS
    ),
    *(
        suite.Array(f"{f.__name__}.logits", "logits", lambda v, f=f: f(v), (4, 3), (2,))
        for f in SCORES
    ),
    *(suite.keyword(suite.Number, f, "tpr", A, B) for f in (po.fpr_at_tpr, po.ood_metrics)),
    *(
        suite.keyword(suite.OutOfRange, f, "tpr", A, B, values=_bad_tpr)
        for f in (po.fpr_at_tpr, po.ood_metrics)
    ),
    *(
        suite.keyword(suite.Option, f, "positive", A, B, valid=frozenset({"ood", "id"}))
        for f in (po.fpr_at_tpr, po.ood_metrics)
    ),
    *(suite.keyword(suite.Number, f, "temperature", L) for f in (po.msp, po.energy)),
    *(
        suite.keyword(suite.OutOfRange, f, "temperature", L, values=st.floats(-1e6, 0.0))
        for f in (po.msp, po.energy)
    ),
]

globals().update(suite.bad_input_suite(CASES))


def test_scores_must_be_one_dimensional_not_columns():
    # a [n, 1] column is a common mistake (model output not squeezed)
    assert_rejects(ValueError, "score_id", po.auroc, A[:, None], B)
    assert_rejects(ValueError, "score_ood", po.fpr_at_tpr, A, B[:, None])
