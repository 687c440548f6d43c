"""Tiny random-initialised configurations of the architectures H2OCache is tested on.

No hub downloads: every model is built from a config. Query/key weights are scaled up so that the
attention is peaked and eviction changes the outputs (a near-uniform attention would hide bugs).
"""

from __future__ import annotations

import torch

VOCAB = 64
COMMON = dict(vocab_size=VOCAB, pad_token_id=0, bos_token_id=None, eos_token_id=None)


def _llama_like(**extra):
    return dict(
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=256,
        **extra,
    )


CONFIGS = {
    "llama": ("LlamaConfig", _llama_like()),
    "mistral": ("MistralConfig", _llama_like(sliding_window=None)),
    "mistral_window": ("MistralConfig", _llama_like(sliding_window=8)),
    "qwen2": ("Qwen2Config", _llama_like()),
    "qwen3": ("Qwen3Config", _llama_like(head_dim=8)),
    "gemma": ("GemmaConfig", _llama_like(head_dim=8)),
    "gemma2": (
        "Gemma2Config",
        _llama_like(
            head_dim=8,
            sliding_window=8,
            attn_logit_softcapping=5.0,
            final_logit_softcapping=None,
            query_pre_attn_scalar=8,
            layer_types=["sliding_attention", "full_attention"],
        ),
    ),
    "phi3": ("Phi3Config", _llama_like(pad_token_id=0)),
    "mixtral": ("MixtralConfig", _llama_like(num_local_experts=2, num_experts_per_tok=1)),
    "gpt_neox": (
        "GPTNeoXConfig",
        dict(
            hidden_size=32,
            intermediate_size=64,
            num_hidden_layers=2,
            num_attention_heads=4,
            max_position_embeddings=256,
            rotary_pct=0.5,
        ),
    ),
    "gpt2": ("GPT2Config", dict(n_embd=32, n_layer=2, n_head=4, n_positions=256)),
    "gpt2_layer_scaled": (
        "GPT2Config",
        dict(n_embd=32, n_layer=2, n_head=4, n_positions=256, scale_attn_by_inverse_layer_idx=True),
    ),
    "opt": (
        "OPTConfig",
        dict(
            hidden_size=32,
            ffn_dim=64,
            num_hidden_layers=2,
            num_attention_heads=4,
            word_embed_proj_dim=32,
            max_position_embeddings=256,
        ),
    ),
    "gptj": ("GPTJConfig", dict(n_embd=32, n_layer=2, n_head=4, rotary_dim=4, n_positions=256)),
    "gpt_bigcode": (
        "GPTBigCodeConfig",
        dict(n_embd=32, n_layer=2, n_head=4, n_positions=256, multi_query=True),
    ),
    "falcon": (
        "FalconConfig",
        dict(
            hidden_size=32,
            num_hidden_layers=2,
            num_attention_heads=4,
            multi_query=True,
            alibi=False,
            new_decoder_architecture=False,
        ),
    ),
    "bloom": ("BloomConfig", dict(hidden_size=32, n_layer=2, n_head=4)),
}

#: model class for each config class (AutoModelForCausalLM would also do; explicit is clearer)
CAUSAL_LM = {
    "LlamaConfig": "LlamaForCausalLM",
    "MistralConfig": "MistralForCausalLM",
    "Qwen2Config": "Qwen2ForCausalLM",
    "Qwen3Config": "Qwen3ForCausalLM",
    "GemmaConfig": "GemmaForCausalLM",
    "Gemma2Config": "Gemma2ForCausalLM",
    "Phi3Config": "Phi3ForCausalLM",
    "MixtralConfig": "MixtralForCausalLM",
    "GPTNeoXConfig": "GPTNeoXForCausalLM",
    "GPT2Config": "GPT2LMHeadModel",
    "OPTConfig": "OPTForCausalLM",
    "GPTJConfig": "GPTJForCausalLM",
    "GPTBigCodeConfig": "GPTBigCodeForCausalLM",
    "FalconConfig": "FalconForCausalLM",
    "BloomConfig": "BloomForCausalLM",
}


def build(name: str, *, seed: int = 0, attn_implementation: str | None = None, scale: float = 4.0):
    """A tiny random-initialised causal LM of architecture ``name`` (a key of :data:`CONFIGS`)."""
    import transformers

    cfg_name, kwargs = CONFIGS[name]
    cfg = getattr(transformers, cfg_name)(**{**COMMON, **kwargs})
    if attn_implementation is not None:
        cfg._attn_implementation = attn_implementation
    torch.manual_seed(seed)
    model = getattr(transformers, CAUSAL_LM[cfg_name])(cfg).eval()
    with torch.no_grad():
        for pname, p in model.named_parameters():
            if any(s in pname for s in ("q_proj", "k_proj", "query_key_value", "c_attn", "qkv")):
                p.mul_(scale)
    return model
