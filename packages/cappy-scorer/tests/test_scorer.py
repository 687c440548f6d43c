"""CappyScorer against a direct forward pass of the model, one pair at a time."""

import numpy as np
import pytest
import torch
from cappy_scorer import CappyScorer, Selection
from conftest import tiny_config

from papershelf_harness.testing import assert_close

INSTR = ["the cat sat", "a dog ran fast", "yes", "copy this text please", "one two", "red"]
RESP = ["on the mat", "no", "maybe maybe maybe maybe", "copy this text", "", "blue green"]


def reference_scores(scorer, instructions, responses):
    """logits[0, 0] of the model in eval mode on each pair alone (no padding, no batching)."""
    model, out = scorer.model, []
    model.eval()
    with torch.no_grad():
        for i, r in zip(instructions, responses):
            enc = scorer.tokenizer(
                i, r, truncation=True, max_length=scorer.max_length, return_tensors="pt"
            )
            enc.pop("token_type_ids", None)
            out.append(float(model(**enc).logits[0, 0]))
    return np.array(out)


@pytest.mark.parametrize("arch", ["roberta", "llama", "gpt2", "qwen2"])
def test_score_is_eval_logit_of_each_pair(make_scorer, arch):
    s = make_scorer(arch)
    ref = reference_scores(s, INSTR, RESP)
    assert np.ptp(ref) > 0  # the pairs get different scores: the comparison can fail
    for bs in (1, 4, 32):
        got = s.score(INSTR, RESP, batch_size=bs)
        assert got.shape == (len(INSTR),) and got.dtype == np.float64
        assert_close(got, ref, rtol=1e-5, atol=1e-6)


def test_truncation_at_max_length(make_scorer):
    s = make_scorer("roberta", max_length=8)
    long = " ".join(["one two three"] * 10)
    ref = reference_scores(s, [long, "the cat"], ["four five six " * 5, long])
    assert_close(s.score([long, "the cat"], ["four five six " * 5, long]), ref, atol=1e-6)
    assert len(s.tokenizer(long, long, truncation=True, max_length=8)["input_ids"]) == 8


def test_score_in_eval_mode_and_restores_mode(tok):
    cfg = tiny_config("roberta", len(tok))
    cfg.hidden_dropout_prob = 0.5
    torch.manual_seed(0)
    s = CappyScorer.from_config(cfg, tok)
    s.model.train()
    a, b = s.score(INSTR, RESP), s.score(INSTR, RESP)
    assert_close(a, b, atol=0)  # no dropout while scoring
    assert s.model.training  # the caller's mode is back
    assert_close(a, reference_scores(s, INSTR, RESP), rtol=1e-5, atol=1e-6)


def test_select_and_classify_take_the_argmax(scorer):
    cands = ["on the mat", "no", "maybe", "copy this text", "red blue"]
    scores = scorer.score(["the cat"] * len(cands), cands)
    sel = scorer.select("the cat", cands)
    assert isinstance(sel, Selection)
    best, got = sel
    assert best == cands[int(np.argmax(scores))] and sel.best_index == int(np.argmax(scores))
    assert_close(got, scores, atol=1e-6)
    assert scorer.classify("the cat", cands) == int(np.argmax(scores))
    assert isinstance(scorer.classify("the cat", cands), int)
    # ties: the first of equal candidates
    assert scorer.select("the cat", ["no", "no"]).best_index == 0


def test_from_config_copies_config_and_sets_one_label(tok):
    cfg = tiny_config("llama", len(tok))
    cfg.pad_token_id = None
    s = CappyScorer.from_config(cfg, tok)
    assert cfg.num_labels == 2 and cfg.pad_token_id is None  # the caller's config is untouched
    assert s.model.config.num_labels == 1 and s.model.config.pad_token_id == tok.pad_token_id
    assert s.max_length == 512


def test_save_and_from_pretrained_round_trip(scorer, tmp_path):
    scorer.save_pretrained(tmp_path)
    again = CappyScorer.from_pretrained(tmp_path, max_length=64)
    assert_close(again.score(INSTR, RESP), scorer.score(INSTR, RESP), atol=1e-6)


def test_unpaddable_tokenizer_scores_one_pair_at_a_time(make_scorer):
    s = make_scorer("gpt2")
    s.model.config.pad_token_id = None  # the model cannot pool padded rows
    ref = reference_scores(s, INSTR, RESP)
    assert_close(s.score(INSTR, RESP, batch_size=8), ref, rtol=1e-5, atol=1e-6)
    s.model.config.pad_token_id = 0


def test_two_label_model_is_refused(tok):
    from transformers import AutoModelForSequenceClassification

    model = AutoModelForSequenceClassification.from_config(tiny_config("roberta", len(tok)))
    with pytest.raises(ValueError, match="model"):
        CappyScorer(model, tok)


def test_roberta_config_fits_the_tokenizer_and_max_length(tok):
    from cappy_scorer import roberta_config

    cfg = roberta_config(tok, hidden_size=16, num_layers=1, num_heads=4, max_length=12)
    assert (cfg.vocab_size, cfg.pad_token_id, cfg.hidden_size, cfg.num_attention_heads) == (
        len(tok),
        0,
        16,
        4,
    )
    s = CappyScorer.from_config(cfg, tok, max_length=12)
    long = " ".join(["one two three"] * 10)
    assert len(s.tokenizer(long, long, truncation=True, max_length=12)["input_ids"]) == 12
    assert np.isfinite(s.score([long], [long])).all()  # the last position exists
    small = CappyScorer.from_config(cfg, tok, max_length=13)
    with pytest.raises((IndexError, RuntimeError)):  # one more token has no position
        small.score([long], [long])
