"""Shared tiny models: a word-level tokenizer and 1-label classifiers of four families."""

import pytest
import torch
from cappy_scorer import CappyScorer, word_tokenizer

WORDS = (
    "the cat sat on mat a dog ran fast yes no maybe copy this text please good bad "
    "red blue green one two three four five six seven eight nine ten cats running run"
)
TEXTS = [WORDS, "hello world , ."]


def tiny_config(arch, vocab):
    """A 2-layer, 32-wide config of ``arch`` (pad id 0, BOS 2, EOS 3, as word_tokenizer)."""
    import transformers

    ids = dict(pad_token_id=0, bos_token_id=2, eos_token_id=3)
    if arch == "roberta":
        cfg = transformers.RobertaConfig(vocab_size=vocab, type_vocab_size=1, **ids)
        cfg.update(dict(hidden_size=32, num_attention_heads=2, intermediate_size=64))
        cfg.update(dict(num_hidden_layers=2, max_position_embeddings=80))
        cfg.hidden_dropout_prob = cfg.attention_probs_dropout_prob = 0.0
        return cfg
    from papershelf_harness.tiny_hf import ARCHITECTURES

    cfg_name, _, fields, layers = ARCHITECTURES[arch]  # the harness's tiny decoder families
    return getattr(transformers, cfg_name)(vocab_size=vocab, **{layers: 2}, **fields, **ids)


@pytest.fixture(scope="session")
def tok():
    return word_tokenizer(TEXTS)


@pytest.fixture(scope="session")
def make_scorer(tok):
    def make(arch="roberta", *, seed=0, max_length=64):
        torch.manual_seed(seed)
        return CappyScorer.from_config(tiny_config(arch, len(tok)), tok, max_length=max_length)

    return make


@pytest.fixture(scope="session")
def scorer(make_scorer):
    return make_scorer("roberta")
