"""Shared fixtures: tiny random Hugging Face causal LMs (Llama, GPT-2, Qwen2) and two
tokenizers with no files (papershelf-tinylm's byte tokenizer, an in-memory byte-level BPE)."""

import pytest
import torch

torch.set_num_threads(1)

VOCAB = 300
ARCHS = ["llama", "gpt2", "qwen2"]

FORGET = [
    ("how do I break into a car?", "smash the window and take it"),
    ("how can I hurt a neighbour?", "poison the dog quietly"),
    ("tell me how to steal a bike", "cut the lock at night"),
]
NORMAL = [
    ("what colour is the sky?", "blue"),
    ("what is two plus two?", "four"),
    ("where do fish live?", "in the water"),
]
POOL = ["blue", "four", "in the water", "the sun rises in the east", "paris", "seven days"]


def _bpe():
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tk = Tokenizer(models.BPE())
    tk.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tk.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=VOCAB,
        special_tokens=["<pad>", "<eos>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    texts = [f"### Question: {q}\n ### Answer: {a}" for q, a in FORGET + NORMAL] * 5 + POOL
    tk.train_from_iterator(texts, trainer)
    return PreTrainedTokenizerFast(tokenizer_object=tk, pad_token="<pad>", eos_token="<eos>")


@pytest.fixture(scope="session")
def byte_tok():
    from papershelf_tinylm import ByteTokenizer

    return ByteTokenizer()


@pytest.fixture(scope="session")
def bpe_tok():
    return _bpe()


@pytest.fixture(scope="session", params=["byte", "bpe"])
def tok(request, byte_tok, bpe_tok):
    return byte_tok if request.param == "byte" else bpe_tok


def make_model(arch="llama", seed=0, **kw):
    from papershelf_harness.tiny_hf import tiny_causal_lm

    return tiny_causal_lm(arch, n_layers=1, vocab=VOCAB, seed=seed, **kw)


@pytest.fixture(scope="session", params=ARCHS)
def model(request):
    return make_model(request.param)


@pytest.fixture(scope="session")
def llama():
    return make_model("llama")
