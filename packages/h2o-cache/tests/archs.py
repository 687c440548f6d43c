"""Tiny random-initialised configurations of the architectures H2OCache is tested on.

No hub downloads: every model is built from a config (``papershelf_harness.tiny_hf``). Query/key
weights are scaled up so that the attention is peaked and eviction changes the outputs (a
near-uniform attention would hide bugs).
"""

from __future__ import annotations

from papershelf_harness.tiny_hf import tiny_causal_lm

VOCAB = 64
COMMON = dict(pad_token_id=0, bos_token_id=None, eos_token_id=None)

#: test name -> (tiny_hf family, extra config fields)
CONFIGS = {
    "llama": ("llama", {}),
    "mistral": ("mistral", {}),
    "mistral_window": ("mistral", {"sliding_window": 8}),
    "qwen2": ("qwen2", {}),
    "qwen3": ("qwen3", {}),
    "gemma": ("gemma", {}),
    "gemma2": (
        "gemma2",
        dict(
            sliding_window=8,
            layer_types=["sliding_attention", "full_attention"],
            attn_logit_softcapping=5.0,
            final_logit_softcapping=None,
            query_pre_attn_scalar=8,
        ),
    ),
    "phi3": ("phi3", {}),
    "mixtral": ("mixtral", {}),
    "gpt_neox": ("gpt_neox", {}),
    "gpt2": ("gpt2", {}),
    "gpt2_layer_scaled": ("gpt2", {"scale_attn_by_inverse_layer_idx": True}),
    "opt": ("opt", {}),
    "gptj": ("gptj", {}),
    "gpt_bigcode": ("gpt_bigcode", {}),
    "falcon": ("falcon", {}),
    "bloom": ("bloom", {}),
}


def build(name: str, *, seed: int = 0, attn_implementation: str | None = None, scale: float = 4.0):
    """A tiny random-initialised causal LM of architecture ``name`` (a key of :data:`CONFIGS`)."""
    arch, extra = CONFIGS[name]
    return tiny_causal_lm(
        arch,
        n_layers=2,
        seed=seed,
        vocab=VOCAB,
        attn_implementation=attn_implementation,
        qk_scale=scale,
        **COMMON,
        **extra,
    )
