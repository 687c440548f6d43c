"""The LLM protocol: ScriptedLLM replays and records; HFLLM on a real tiny trained Llama from
papershelf-tinylm (test-hf group, run by `nox -s tests_extras`; skipped without torch)."""

import pytest
import symbol_llm as sl

MSGS = [{"role": "system", "content": "s"}, {"role": "user", "content": "hi"}]


def test_scripted_llm_replays_in_order_and_records_calls():
    llm = sl.ScriptedLLM(["a", "b", "c"])
    assert isinstance(llm, sl.LLM)
    assert llm.complete(MSGS) == ["a"]
    assert llm.complete(MSGS, n=2, temperature=0.7) == ["b", "c"]
    assert [(c["n"], c["temperature"]) for c in llm.calls] == [(1, 0.0), (2, 0.7)]
    MSGS[1]["content"] = "changed"
    assert llm.calls[0]["messages"][1]["content"] == "hi"  # a copy, not the caller's list
    MSGS[1]["content"] = "hi"
    with pytest.raises(RuntimeError, match="ran out"):
        llm.complete(MSGS)


def test_list_items_are_whole_answers():
    llm = sl.ScriptedLLM([["a", "b"], "c"])
    assert llm.complete(MSGS, n=2) == ["a", "b"] and llm.complete(MSGS) == ["c"]
    with pytest.raises(ValueError, match="n=1"):
        sl.ScriptedLLM([["a", "b"]]).complete(MSGS)


def test_callable_script_answers_from_the_prompt():
    llm = sl.ScriptedLLM(lambda m: m[-1]["content"].upper())
    assert llm.complete(MSGS, n=2) == ["HI", "HI"] and llm.remaining is None


def test_hf_backend_is_lazy_and_checks_its_arguments():
    with pytest.raises(TypeError, match="model"):
        sl.HFLLM(object(), object())


def test_hf_backend_on_a_trained_tiny_llama():
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    tl = pytest.importorskip("papershelf_tinylm")
    target, _, tok = tl.load_pair(micro=True)
    llm = sl.HFLLM(target, tok, max_new_tokens=12)
    greedy = llm.complete(MSGS, n=2, temperature=0.0)
    assert len(greedy) == 2 and greedy[0] == greedy[1] and all(isinstance(t, str) for t in greedy)
    assert greedy == llm.complete(MSGS, n=2, temperature=0.0)
    sampled = llm.complete(MSGS, n=3, temperature=1.0)
    assert len(sampled) == 3 and all(isinstance(t, str) for t in sampled)
    # a code-trained micro model does not answer the multiple choice: the budget ends the loop
    try:
        rb = sl.generate_rules(
            "riding a bicycle",
            llm,
            sl.HashingEncoder(),
            max_loops=1,
            max_premises=2,
            n_votes=1,
            max_queries=2,
        )
    except RuntimeError as e:
        assert "max_queries" in str(e)
    else:
        assert isinstance(rb, sl.RuleBase) and len(rb.rules) <= 1
