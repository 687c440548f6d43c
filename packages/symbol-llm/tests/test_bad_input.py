"""Bad input gets a TypeError (wrong type) or ValueError (wrong value) naming the argument.

One case per public argument, by kind (see ``papershelf_harness.suite``); plain tests below for
the rules the kinds do not cover (0/1 masks, probability ranges, protocols, the rule model).
"""

import numpy as np
import pytest
import symbol_llm as sl
from hypothesis import strategies as st

from papershelf_harness import suite
from papershelf_harness.testing import assert_rejects

rng = np.random.default_rng(0)
P = rng.random((6, 4))
M = np.array([[1, 1, 0, 0], [0, 0, 1, 1], [1, 0, 0, 0]], bool)
RA = np.array([0, 1, 1])
S1 = rng.random((6, 2))
R = rng.random((6, 2))
C = np.ones((6, 2), bool)
Y = np.array([[1, 0], [0, 1], [1, 0], [0, 0], [0, 1], [1, 1]])
GRID = np.array([0.0, 1.0])


class Enc:
    def encode(self, texts):
        return sl.HashingEncoder().encode(texts)


def gen(**kw):
    return sl.generate_rules("riding", sl.ScriptedLLM([]), Enc(), **kw)


def _floats(lo=None, hi=None):
    return st.floats(min_value=lo, max_value=hi, allow_nan=False, allow_infinity=False)


TNORM = frozenset(sl.TNORMS)
CASES = [
    # logic
    suite.Mismatch("yes_no_prob.ln", "ln", lambda: sl.yes_no_prob(np.ones(3), np.ones(4))),
    suite.Array(
        "rule_scores.P", "P", lambda v: sl.rule_scores(v, np.ones((2, 3), bool)), (5, 3), (2,)
    ),
    suite.Array(
        "rule_scores.M",
        "M",
        lambda v: sl.rule_scores(np.full((5, 3), 0.5), v),
        (2, 3),
        (2,),
        empty_ok=True,
    ),
    suite.Mismatch("rule_scores.M", "M", lambda: sl.rule_scores(P, np.ones((2, 5), bool))),
    suite.keyword(suite.Option, sl.rule_scores, "tnorm", P, M, valid=TNORM),
    suite.Array(
        "activity_scores.P",
        "P",
        lambda v: sl.activity_scores(v, np.ones((2, 3), bool), [0, 1], n_activities=2),
        (5, 3),
        (2,),
    ),
    suite.Array(
        "activity_scores.M",
        "M",
        lambda v: sl.activity_scores(np.full((5, 3), 0.5), v, [0, 1], n_activities=2),
        (2, 3),
        (2,),
    ),
    suite.Array(
        "activity_scores.rule_activity",
        "rule_activity",
        lambda v: sl.activity_scores(P, M[:1], v, n_activities=2),
        (1,),
        (1,),
    ),
    suite.Mismatch(
        "activity_scores.rule_activity",
        "rule_activity",
        lambda: sl.activity_scores(P, M, [0, 1], n_activities=2),
    ),
    suite.keyword(suite.Int, sl.activity_scores, "n_activities", P, M, RA, minimum=1),
    suite.OutOfRange(
        "activity_scores.rule_activity>=n",
        "rule_activity",
        lambda v: sl.activity_scores(P, M, [0, 1, v], n_activities=2),
        st.integers(2, 100),
    ),
    suite.keyword(
        suite.Option, sl.activity_scores, "tnorm", P, M, RA, kwargs={"n_activities": 2}, valid=TNORM
    ),
    suite.keyword(suite.Option, sl.t_norm, "kind", np.ones(3), valid=TNORM),
    suite.keyword(suite.Int, sl.t_norm, "axis", np.ones((2, 3)), minimum=-2, maximum=1),
    # fusion
    suite.Array("fuse.s1", "s1", lambda v: sl.fuse(v, R, C, weight=1.0), (6, 2), (1, 2)),
    suite.Array("fuse.R", "R", lambda v: sl.fuse(S1, v, C, weight=1.0), (6, 2), (1, 2)),
    suite.Mismatch("fuse.R", "R", lambda: sl.fuse(S1, R[:5], C, weight=1.0)),
    suite.Mismatch("fuse.candidates", "candidates", lambda: sl.fuse(S1, R, C[:, :1], weight=1.0)),
    suite.keyword(suite.Number, sl.fuse, "weight", S1, R, C),
    suite.Mismatch("fuse.weight", "weight", lambda: sl.fuse(S1, R, C, weight=np.ones(3))),
    suite.keyword(suite.Number, sl.fuse, "offset", S1, R, C, kwargs={"weight": 1.0}),
    suite.Array(
        "tune_weights.s1", "s1", lambda v: sl.tune_weights(v, R, Y, C, grid=GRID), (6, 2), (2,)
    ),
    suite.Array(
        "tune_weights.R", "R", lambda v: sl.tune_weights(S1, v, Y, C, grid=GRID), (6, 2), (2,)
    ),
    suite.keyword(suite.Array, sl.tune_weights, "grid", S1, R, Y, C, shape=(3,), ndims=(1,)),
    suite.Mismatch("tune_weights.Y", "Y", lambda: sl.tune_weights(S1, R, Y[:5], C, grid=GRID)),
    suite.Mismatch(
        "tune_weights.candidates", "candidates", lambda: sl.tune_weights(S1, R, Y, C[:5], grid=GRID)
    ),
    # metrics
    suite.Array("ap_11pt.scores", "scores", lambda v: sl.ap_11pt(v, [1, 0, 1]), (3,), (1,)),
    suite.Mismatch("ap_11pt.labels", "labels", lambda: sl.ap_11pt([0.1, 0.2, 0.3], [1, 0])),
    suite.Array("mean_ap.S", "S", lambda v: sl.mean_ap(v, Y[:5]), (5, 2), (2,)),
    suite.Mismatch("mean_ap.Y", "Y", lambda: sl.mean_ap(S1, Y[:, :1])),
    suite.keyword(suite.Flag, sl.mean_ap, "ignore_nan", S1, Y),
    # generator
    suite.keyword(suite.Int, gen, "max_loops", minimum=1),
    suite.keyword(suite.Int, gen, "max_premises", minimum=2),
    suite.keyword(suite.Int, gen, "n_votes", minimum=1),
    suite.keyword(suite.Int, gen, "max_queries", minimum=3),
    suite.keyword(suite.Number, gen, "stop_entailment"),
    suite.keyword(suite.OutOfRange, gen, "stop_entailment", values=_floats(lo=1.0001)),
    suite.keyword(suite.Number, gen, "dedup_threshold"),
    suite.keyword(suite.OutOfRange, gen, "dedup_threshold", values=_floats(hi=-1.0001)),
    suite.keyword(suite.Int, sl.HashingEncoder, "dim", minimum=8),
]

globals().update(suite.bad_input_suite(CASES))


@pytest.mark.parametrize(
    "fn, name",
    [
        (lambda v: sl.rule_scores(v, M), "P"),
        (lambda v: sl.activity_scores(v, M, RA, n_activities=2), "P"),
        (lambda v: sl.t_norm(v), "values"),
    ],
)
def test_probabilities_outside_unit_interval(fn, name):
    for bad in (P + 1.0, P - 1.0):
        assert_rejects(ValueError, name, fn, bad)


def test_masks_and_labels_must_be_zero_one():
    assert_rejects(ValueError, "M", sl.rule_scores, P, M * 2)
    assert_rejects(ValueError, "candidates", sl.fuse, S1, R, C * 3, weight=1.0)
    assert_rejects(ValueError, "labels", sl.ap_11pt, [0.1, 0.2], [0, 2])
    assert_rejects(ValueError, "Y", sl.mean_ap, S1, Y * 2)
    assert_rejects(
        ValueError, "rule_activity", sl.activity_scores, P, M, [0, -1, 1], n_activities=2
    )


def test_generator_protocol_arguments():
    assert_rejects(TypeError, "llm", sl.generate_rules, "riding", object(), Enc())
    assert_rejects(TypeError, "encoder", sl.generate_rules, "riding", sl.ScriptedLLM([]), 3)
    assert_rejects(TypeError, "activity", sl.generate_rules, 5, sl.ScriptedLLM([]), Enc())
    assert_rejects(ValueError, "activity", sl.generate_rules, "  ", sl.ScriptedLLM([]), Enc())
    bad = sl.ScriptedLLM(lambda m: 5)
    assert_rejects(TypeError, "replies", sl.generate_rules, "riding", bad, Enc())


def test_parsers_and_scripted_llm_reject_non_strings():
    for fn in (sl.parse_probability_choice, sl.parse_condition, sl.parse_symbols):
        assert_rejects(TypeError, "text", fn, b"(a)")
    assert_rejects(TypeError, "replies", sl.ScriptedLLM, "abc")
    assert_rejects(TypeError, "replies", sl.ScriptedLLM, ["a", 3])
    llm = sl.ScriptedLLM(["a"])
    assert_rejects(TypeError, "messages", llm.complete, "hi")
    assert_rejects(ValueError, "n", llm.complete, [{"role": "user", "content": "x"}], n=0)
    assert_rejects(
        ValueError,
        "temperature",
        llm.complete,
        [{"role": "user", "content": "x"}],
        temperature=-1.0,
    )
    with pytest.raises(RuntimeError, match="ran out"):
        llm.complete([{"role": "user", "content": "x"}], n=2)


def test_rule_base_rejects_bad_records():
    assert_rejects(TypeError, "rules[0]", sl.RuleBase, ("a",), ("a",))
    assert_rejects(TypeError, "symbols", sl.RuleBase, "ab", ())
    assert_rejects(TypeError, "mapping", sl.RuleBase.from_dict, [("x", [["a"]])])
    assert_rejects(TypeError, "entailment", sl.Rule, "x", ("a",), (None,))
    rb = sl.RuleBase.from_dict({"x": [["a", "b"]]})
    assert_rejects(ValueError, "activities", rb.to_matrix, ["x", "x"])
    assert_rejects(TypeError, "activity", rb.rules_for, 3)


@pytest.mark.parametrize(
    "name, fn",
    [
        ("ly", lambda v: sl.yes_no_prob(v, 0.0)),
        ("ln", lambda v: sl.yes_no_prob(0.0, v)),
        ("values", lambda v: sl.t_norm(v)),
    ],
)
def test_elementwise_arguments_of_any_shape(name, fn):
    # these accept any number of dimensions, so the generic wrong-ndim case does not apply
    for bad in (np.nan, [0.1, np.inf], np.full((2, 2, 2), np.nan)):
        assert_rejects(ValueError, name, fn, bad)
    for bad in (None, "0.5", np.array(["a"]), [1 + 2j], object()):
        assert_rejects(TypeError, name, fn, bad)
