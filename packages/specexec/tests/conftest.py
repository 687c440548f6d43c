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


def tiny_windowed(kind: str, n_layers: int, seed: int, *, window: int = 8, vocab: int = 64):
    """A random-init causal LM with sliding-window attention (no downloads), fp32, eval mode.

    ``mistral``: every layer sliding; ``gemma2``/``gemma3``/``qwen2``: local and global layers
    mixed (``config.layer_types``).
    """
    import transformers as tr

    torch.manual_seed(seed)
    common = dict(
        vocab_size=vocab,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=n_layers,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=256,
        sliding_window=window,
    )
    mixed = ["sliding_attention" if i % 2 == 0 else "full_attention" for i in range(n_layers)]
    if kind == "mistral":
        cfg, cls, attn = tr.MistralConfig(**common), tr.MistralForCausalLM, "sdpa"
    elif kind == "gemma2":
        cfg = tr.Gemma2Config(head_dim=8, layer_types=mixed, **common)
        cls, attn = tr.Gemma2ForCausalLM, "eager"
    elif kind == "gemma3":
        cfg = tr.Gemma3TextConfig(head_dim=8, layer_types=mixed, **common)
        cls, attn = tr.Gemma3ForCausalLM, "eager"
    elif kind == "qwen2":
        cfg = tr.Qwen2Config(use_sliding_window=True, max_window_layers=1, **common)
        cls, attn = tr.Qwen2ForCausalLM, "sdpa"
    else:
        raise ValueError(kind)
    cfg._attn_implementation = attn
    model = cls(cfg).eval()
    head = model.get_output_embeddings()
    if head is not None and head.weight is not model.get_input_embeddings().weight:
        with torch.no_grad():
            head.weight.mul_(8.0)  # sharper random distributions: deeper trees, longer accepts
    return model
