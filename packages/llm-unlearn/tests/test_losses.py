"""encode_qa, answer_nll, forget_loss, mismatch_loss and kl_to_reference against naive
one-sequence-at-a-time references (no padding, explicit loops over positions)."""

import copy

import llm_unlearn as lu
import numpy as np
import pytest
import torch
from conftest import FORGET, NORMAL, POOL, make_model

from papershelf_harness.testing import assert_close

PROMPT = "### Question: {q}\n ### Answer: "


def _ids(tok, text):
    return list(tok(text)["input_ids"])


def n_prompt_tokens(tok, q, a):
    """Tokens of the full text that lie wholly inside the prompt, found independently of
    encode_qa: the byte tokenizer by counting the prompt's own tokens, the BPE by offsets."""
    prompt = PROMPT.format(q=q)
    if not hasattr(tok, "convert_ids_to_tokens"):
        return len(_ids(tok, prompt))
    offsets = tok(prompt + a, return_offsets_mapping=True)["offset_mapping"]
    return sum(1 for _, end in offsets if end <= len(prompt))


def naive_row_nll(model, ids, n_mask):
    with torch.no_grad():
        logp = model(torch.tensor([ids])).logits[0].double().log_softmax(-1)
    vals = [-float(logp[t - 1, ids[t]]) for t in range(n_mask, len(ids))]
    return sum(vals) / len(vals)


def naive_kl(model, ref, tok, pairs, positions):
    vals = []
    for q, a in pairs:
        ids = _ids(tok, PROMPT.format(q=q) + a)
        start = n_prompt_tokens(tok, q, a) if positions == "answer" else 0
        with torch.no_grad():
            p = model(torch.tensor([ids])).logits[0].double().softmax(-1).numpy()
            r = ref(torch.tensor([ids])).logits[0].double().softmax(-1).numpy()
        for t in range(start, len(ids)):
            vals.append(float(np.sum(r[t] * (np.log(r[t]) - np.log(p[t])))))
    return np.mean(vals)


@pytest.mark.parametrize("side", ["right", "left"])
def test_encode_qa_masks_exactly_the_prompt_and_padding(tok, side):
    pairs = FORGET + [("q?", "a much longer answer than the others here")]
    b = lu.encode_qa(pairs, tok, padding_side=side)
    assert set(b) == {"input_ids", "attention_mask", "labels"}
    width = b["input_ids"].shape[1]
    for r, (q, a) in enumerate(pairs):
        ids = _ids(tok, PROMPT.format(q=q) + a)
        n, m = len(ids), n_prompt_tokens(tok, q, a)
        real = slice(0, n) if side == "right" else slice(width - n, width)
        assert b["input_ids"][r, real].tolist() == ids
        assert b["attention_mask"][r].tolist() == [
            int(real.start <= t < real.stop) for t in range(width)
        ]
        want = [-100] * width
        want[real.start + m : real.stop] = ids[m:]
        assert b["labels"][r].tolist() == want
        assert tok.decode(ids[m:]).strip() == a  # the whole answer and nothing of the prompt


def test_encode_qa_bpe_boundary_merge_keeps_the_first_answer_token(bpe_tok):
    q, a = NORMAL[0]
    prompt_ids = _ids(bpe_tok, PROMPT.format(q=q))
    full = _ids(bpe_tok, PROMPT.format(q=q) + a)
    assert full[: len(prompt_ids)] != prompt_ids  # this tokenizer merges "Ġ" + "blue"
    labels = lu.encode_qa([(q, a)], bpe_tok)["labels"][0].tolist()
    assert bpe_tok.decode([t for t in labels if t != -100]) == " blue"


def test_encode_qa_template_and_max_length(byte_tok):
    b = lu.encode_qa([("hi", "there you go")], byte_tok, template="Q:{q} A:{a}!", max_length=12)
    ids = _ids(byte_tok, "Q:hi A:there you go!")[:12]
    assert b["input_ids"][0].tolist() == ids
    n = len(_ids(byte_tok, "Q:hi A:"))
    assert b["labels"][0].tolist() == [-100] * n + ids[n:]
    with pytest.raises(ValueError, match="max_length"):
        lu.encode_qa([("hi", "there")], byte_tok, template="Q:{q} A:{a}", max_length=4)


@pytest.mark.parametrize("side", ["right", "left"])
def test_answer_nll_matches_unpadded_rows(model, tok, side):
    pairs = FORGET + NORMAL[:1]
    got = lu.answer_nll(model, lu.encode_qa(pairs, tok, padding_side=side))
    assert got.shape == (len(pairs),)
    want = [
        naive_row_nll(model, _ids(tok, PROMPT.format(q=q) + a), n_prompt_tokens(tok, q, a))
        for q, a in pairs
    ]
    assert_close(got.detach(), np.array(want), rtol=1e-4, atol=1e-5)
    assert_close(
        lu.forget_loss(model, lu.encode_qa(pairs, tok)).detach(), -np.mean(want), rtol=1e-4
    )


def test_answer_nll_ignores_prompt_tokens_labels(llama, byte_tok):
    b = lu.encode_qa(FORGET, byte_tok)
    base = lu.answer_nll(llama, b).detach()
    b2 = dict(b, input_ids=b["input_ids"].clone())
    # a different question changes the answer's context, so NLL changes; labels alone do not
    b2["labels"] = b["labels"].clone()
    b2["labels"][:, 0] = -100
    assert_close(lu.answer_nll(llama, b2).detach(), base)
    b3 = lu.encode_qa([(q + " please", a) for q, a in FORGET], byte_tok)
    assert not torch.allclose(lu.answer_nll(llama, b3).detach(), base)


def test_answer_nll_refuses_rows_without_answer(llama, byte_tok):
    b = lu.encode_qa(FORGET, byte_tok)
    b["labels"][1] = -100
    with pytest.raises(ValueError, match="batch"):
        lu.answer_nll(llama, b)


def test_sample_mismatch_draws_k_distinct_pool_answers_per_question():
    qs = [q for q, _ in FORGET]
    pairs = lu.sample_mismatch(qs, POOL, k=3, rng=1)
    assert pairs == lu.sample_mismatch(qs, POOL, k=3, rng=np.random.default_rng(1))
    assert pairs != lu.sample_mismatch(qs, POOL, k=3, rng=2)
    assert [q for q, _ in pairs] == [q for q in qs for _ in range(3)]
    for i in range(len(qs)):
        answers = [a for _, a in pairs[3 * i : 3 * i + 3]]
        assert len(set(answers)) == 3 and set(answers) <= set(POOL)
    # uniform over the pool: each answer is drawn with probability k/n per question
    n_q, k = 2000, 2
    counts = np.zeros(len(POOL))
    for _, a in lu.sample_mismatch(["q"] * n_q, POOL, k=k, rng=0):
        counts[POOL.index(a)] += 1
    p = k / len(POOL)
    assert np.all(np.abs(counts - n_q * p) < 5 * np.sqrt(n_q * p * (1 - p)))


def test_mismatch_loss_is_the_mean_answer_nll_of_the_drawn_pairs(model, tok):
    qs = [q for q, _ in FORGET]
    got = lu.mismatch_loss(model, tok, qs, POOL, k=2, rng=7)
    pairs = lu.sample_mismatch(qs, POOL, k=2, rng=7)
    want = np.mean(
        [
            naive_row_nll(model, _ids(tok, PROMPT.format(q=q) + a), n_prompt_tokens(tok, q, a))
            for q, a in pairs
        ]
    )
    assert_close(got.detach(), want, rtol=1e-4)
    assert got.requires_grad


@pytest.mark.parametrize("side", ["right", "left"])
def test_kl_to_reference_matches_naive_token_average(model, tok, side):
    arch = type(model).__name__
    ref = make_model(
        {"LlamaForCausalLM": "llama", "GPT2LMHeadModel": "gpt2"}.get(arch, "qwen2"), seed=1
    )
    pairs = NORMAL + [("q?", "a longer answer to pad the others")]
    batch = lu.encode_qa(pairs, tok, padding_side=side)
    for positions in ("all", "answer"):
        got = lu.kl_to_reference(model, ref, batch, positions=positions)
        want = naive_kl(model, ref, tok, pairs, positions)
        assert_close(got.detach(), want, rtol=1e-4, atol=1e-7)


def test_kl_is_zero_with_zero_gradient_for_the_same_model(llama, byte_tok):
    model = copy.deepcopy(llama)
    kl = lu.kl_to_reference(model, model, lu.encode_qa(NORMAL, byte_tok, padding_side="left"))
    assert abs(float(kl.detach())) < 1e-6
    kl.backward()
    grads = [p.grad.abs().max() for p in model.parameters() if p.grad is not None]
    assert grads and max(grads) < 1e-6
