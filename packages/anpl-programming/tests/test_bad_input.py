"""Bad input gets a TypeError (wrong type) or ValueError (wrong value) naming the argument.

One case per public numeric/flag argument (the suite writes the hypothesis tests), plain tests
for the structural arguments (programs, IO lists, LLMs) that the case kinds do not cover.
"""

import anpl_programming as ap
import pytest
from hypothesis import strategies as st

from papershelf_harness import suite
from papershelf_harness.testing import assert_rejects

PROG = ap.parse("def main(x):\n    return x + 1\n")
HOLEY = ap.parse("def main(x):\n    return `f`(x)\n")
IOS = [ap.IOExample({"x": 1}, 2)]
MSGS = [{"role": "user", "content": "# f\ndef _hole0"}]
FIT = "```python\ndef f(x):\n    return x\n```"


def _resyn(**kw):
    compiled = ap.Compiler(ap.ScriptedLLM([FIT])).compile(HOLEY)
    llm = ap.ScriptedLLM([FIT] * 3)
    return ap.Compiler(llm).resynthesize(compiled, "f", [ap.IOExample({"x": 1}, 1)], **kw)


NEG = st.floats(max_value=-1e-9, allow_nan=False, allow_infinity=False)
NONPOS = st.floats(max_value=0.0, allow_nan=False, allow_infinity=False)

CASES = [
    suite.keyword(suite.Number, ap.run, "timeout", PROG, {"x": 1}),
    suite.keyword(suite.OutOfRange, ap.run, "timeout", PROG, {"x": 1}, values=NONPOS),
    suite.keyword(suite.Number, ap.check, "timeout", PROG, IOS),
    suite.keyword(suite.OutOfRange, ap.check, "timeout", PROG, IOS, values=NONPOS),
    suite.keyword(suite.Number, ap.trace, "timeout", PROG, "main", {"x": 1}),
    suite.keyword(suite.OutOfRange, ap.trace, "timeout", PROG, "main", {"x": 1}, values=NONPOS),
    suite.Number("Compiler.temperatures", "temperatures", lambda v: ap.Compiler(ap.ScriptedLLM([]), temperatures=(0.0, v))),
    suite.OutOfRange("Compiler.temperatures", "temperatures", lambda v: ap.Compiler(ap.ScriptedLLM([]), temperatures=(v,)), NEG),
    suite.keyword(suite.Number, _resyn, 'temperature', id='resynthesize.temperature'),
    suite.keyword(suite.OutOfRange, _resyn, 'temperature', id='resynthesize.temperature', values=NEG),
    suite.keyword(suite.Int, _resyn, 'n', id='resynthesize.n', minimum=1),
    suite.keyword(suite.Number, _resyn, 'timeout', id='resynthesize.timeout'),
    suite.keyword(suite.Number, ap.ScriptedLLM(["a"] * 100).complete, "temperature", MSGS),
    suite.keyword(suite.OutOfRange, ap.ScriptedLLM(["a"] * 100).complete, "temperature", MSGS, values=NEG),
    suite.keyword(suite.Int, ap.ScriptedLLM(["a"] * 100).complete, "n", MSGS, minimum=1),
    suite.keyword(suite.Number, ap.LibraryLLM({}).complete, "temperature", MSGS),
    suite.keyword(suite.Int, ap.LibraryLLM({}).complete, "n", MSGS, minimum=1),
    suite.keyword(suite.Flag, PROG.to_python, "include_generated"),
    suite.keyword(suite.Flag, PROG.to_python, "include_holes"),
    suite.keyword(suite.Flag, PROG.to_python, "prelude"),
]  # fmt: skip

globals().update(suite.bad_input_suite(CASES))


@pytest.mark.parametrize("value", [None, 3, b"def f(): pass", ["def f(): pass"]])
def test_parse_source_must_be_text(value):
    assert_rejects(TypeError, "source", ap.parse, value)


def test_invalid_program_text_is_a_value_error_naming_source():
    assert_rejects(ValueError, "source", ap.parse, "def main(:\n")
    assert_rejects(
        ValueError, "source", ap.parse, "def a():\n    return 1\ndef b():\n    return 2\n"
    )


@pytest.mark.parametrize("fn", [ap.run, ap.check])
def test_program_must_be_a_hole_free_program(fn):
    arg = {"x": 1} if fn is ap.run else IOS
    assert_rejects(TypeError, "program", fn, 42, arg)
    assert_rejects(ValueError, "program", fn, HOLEY, arg)


@pytest.mark.parametrize("value", [[1], 1, "x", None])
def test_inputs_must_be_a_mapping_or_tuple(value):
    assert_rejects(TypeError, "inputs", ap.run, PROG, value)
    assert_rejects(TypeError, "inputs", ap.trace, PROG, "main", value)
    assert_rejects(TypeError, "inputs", ap.IOExample, value, 1)
    assert_rejects(ValueError, "inputs", ap.run, PROG, {1: 2})


def test_ios_must_be_a_nonempty_list_of_io_examples():
    assert_rejects(ValueError, "ios", ap.check, PROG, [])
    assert_rejects(TypeError, "ios", ap.check, PROG, [({"x": 1}, 2)])
    assert_rejects(TypeError, "ios", ap.check, PROG, "ios")
    compiled = ap.Compiler(ap.ScriptedLLM([FIT])).compile(HOLEY)
    c = ap.Compiler(ap.ScriptedLLM([]))
    assert_rejects(ValueError, "ios", c.resynthesize, compiled, "f", [])


def test_fn_must_name_a_function():
    assert_rejects(ValueError, "fn", ap.trace, PROG, "nope", {"x": 1})
    assert_rejects(TypeError, "fn", ap.trace, PROG, 3, {"x": 1})
    c = ap.Compiler(ap.ScriptedLLM([]))
    assert_rejects(ValueError, "fn", c.resynthesize, PROG, "nope", IOS)
    assert_rejects(TypeError, "program", c.resynthesize, "main", "main", IOS)


def test_llm_must_follow_the_protocol():
    assert_rejects(TypeError, "llm", ap.Compiler, object())
    assert_rejects(TypeError, "temperatures", ap.Compiler, ap.ScriptedLLM([]), temperatures=0.1)
    assert_rejects(ValueError, "temperatures", ap.Compiler, ap.ScriptedLLM([]), temperatures=())
    assert_rejects(TypeError, "program", ap.Compiler(ap.ScriptedLLM([])).compile, "source")

    class Bad:
        def complete(self, messages, *, n=1, temperature=0.0):
            return "not a list"

    assert_rejects(TypeError, "llm", ap.Compiler(Bad()).compile, HOLEY)

    class Short:
        def complete(self, messages, *, n=1, temperature=0.0):
            return []

    assert_rejects(ValueError, "llm", ap.Compiler(Short()).compile, HOLEY)


def test_scripted_and_library_llm_arguments():
    assert_rejects(TypeError, "replies", ap.ScriptedLLM, "one reply")
    assert_rejects(TypeError, "replies", ap.ScriptedLLM, [1, 2])
    assert_rejects(TypeError, "mapping", ap.LibraryLLM, ["a"])
    assert_rejects(TypeError, "mapping", ap.LibraryLLM, {"a": 3})
    assert_rejects(TypeError, "messages", ap.ScriptedLLM(["a"]).complete, "hello")
    assert_rejects(TypeError, "model", ap.HFLLM, object(), object())
