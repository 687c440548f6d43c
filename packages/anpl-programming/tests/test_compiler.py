"""Compiler with scripted replies (brief checks 2 and 4): every rule of the fill loop."""

import ast

import numpy as np
import pytest
from anpl_programming import CompileError, Compiler, IOExample, ScriptedLLM, parse, run


def block(code):
    return f"Here you go:\n```python\n{code}\n```\nDone."


class KeywordOnlyLLM(ScriptedLLM):
    """Fails unless n and temperature come as keywords (the protocol's calling convention)."""

    def complete(self, messages, *, n=1, temperature=0.0):
        return super().complete(messages, n=n, temperature=temperature)


TWO_HOLES = parse(
    "def main(x):\n    y = `double it`(x)\n    return `add one`(y) + `double it`(1)\n"
)
DOUBLE = block("def double(v):\n    return 2 * v")
ADD_ONE = block("def add_one(v):\n    return v + 1")


def test_bad_replies_move_on_to_the_next_temperature_in_order():
    replies = [
        "I think you should double it.",  # no code block
        block("def double(v):\n    return 2 *"),  # syntax error
        "```python\ndef a(v):\n    return v\n```\n```python\ndef b(:\n```",  # joined blocks fail
        DOUBLE,
        ADD_ONE,
    ]
    llm = KeywordOnlyLLM(replies)
    out = Compiler(llm).compile(TWO_HOLES)
    assert [c["temperature"] for c in llm.calls] == [0.0, 0.1, 0.2, 0.3, 0.0]
    assert [c["n"] for c in llm.calls] == [1] * 5
    assert [(a.hole, a.attempt, a.ok) for a in out.log] == [
        ("_hole0", 0, False), ("_hole0", 1, False), ("_hole0", 2, False),
        ("_hole0", 3, True), ("_hole1", 0, True),
    ]  # fmt: skip
    assert out.holes() == [] and run(out, {"x": 3}) == 7 + 2


def test_prompt_ends_with_description_and_hole_name():
    llm = ScriptedLLM([DOUBLE, ADD_ONE])
    Compiler(llm).compile(TWO_HOLES)
    first, second = (c["messages"] for c in llm.calls)
    assert first[0]["role"] == "system" and first[-1]["role"] == "user"
    assert first[-1]["content"].endswith("# double it\ndef _hole0")
    assert second[-1]["content"].endswith("# add one\ndef _hole1")
    assert "def double(v)" in second[-1]["content"]  # the filled hole is in the next prompt
    assert "def _hole1" not in first[-1]["content"].split("```")[1]  # holes are absent


def test_new_name_replaces_hole_at_every_call_site():
    out = Compiler(ScriptedLLM([DOUBLE, ADD_ONE])).compile(TWO_HOLES)
    names = [n.id for n in ast.walk(out.functions["main"].code) if isinstance(n, ast.Name)]
    assert names.count("double") == 2 and "_hole0" not in names and "_hole1" not in names
    assert set(out.functions) == {"main", "double", "add_one"}
    assert out.functions["double"].description == "double it"  # the user's description stays
    assert not out.functions["double"].code_from_user


def test_input_program_is_left_untouched():
    before = TWO_HOLES.to_python()
    out = Compiler(ScriptedLLM([DOUBLE, ADD_ONE])).compile(TWO_HOLES)
    assert TWO_HOLES.to_python() == before and TWO_HOLES.holes() == ["_hole0", "_hole1"]
    assert out is not TWO_HOLES


def test_generated_helper_never_overwrites_user_code():
    p = parse("def helper(v):\n    return v - 100\n\ndef main(x):\n    return helper(`f`(x))\n")
    reply = block("def f(v):\n    return helper(v) * 2\n\ndef helper(v):\n    return v")
    out = Compiler(ScriptedLLM([reply])).compile(p)
    assert out.functions["helper"].code_from_user
    assert run(out, {"x": 200}) == (200 - 100) * 2 - 100


def test_generated_helper_fills_another_hole_but_not_its_description():
    p = parse('def main(x):\n    return g(`f`(x))\n\ndef g(v):\n    """add ten"""\n')
    reply = block(
        'def f(v):\n    return v\n\ndef g(v):\n    """generated doc"""\n    return v + 10'
    )
    llm = ScriptedLLM([reply])
    out = Compiler(llm).compile(p)
    assert len(llm.calls) == 1 and out.holes() == []
    assert out.functions["g"].description == "add ten" and run(out, {"x": 1}) == 11


def test_defined_hole_keeps_its_name_and_signature():
    p = parse('def main(g):\n    return flip(g)\n\ndef flip(g):\n    """flip upside down"""\n')
    llm = ScriptedLLM(
        [block("def other(g):\n    return g"), block("def flip(g):\n    return g[::-1]")]
    )
    out = Compiler(llm).compile(p)
    assert [a.ok for a in out.log] == [False, True]
    assert llm.calls[0]["messages"][-1]["content"].endswith("# flip upside down\ndef flip")
    np.testing.assert_array_equal(run(out, {"g": np.arange(3)}), [2, 1, 0])


def test_reply_that_echoes_the_user_code_fills_the_hole_and_keeps_the_user_code():
    p = parse("def main(x):\n    return `f`(x) + 1\n")
    echo = block("def main(x):\n    return neg(x) * 100\n\ndef neg(v):\n    return -v")
    out = Compiler(ScriptedLLM([echo])).compile(p)
    assert out.functions["main"].code_from_user and run(out, {"x": 2}) == -2 + 1


def test_reply_with_two_unrelated_new_functions_is_ambiguous():
    p = parse("def main(x):\n    return `f`(x)\n")
    two = block("def a(v):\n    return v\n\ndef b(v):\n    return -v")
    llm = ScriptedLLM([two, block("def c(v):\n    return 3 * v")])
    out = Compiler(llm).compile(p)
    assert [a.ok for a in out.log] == [False, True] and run(out, {"x": 2}) == 6


def test_inline_hole_name_already_in_use_is_rejected():
    p = parse("def main(x):\n    return `f`(x)\n")
    llm = ScriptedLLM([block("def main(v):\n    return v"), block("def ok(v):\n    return -v")])
    out = Compiler(llm).compile(p)
    assert [a.ok for a in out.log] == [False, True] and run(out, {"x": 2}) == -2


def test_five_failures_raise_compile_error_with_the_unfilled_hole():
    llm = ScriptedLLM([DOUBLE] + ["no code"] * 5)
    with pytest.raises(CompileError) as info:
        Compiler(llm).compile(TWO_HOLES)
    assert info.value.holes == ["_hole1"]
    assert [c["temperature"] for c in llm.calls[1:]] == [0.0, 0.1, 0.2, 0.3, 0.4]
    assert len(info.value.log) == 6


def test_custom_temperatures_set_the_number_of_attempts():
    llm = ScriptedLLM(["no", "no"])
    with pytest.raises(CompileError):
        Compiler(llm, temperatures=(0.5, 0.7)).compile(parse("def main(x):\n    return `f`(x)\n"))
    assert [c["temperature"] for c in llm.calls] == [0.5, 0.7]


def test_reply_with_new_holes_is_compiled_recursively():
    p = parse("def main(x):\n    return `f`(x)\n")
    r1 = block('def f(v):\n    return g(v) + 1\n\ndef g(v):\n    """square"""')
    r2 = block("def g(v):\n    return v * v")
    out = Compiler(ScriptedLLM([r1, r2])).compile(p)
    assert run(out, {"x": 3}) == 10


# --- resynthesis (brief check 4) ----------------------------------------------------------------

WRONG = "def double(v):\n    return v + {k}"
RIGHT = "def double(v):\n    return 2 * v"


def _candidates(right_at):
    return [block(RIGHT if i == right_at else WRONG.format(k=i + 10)) for i in range(10)]


def test_resynthesis_keeps_exactly_the_first_fitting_candidate():
    prog = Compiler(ScriptedLLM([block(WRONG.format(k=0)), ADD_ONE])).compile(TWO_HOLES)
    assert run(prog, {"x": 3}) == 3 + 1 + 1
    # only the 7th candidate (index 6) doubles; candidate 9 would fit input 0 only
    cands = _candidates(6)
    cands[8] = block("def double(v):\n    return 0 if v == 0 else 2 * v + 1")
    llm = ScriptedLLM([cands])
    ios = [IOExample({"v": 5}, 10)]
    new = Compiler(llm).resynthesize(prog, "double", ios)
    assert len(llm.calls) == 1 and llm.calls[0]["n"] == 10 and llm.calls[0]["temperature"] == 0.8
    assert new.functions["double"].source.endswith("return 2 * v")
    assert new.functions["double"].golden_ios == tuple(ios)
    assert run(new, {"x": 3}) == 7 + 2
    assert run(prog, {"x": 3}) == 5  # the input program is unchanged


def test_resynthesis_prompt_has_the_function_reset_to_a_hole():
    prog = Compiler(ScriptedLLM([block(WRONG.format(k=0)), ADD_ONE])).compile(TWO_HOLES)
    llm = ScriptedLLM([_candidates(0)])
    Compiler(llm).resynthesize(prog, "double", [IOExample({"v": 1}, 2)])
    program_text = llm.calls[0]["messages"][-1]["content"].split("```")[1]
    assert "def double" not in program_text and "def add_one" in program_text
    assert llm.calls[0]["messages"][-1]["content"].endswith("# double it\ndef double")


def test_resynthesis_returns_none_when_no_candidate_fits():
    prog = Compiler(ScriptedLLM([block(WRONG.format(k=0)), ADD_ONE])).compile(TWO_HOLES)
    before = prog.to_python()
    cands = [block(WRONG.format(k=i + 1)) for i in range(8)] + [
        "no code",
        block("def double(v):\n    while True:\n        pass"),
    ]
    assert (
        Compiler(ScriptedLLM([cands])).resynthesize(
            prog, "double", [IOExample({"v": 50}, 100)], timeout=0.3
        )
        is None
    )
    assert prog.to_python() == before


def test_resynthesis_needs_every_golden_io():
    prog = Compiler(ScriptedLLM([block(WRONG.format(k=0)), ADD_ONE])).compile(TWO_HOLES)
    only_first = block("def double(v):\n    return 10")  # fits v=5 only
    llm = ScriptedLLM([[only_first, block(RIGHT)]])
    ios = [IOExample({"v": 5}, 10), IOExample({"v": 1}, 2)]
    new = Compiler(llm).resynthesize(prog, "double", ios, n=2)
    assert new.functions["double"].source.endswith("return 2 * v")


def test_resynthesis_of_one_hole_while_others_are_still_open():
    p = parse("def main(x):\n    return `g`(`f`(x))\n")
    llm = ScriptedLLM(
        [[block("def f(v):\n    return v + 1"), block("def f2(v):\n    return 2 * v")]]
    )
    new = Compiler(llm).resynthesize(p, "_hole1", [IOExample({"v": 4}, 8)], n=2)
    assert new.holes() == ["_hole0"] and new.functions["f2"].golden_ios[0].output == 8
    assert "f2" in new.functions["main"].deps
