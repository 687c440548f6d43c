"""self_score against token-by-token log-probabilities; candidates; the selection report."""

import numpy as np
import pytest
import torch
from cappy_scorer import (
    DEFAULT_DECODINGS,
    SelectionReport,
    evaluate_selection,
    generate_candidates,
    rouge_l,
    self_score,
)

from papershelf_harness.testing import assert_close
from papershelf_harness.tiny_hf import tiny_causal_lm

CANDS = ["sat on the mat", "no", "a dog ran fast fast", "maybe"]


def brute_force(llm, tok, instruction, candidates):
    """Sum of log p(next token | every token before it), one forward pass per token."""
    prompt = tok(instruction)["input_ids"]
    out = []
    with torch.no_grad():
        for c in candidates:
            ids = list(prompt)
            total = 0.0
            for t in tok(c, add_special_tokens=False)["input_ids"]:
                if llm.config.is_encoder_decoder:
                    dec = [llm.config.decoder_start_token_id] + ids[len(prompt) :]
                    logits = llm(
                        input_ids=torch.tensor([prompt]), decoder_input_ids=torch.tensor([dec])
                    ).logits[0, -1]
                else:
                    logits = llm(input_ids=torch.tensor([ids])).logits[0, -1]
                total += float(torch.log_softmax(logits.double(), -1)[t])
                ids.append(t)
            out.append(total)
    return np.array(out)


def tiny_t5(vocab):
    import transformers

    torch.manual_seed(0)
    sizes = dict(d_model=32, d_kv=8, d_ff=64, num_layers=1, num_heads=4)
    ids = dict(pad_token_id=0, eos_token_id=3, decoder_start_token_id=0)
    cfg = transformers.T5Config(vocab_size=vocab, **sizes, **ids)
    return transformers.T5ForConditionalGeneration(cfg).eval()


@pytest.mark.parametrize("arch", ["llama", "gpt2", "qwen2", "t5"])
def test_self_score_is_the_log_likelihood(tok, arch):
    llm = tiny_t5(len(tok)) if arch == "t5" else tiny_causal_lm(arch, vocab=len(tok), seed=1)
    ref = brute_force(llm, tok, "the cat", CANDS)
    lengths = np.array([len(tok(c, add_special_tokens=False)["input_ids"]) for c in CANDS])
    for bs in (1, 16):
        assert_close(self_score(llm, tok, "the cat", CANDS, batch_size=bs), ref, rtol=1e-4)
    mean = self_score(llm, tok, "the cat", CANDS, reduce="mean")
    assert_close(mean, ref / lengths, rtol=1e-4)


def test_generate_candidates_paper_decoders(tok):
    llm = tiny_causal_lm("llama", vocab=len(tok), seed=2)
    g = lambda: torch.Generator().manual_seed(0)  # noqa: E731
    a = generate_candidates(llm, tok, "the cat", max_new_tokens=4, generator=g())
    assert len(a) == sum(n for n, _ in DEFAULT_DECODINGS.values()) == 17
    assert all(isinstance(c, str) for c in a)
    assert a == generate_candidates(llm, tok, "the cat", max_new_tokens=4, generator=g())
    assert len(set(a[1:])) > 1  # samples differ
    one = generate_candidates(
        llm, tok, "the cat", decodings={"greedy": (1, {"do_sample": False})}, max_new_tokens=4
    )
    ids = tok("the cat", return_tensors="pt")["input_ids"]
    greedy = llm.generate(ids, max_new_tokens=4, min_new_tokens=3, do_sample=False, pad_token_id=0)
    assert one == [tok.decode(greedy[0, ids.shape[1] :], skip_special_tokens=True)]


def test_evaluate_selection_rules(scorer):
    exs = [
        {"instruction": "the cat", "references": ["sat on the mat"], "candidates": CANDS},
        {"instruction": "a dog", "references": ["ran fast"], "candidates": CANDS[::-1]},
    ]
    rep = evaluate_selection(
        scorer,
        exs,
        self_scores=[[rouge_l(c, e["references"]) for c in e["candidates"]] for e in exs],
        rng=0,
    )
    assert isinstance(rep, SelectionReport) and rep.n == 2
    oracle = np.mean([max(rouge_l(c, e["references"]) for c in e["candidates"]) for e in exs])
    assert rep.oracle == pytest.approx(oracle) and rep.self_score == pytest.approx(oracle)
    first = np.mean([rouge_l(e["candidates"][0], e["references"]) for e in exs])
    assert rep.first == pytest.approx(first)
    picks = [scorer.select(e["instruction"], e["candidates"]).best for e in exs]
    assert rep.cappy == pytest.approx(
        np.mean([rouge_l(p, e["references"]) for p, e in zip(picks, exs)])
    )
    assert 0 <= rep.random <= rep.oracle
    assert evaluate_selection(scorer, exs, rng=0).self_score is None
