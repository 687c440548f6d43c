"""extract_letter against a hand-written table (what a careful reader answers), its documented
precedence, and the LLM fallback with a scripted judge."""

import pytest
from scifibench import EXTRACTION_PROMPT, LLMExtractor, ScriptedLLM, extract_letter

# (reply, expected letter, keyword options): expected values were written by reading each reply
TABLE = [
    # rule 1: bare letters
    ("C", "C", {}),
    ("  D \n", "D", {}),
    ("(B)", "B", {}),
    ("E.", "E", {}),
    ("**A**", "A", {}),
    ("c", None, {}),
    ("c", "C", {"allow_lowercase": True}),
    # rule 2: "answer is X" / "Answer: X"
    ("The answer is (B).", "B", {}),
    ("The correct answer is B. Here's why: option A shows a loss curve.", "B", {}),
    ("Answer: e", None, {}),
    ("Answer: e", "E", {"allow_lowercase": True}),
    ("Final Answer: **C**", "C", {}),
    ("answer is: [D]", "D", {}),
    ("Looking at (A) and (B) carefully, the answer is C", "C", {}),
    ("**A** looks plausible but the answer is D", "D", {}),
    ("The answer is because of the axis", None, {}),
    ("the answer is a bit unclear; I pick (C)", "C", {"allow_lowercase": True}),
    ("Answer: None", None, {}),
    ("Answer: A or B", None, {}),
    ("The answer is C/D", None, {}),
    ("Answer: B\nAnswer: C", None, {}),
    ("Answer: B. Or maybe not.", "B", {}),
    # rule 3: "(X)" / "X)"
    ("I choose (B), not **C**", "B", {}),
    ("B) the curve of BER against SNR", "B", {}),
    ("(A) is wrong and (D) is wrong", None, {}),
    ("(A) and (B) are both wrong, so **C**", "C", {}),
    # rule 4: bold
    ("After comparing the axes I go with **E** here", "E", {}),
    # rule 5: sole standalone letter
    ("It must be D given the legend", "D", {}),
    ("A or B", None, {}),
    ("", None, {}),
    ("I don't know", None, {}),
    ("None of the options match", None, {}),
    ("ABCDE", None, {}),
    ("Figure B's axis", None, {}),
    ("x-axis and A-B testing", None, {}),
    # letters beyond n_options are not answers
    ("F", None, {}),
    ("The answer is F", None, {}),
    ("The answer is C", None, {"n_options": 2}),
    ("The answer is H", "H", {"n_options": 10}),
]


@pytest.mark.parametrize(("reply", "expected", "kw"), TABLE, ids=[repr(t[0])[:40] for t in TABLE])
def test_extraction_table(reply, expected, kw):
    assert extract_letter(reply, **kw) == expected


def test_returned_letters_are_upper_case_and_valid():
    for reply, _, kw in TABLE:
        got = extract_letter(reply, **kw)
        assert got is None or (len(got) == 1 and got.isupper())


def test_precedence_order_is_the_documented_one():
    # each pair holds a candidate for a higher rule (first) and a lower rule (second)
    assert extract_letter("B") == "B"  # 1 beats nothing else present
    assert extract_letter("(A) ... **E** ... the answer is C") == "C"  # 2 > 3, 4
    assert extract_letter("**E** then (A)") == "A"  # 3 > 4
    assert extract_letter("D is tempting, but **E**") == "E"  # 4 > 5
    assert extract_letter("Answer: B. (C) was close") == "B"  # 2 > 3


def test_llm_fallback_only_when_the_rules_fail():
    llm = ScriptedLLM(["B", "None"])
    ex = LLMExtractor(llm)
    assert ex("The answer is D") == "D" and ex.n_llm_calls == 0 and not llm.calls
    assert ex("maybe the second one") == "B"
    assert ex("no idea") is None
    assert ex.n_llm_calls == 2
    prompt = llm.calls[0]["messages"][0]["content"]
    assert "maybe the second one" in prompt and "options A) - E)" in prompt
    assert llm.calls[0]["n"] == 1 and llm.calls[0]["temperature"] == 0.0
    assert EXTRACTION_PROMPT.startswith("Here is the output from a generative model")


def test_llm_always_asked_when_not_deterministic_first():
    llm = ScriptedLLM(["A"])
    assert LLMExtractor(llm, deterministic_first=False)("The answer is D") == "A"
    assert len(llm.calls) == 1
