"""Shared fixtures: tiny random-init Hugging Face Llama models and toy Markov models."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")
torch.set_num_threads(1)  # tiny models: threads only add contention on a shared 2-core runner


def tiny_llama(n_layers: int, seed: int, *, vocab: int = 64, attn: str = "sdpa"):
    """A random-init LlamaForCausalLM small enough for CPU tests (fp32, eval mode)."""
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(seed)
    cfg = LlamaConfig(
        vocab_size=vocab,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=n_layers,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=512,
        bos_token_id=0,
        eos_token_id=1,
        pad_token_id=0,
    )
    cfg._attn_implementation = attn
    model = LlamaForCausalLM(cfg).eval()
    # sharpen the random model so that trees get deeper than one level
    with torch.no_grad():
        model.lm_head.weight.mul_(8.0)
    return model


def draft_of(target, n_layers: int = 1, *, attn: str = "sdpa"):
    """A draft sharing the target's embeddings, first layer(s), norm and head (agrees often)."""
    draft = tiny_llama(n_layers, seed=1, vocab=target.config.vocab_size, attn=attn)
    sd = {k: v for k, v in target.state_dict().items() if k in draft.state_dict()}
    draft.load_state_dict(sd)
    return draft


@pytest.fixture(scope="session")
def hf_pair():
    target = tiny_llama(4, seed=0)
    return target, draft_of(target)


@pytest.fixture
def rng():
    return np.random.default_rng(0)
