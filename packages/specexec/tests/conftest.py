"""Shared fixtures: tiny random-init Hugging Face Llama models and toy Markov models."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")
torch.set_num_threads(1)  # tiny models: threads only add contention on a shared 2-core runner

from papershelf_harness.tiny_hf import share_weights, tiny_causal_lm  # noqa: E402


def tiny_llama(n_layers: int, seed: int, *, vocab: int = 64, attn: str = "sdpa"):
    """A random-init LlamaForCausalLM small enough for CPU tests (fp32, eval mode), its head
    sharpened so that trees get deeper than one level."""
    return tiny_causal_lm(
        "llama",
        n_layers=n_layers,
        seed=seed,
        vocab=vocab,
        attn_implementation=attn,
        head_scale=8.0,
        max_position_embeddings=512,
        bos_token_id=0,
        eos_token_id=1,
        pad_token_id=0,
    )


def draft_of(target, n_layers: int = 1, *, attn: str = "sdpa"):
    """A draft sharing the target's embeddings, first layer(s), norm and head (agrees often)."""
    draft = tiny_llama(n_layers, seed=1, vocab=target.config.vocab_size, attn=attn)
    return share_weights(target, draft)


@pytest.fixture(scope="session")
def hf_pair():
    target = tiny_llama(4, seed=0)
    return target, draft_of(target)


@pytest.fixture
def rng():
    return np.random.default_rng(0)


def tiny_windowed(kind: str, n_layers: int, seed: int, *, window: int = 8, vocab: int = 64):
    """A random-init causal LM with sliding-window attention (no downloads), fp32, eval mode.

    ``mistral``: every layer sliding; ``gemma2``/``gemma3``/``qwen2``: local and global layers
    mixed (``config.layer_types``).
    """
    return tiny_causal_lm(
        kind, n_layers=n_layers, seed=seed, vocab=vocab, window=window, head_scale=8.0
    )
