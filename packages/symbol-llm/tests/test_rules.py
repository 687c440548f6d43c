"""The rule-base data model: matrix, lookup, JSON round trip, hand-made rule sets."""

import json

import numpy as np
import pytest
import symbol_llm as sl
from symbol_llm import Rule, RuleBase


def make():
    return RuleBase.from_dict(
        {
            "riding a bicycle": [
                ["hands holding handlebar", "feet on pedals"],
                ["sitting on seat"],
            ],
            "pushing a bicycle": [["hands holding handlebar", "walking"]],
        }
    )


def test_to_matrix_and_rules_for():
    rb = make()
    assert rb.symbols == ("hands holding handlebar", "feet on pedals", "sitting on seat", "walking")
    m, ra = rb.to_matrix(["pushing a bicycle", "riding a bicycle", "eating"])
    np.testing.assert_array_equal(m, [[1, 1, 0, 0], [0, 0, 1, 0], [1, 0, 0, 1]])
    np.testing.assert_array_equal(ra, [1, 1, 0])
    assert len(rb.rules_for("riding a bicycle")) == 2 and rb.rules_for("eating") == ()
    P = np.array([[0.9, 0.8, 0.1, 0.2]])
    R = sl.activity_scores(P, m, ra, n_activities=3)
    np.testing.assert_allclose(R, [[0.2, 0.8, 0.0]])
    with pytest.raises(ValueError, match="activities"):
        rb.to_matrix(["eating"])


def test_json_round_trip(tmp_path):
    rb = RuleBase(("a b", "c d"), (Rule("x", ("a b", "c d"), (0.5, 0.95)),))
    rb.save(tmp_path / "r.json")
    assert RuleBase.load(tmp_path / "r.json") == rb
    (tmp_path / "bad.json").write_text('{"symbols": [}')
    with pytest.raises(ValueError, match="line 1"):
        RuleBase.load(tmp_path / "bad.json")
    json.dump(
        {"symbols": ["a"], "rules": [{"activity": "x", "premises": ["zz"]}]},
        open(tmp_path / "b2.json", "w"),
    )
    with pytest.raises(ValueError, match="not in symbols"):
        RuleBase.load(tmp_path / "b2.json")


def test_rule_validation():
    with pytest.raises(ValueError, match="premises"):
        Rule("x", ())
    with pytest.raises(ValueError, match="repeat"):
        Rule("x", ("a", "a"))
    with pytest.raises(TypeError, match="activity"):
        Rule(3, ("a",))
    with pytest.raises(ValueError, match="entailment"):
        Rule("x", ("a",), (1.5,))
    with pytest.raises(ValueError, match="distinct"):
        RuleBase(("a", "a"), ())
    assert str(Rule("x", ("a", "b"))) == "IF a AND b THEN x"


def test_merge_unites_symbols():
    a = RuleBase.from_dict({"x": [["s1", "s2"]]})
    b = RuleBase.from_dict({"y": [["s2", "s3"]]})
    m = a.merge(b)
    assert m.symbols == ("s1", "s2", "s3") and len(m.rules) == 2
    assert a.merge(a) == a
