"""The LLM backends: ScriptedLLM and LibraryLLM (always), HFLLM on a real tiny trained Llama from
papershelf-tinylm (test-hf group, run by `nox -s tests_extras`; skipped without torch)."""

import pytest
from anpl_programming import Compiler, LibraryLLM, ScriptedLLM, parse, run

MSGS = [{"role": "system", "content": "s"}, {"role": "user", "content": "# double x\ndef _hole0"}]


def test_scripted_llm_replays_in_order_and_records_calls():
    llm = ScriptedLLM(["a", "b", ["c", "d"], "e", "f"])
    assert llm.complete(MSGS) == ["a"]
    assert llm.complete(MSGS, n=1, temperature=0.3) == ["b"]
    assert llm.complete(MSGS, n=2, temperature=0.8) == ["c", "d"]
    assert llm.complete(MSGS, n=2) == ["e", "f"]
    assert [(c["n"], c["temperature"]) for c in llm.calls] == [
        (1, 0.0),
        (1, 0.3),
        (2, 0.8),
        (2, 0.0),
    ]
    assert llm.calls[0]["messages"] == MSGS and llm.calls[0]["messages"] is not MSGS
    with pytest.raises(RuntimeError):
        llm.complete(MSGS)
    with pytest.raises(ValueError):
        ScriptedLLM([["x"]]).complete(MSGS, n=2)


def test_library_llm_answers_known_primitives_only():
    llm = LibraryLLM({"Double X": "def double(x):\n    return 2 * x"})
    (reply,) = llm.complete(MSGS)
    assert "def double(x)" in reply
    (reply,) = llm.complete([{"role": "user", "content": "# double x\ndef twice"}])
    assert "def twice(x)" in reply  # a defined hole is answered under its own name
    assert "```" not in llm.complete([{"role": "user", "content": "# triple x\ndef _hole0"}])[0]


def test_library_llm_samples_candidates_in_order_above_zero_temperature():
    llm = LibraryLLM({"f": ["def a(x):\n    return 1", "def b(x):\n    return 2"]})
    ask = [{"role": "user", "content": "# f\ndef _hole0"}]
    assert [r.count("def a") for r in llm.complete(ask, n=3)] == [1, 1, 1]
    assert ["def a" in r for r in llm.complete(ask, n=3, temperature=0.8)] == [True, False, True]


def test_library_llm_compiles_a_decomposed_program():
    llm = LibraryLLM(
        {"double x": "def double(x):\n    return 2 * x", "add one": "def inc(x):\n    return x + 1"}
    )
    prog = Compiler(llm).compile(parse("def main(x):\n    return `add one`(`double x`(x))\n"))
    assert run(prog, {"x": 4}) == 9


def test_hf_backend_on_a_trained_tiny_llama():
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    tl = pytest.importorskip("papershelf_tinylm")
    from anpl_programming import HFLLM

    target, _, tok = tl.load_pair(micro=True)
    llm = HFLLM(target, tok, max_new_tokens=12)
    greedy = llm.complete(MSGS, n=2, temperature=0.0)
    assert len(greedy) == 2 and greedy[0] == greedy[1] and all(isinstance(t, str) for t in greedy)
    assert greedy == llm.complete(MSGS, n=2, temperature=0.0)  # greedy is deterministic
    sampled = llm.complete(MSGS, n=3, temperature=1.0)
    assert len(sampled) == 3 and all(isinstance(t, str) for t in sampled)
    # a real model's reply goes through the compiler's loop (it will not write valid code)
    from anpl_programming import CompileError

    with pytest.raises(CompileError):
        Compiler(llm, temperatures=(0.0,)).compile(parse("def main(x):\n    return `f`(x)\n"))
