"""The symbol-rule loop with scripted replies: query order, stop rules, one-symbol extension,
caps, dedup, the query budget, and the prompts. Expected values are worked out by hand from the
released generate_rule.py."""

import numpy as np
import pytest
import symbol_llm as sl
from symbol_llm import ScriptedLLM

ACT = "riding a bicycle"


def votes(letter):
    return [f"({letter})"] * 3


def cond(text):
    return f"[condition] is: [{text}]."


class TableEncoder:
    """Phrase -> fixed vector; unknown phrases get a private axis (cosine 0 with the rest)."""

    def __init__(self, table, dim=32):
        self.table, self.dim, self.free = dict(table), dim, 8

    def encode(self, texts):
        out = []
        for t in texts:
            if t not in self.table:
                v = np.zeros(self.dim)
                v[self.free] = 1.0
                self.free += 1
                self.table[t] = v
            out.append(self.table[t])
        return np.array(out)


def unit(*xs, dim=32):
    v = np.zeros(dim)
    v[: len(xs)] = xs
    return v / np.linalg.norm(v)


def run(replies, **kw):
    llm = ScriptedLLM(replies)
    rb = sl.generate_rules(ACT, llm, kw.pop("encoder", TableEncoder({})), **kw)
    return rb, llm


def test_cde_average_extends_eee_stops():
    replies = [
        "1. hands holding handlebar",
        "(c)",
        "(d)",
        "(e)",
        cond("feet on pedals"),
        "(e)",
        "(e)",
        "(e)",
    ]
    rb, llm = run(replies, max_loops=1)
    (rule,) = rb.rules
    assert rule.premises == ("hands holding handlebar", "feet on pedals")
    assert rule.entailment == pytest.approx((0.85, 0.95))
    assert len(llm.calls) == len(replies) and llm.remaining == 0
    assert rb.symbols == ("hands holding handlebar", "feet on pedals")
    assert all(c["n"] == 1 and c["temperature"] == sl.generate.TEMPERATURE for c in llm.calls)


def test_one_symbol_rule_is_extended_once_even_when_entailed():
    replies = [
        "1. hands holding handlebar",
        "(e)",
        "(e)",
        "(e)",
        cond("feet on pedals"),
        "(e)",
        "(e)",
        "(e)",
    ]
    rb, _ = run(replies, max_loops=1)
    assert len(rb.rules[0].premises) == 2
    assert rb.rules[0].entailment == pytest.approx((0.95, 0.95))


def test_exactly_stop_entailment_does_not_stop():
    # (d)(d)(d) = 0.9 is not above 0.9: extend again
    replies = [
        "1. s0",
        "(a)",
        "(a)",
        "(a)",
        cond("s1"),
        "(d)",
        "(d)",
        "(d)",
        cond("s2"),
        "(e)",
        "(e)",
        "(e)",
    ]
    rb, _ = run(replies, max_loops=1)
    assert rb.rules[0].premises == ("s0", "s1", "s2")
    assert rb.rules[0].entailment == pytest.approx((0.1, 0.9, 0.95))


def test_rules_are_capped_at_max_premises_without_a_final_check():
    replies = ["1. s0"]
    for k in range(1, 5):
        replies += ["(a)", "(b)", "(a)", cond(f"s{k}")]
    rb, llm = run(replies, max_loops=1)
    (rule,) = rb.rules
    assert rule.premises == ("s0", "s1", "s2", "s3", "s4")
    assert len(rule.entailment) == 4 and rule.entailment[0] == pytest.approx(0.7 / 3)
    assert len(llm.calls) == 1 + 4 * 4
    rb3, _ = run(replies[: 1 + 2 * 4], max_loops=1, max_premises=3)
    assert rb3.rules[0].premises == ("s0", "s1", "s2")


def test_unknown_counts_as_zero_and_unparsed_replies_are_asked_again():
    replies = [
        "1. s0",
        "(f) unknown",
        "no idea",
        "(e)",
        "maybe?",
        "(f)",
        cond("s1"),
        "(e)",
        "(e)",
        "(e)",
    ]
    rb, llm = run(replies, max_loops=1)
    assert rb.rules[0].entailment[0] == pytest.approx(0.95 / 3)
    assert len(llm.calls) == len(replies)


def test_query_budget_raises():
    llm = ScriptedLLM(["1. s0"] + ["I cannot tell."] * 40)
    with pytest.raises(RuntimeError, match="max_queries"):
        sl.generate_rules(ACT, llm, TableEncoder({}), max_queries=7)
    assert len(llm.calls) == 1 + 7
    with pytest.raises(ValueError, match="max_queries"):
        sl.generate_rules(ACT, ScriptedLLM([]), TableEncoder({}), n_votes=3, max_queries=2)
    # two parsable answers in the budget are not enough for three votes
    llm = ScriptedLLM(["1. s0", "(a)", "x", "(b)", "x"])
    with pytest.raises(RuntimeError):
        sl.generate_rules(ACT, llm, TableEncoder({}), max_queries=4)


def test_dedup_maps_paraphrases_to_known_symbols_and_queues_new_ones():
    enc = TableEncoder(
        {
            "hands holding handlebar": unit(1, 0),
            "hands gripping the handlebar": unit(1, 0.3),  # cos 0.958 >= 0.95: the known symbol
            "feet on pedals": unit(0, 1),
            "foot pushing a pedal": unit(0.3, 1),  # cos 0.958 with feet: dedup; 0.29 with handlebar
            "legs astride the frame": unit(0, 0, 1),
        }
    )
    replies = [
        "1. hands holding handlebar\n2. feet on pedals",
        # rule 1 from "hands holding handlebar"; rule 2 from "feet on pedals"; rule 3 from the
        # queued new symbol "legs astride the frame"
        *votes("c"), cond("hands gripping the handlebar"), *votes("c"),
        cond("legs astride the frame"), *votes("e"),
        *votes("c"), cond("foot pushing a pedal"), *votes("e"),
        *votes("c"), cond("hands holding handlebar"), *votes("e"),
    ]  # fmt: skip
    cos = unit(0, 1) @ unit(0.3, 1)
    assert cos > 0.95
    rb, llm = run(replies, encoder=enc)
    assert rb.symbols == ("hands holding handlebar", "feet on pedals", "legs astride the frame")
    assert [r.premises for r in rb.rules] == [
        ("hands holding handlebar", "legs astride the frame"),  # paraphrase dropped (repeat)
        ("feet on pedals",),
        ("legs astride the frame", "hands holding handlebar"),
    ]
    assert len(llm.calls) == len(replies)
    # a stricter threshold keeps the paraphrase as a new symbol
    rb2, _ = run(
        replies[:13] + ["(e)"] * 2 + [cond("x")] + ["(e)"] * 3,
        encoder=TableEncoder(enc.table),
        max_loops=2,
        dedup_threshold=0.99,
    )
    assert "hands gripping the handlebar" in rb2.symbols


def test_max_loops_caps_the_number_of_rules():
    counter = iter(range(10**6))

    def oracle(messages):
        text = messages[-1]["content"]
        if "What are his hands doing" in text:
            return "1. s_a\n2. s_b"
        if "Estimate the probability" in text:
            return "(e)"
        return cond(f"new symbol {next(counter)}")

    llm = ScriptedLLM(oracle)
    rb = sl.generate_rules(ACT, llm, sl.HashingEncoder(), max_loops=4)
    assert len(rb.rules) == 4
    assert [r.premises[0] for r in rb.rules] == ["s_a", "s_b", "new symbol 0", "new symbol 1"]
    rb15 = sl.generate_rules(ACT, ScriptedLLM(oracle), sl.HashingEncoder())
    assert len(rb15.rules) == 15


def test_queue_exhausts_before_max_loops():
    replies = ["1. s0", "(e)", "(e)", "(e)", cond("s0"), "(e)", "(e)", "(e)"]
    rb, _ = run(replies)
    assert rb.rules[0].premises == ("s0",) and rb.symbols == ("s0",)


def test_prompts_hold_the_release_phrases_and_premises_verbatim():
    replies = [
        "1. hands holding the handlebar",
        "(e)",
        "(e)",
        "(e)",
        cond("feet pushing the pedals"),
        "(e)",
        "(e)",
        "(e)",
    ]
    _, llm = run(replies, max_loops=1)
    prompts = [c["messages"][-1]["content"] for c in llm.calls]
    assert "What are his hands doing" in prompts[0] and ACT in prompts[0]
    assert "Estimate the probability" in prompts[1]
    assert "hands holding the handlebar" in prompts[1] and ACT in prompts[1]
    assert "[condition]" in prompts[4] and "hands holding the handlebar" in prompts[4]
    assert "feet pushing the pedals" in prompts[5] and "hands holding the handlebar" in prompts[5]
    assert all(c["messages"][0]["role"] == "system" for c in llm.calls)


def test_parse_probability_choice_table():
    table = {
        "(a)": 0.1,
        "(b) 0.5": 0.5,
        "(c)": 0.7,
        "I would say (d) 0.9.": 0.9,
        "(E)": 0.95,
        "(f) unknown": 0.0,
        "d": 0.9,
        "e) 0.95": 0.95,
        "Answer: b": 0.5,
        "(g)": None,
        "no idea": None,
        "": None,
        "(c) or (d)": None,
        "0.9": None,
        "a person riding": None,
    }
    for text, want in table.items():
        assert sl.parse_probability_choice(text) == want, text


def test_parse_condition_and_symbols():
    assert sl.parse_condition("[condition] is: [hands on the pedals].") == "hands on the pedals"
    assert sl.parse_condition('[condition] is: "feet on pedals"') == "feet on pedals"
    assert sl.parse_condition("hands gripping a cup.\nmore") == "hands gripping a cup"
    assert sl.parse_condition("   ") == ""
    # the release's ans.strip("[condition] is: ") strips characters and returned "hands on the sea"
    assert sl.parse_condition("[condition] is: [hands on the seat]") == "hands on the seat"
    # no "there is None" (the release swapped its object / no-object prompt branches)
    assert "None" not in sl.entailment_prompt("riding", ["hands up"])
    assert sl.parse_symbols("Sure:\n1. hands A\n2) hands B.\n3. hands A") == ["hands A", "hands B"]
    assert sl.parse_symbols("hands A\nhands B") == ["hands A", "hands B"]
    with pytest.raises(TypeError, match="text"):
        sl.parse_condition(None)


def test_hashing_encoder_paraphrase_of_word_order():
    e = sl.HashingEncoder().encode(["Hands holding the bar.", "the bar: hands holding", "x y"])
    assert e[0] @ e[1] == pytest.approx(1.0) and abs(e[0] @ e[2]) < 0.5
