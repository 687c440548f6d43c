"""Tiny random-initialised Hugging Face causal LMs for tests and ``--quick`` script runs.

No hub downloads: every model is built from a config in milliseconds (hidden size 32, 4 heads).
Needs ``torch`` and ``transformers`` (imported when a model is built), which the packages that
test against Hugging Face models have in their test groups::

    from papershelf_harness.tiny_hf import tiny_causal_lm, share_weights

    target = tiny_causal_lm("llama", n_layers=4, seed=0, head_scale=8.0)
    draft = share_weights(target, tiny_causal_lm("llama", n_layers=1, seed=1))
    local = tiny_causal_lm("gemma2", n_layers=2, window=8)  # local and global layers mixed

``ARCHITECTURES`` names the fifteen families (Llama-like, GPT-2-like, Falcon, Bloom, ...); keyword
arguments override any config field.
"""

from __future__ import annotations

from typing import Any

__all__ = ["ARCHITECTURES", "WINDOWED", "share_weights", "tiny_causal_lm"]

_LLAMA_LIKE = dict(
    hidden_size=32,
    intermediate_size=64,
    num_attention_heads=4,
    num_key_value_heads=2,
    max_position_embeddings=256,
)
_GPT2_LIKE = dict(n_embd=32, n_head=4, n_positions=256)

#: name -> (config class, causal-LM class, config fields, name of the layer-count field)
ARCHITECTURES: dict[str, tuple[str, str, dict[str, Any], str]] = {
    "llama": ("LlamaConfig", "LlamaForCausalLM", _LLAMA_LIKE, "num_hidden_layers"),
    "mistral": (
        "MistralConfig",
        "MistralForCausalLM",
        {**_LLAMA_LIKE, "sliding_window": None},
        "num_hidden_layers",
    ),
    "qwen2": ("Qwen2Config", "Qwen2ForCausalLM", _LLAMA_LIKE, "num_hidden_layers"),
    "qwen3": (
        "Qwen3Config",
        "Qwen3ForCausalLM",
        {**_LLAMA_LIKE, "head_dim": 8},
        "num_hidden_layers",
    ),
    "gemma": (
        "GemmaConfig",
        "GemmaForCausalLM",
        {**_LLAMA_LIKE, "head_dim": 8},
        "num_hidden_layers",
    ),
    "gemma2": (
        "Gemma2Config",
        "Gemma2ForCausalLM",
        {**_LLAMA_LIKE, "head_dim": 8},
        "num_hidden_layers",
    ),
    "gemma3": (
        "Gemma3TextConfig",
        "Gemma3ForCausalLM",
        {**_LLAMA_LIKE, "head_dim": 8},
        "num_hidden_layers",
    ),
    # Phi-3's default pad id (32000) is outside a tiny vocabulary
    "phi3": (
        "Phi3Config",
        "Phi3ForCausalLM",
        {**_LLAMA_LIKE, "pad_token_id": 0},
        "num_hidden_layers",
    ),
    "mixtral": (
        "MixtralConfig",
        "MixtralForCausalLM",
        {**_LLAMA_LIKE, "num_local_experts": 2, "num_experts_per_tok": 1},
        "num_hidden_layers",
    ),
    "gpt_neox": (
        "GPTNeoXConfig",
        "GPTNeoXForCausalLM",
        dict(
            hidden_size=32,
            intermediate_size=64,
            num_attention_heads=4,
            max_position_embeddings=256,
            rotary_pct=0.5,
        ),
        "num_hidden_layers",
    ),
    "gpt2": ("GPT2Config", "GPT2LMHeadModel", _GPT2_LIKE, "n_layer"),
    "opt": (
        "OPTConfig",
        "OPTForCausalLM",
        dict(
            hidden_size=32,
            ffn_dim=64,
            num_attention_heads=4,
            word_embed_proj_dim=32,
            max_position_embeddings=256,
        ),
        "num_hidden_layers",
    ),
    "gptj": ("GPTJConfig", "GPTJForCausalLM", {**_GPT2_LIKE, "rotary_dim": 4}, "n_layer"),
    "gpt_bigcode": (
        "GPTBigCodeConfig",
        "GPTBigCodeForCausalLM",
        {**_GPT2_LIKE, "multi_query": True},
        "n_layer",
    ),
    "falcon": (
        "FalconConfig",
        "FalconForCausalLM",
        dict(
            hidden_size=32,
            num_attention_heads=4,
            multi_query=True,
            alibi=False,
            new_decoder_architecture=False,
        ),
        "num_hidden_layers",
    ),
    "bloom": ("BloomConfig", "BloomForCausalLM", dict(hidden_size=32, n_head=4), "n_layer"),
}

#: the families ``window=`` applies to, and the attention implementation each runs by default
#: (Gemma's soft-capping and local layers need "eager")
WINDOWED = {"mistral": "sdpa", "qwen2": "sdpa", "gemma2": "eager", "gemma3": "eager"}

_QK_NAMES = ("q_proj", "k_proj", "query_key_value", "c_attn", "qkv")


def _window_fields(arch: str, window: int, n_layers: int) -> dict[str, Any]:
    if arch not in WINDOWED:
        raise ValueError(
            f"window: {arch!r} has no sliding-window layers (one of {sorted(WINDOWED)})"
        )
    fields: dict[str, Any] = {"sliding_window": window}
    if arch == "qwen2":  # local layers from max_window_layers on
        fields.update(use_sliding_window=True, max_window_layers=1)
    elif arch in ("gemma2", "gemma3"):  # local and global layers alternate
        fields["layer_types"] = [
            "sliding_attention" if i % 2 == 0 else "full_attention" for i in range(n_layers)
        ]
    return fields


def tiny_causal_lm(
    arch: str = "llama",
    *,
    n_layers: int = 2,
    seed: int = 0,
    vocab: int = 64,
    window: int | None = None,
    attn_implementation: str | None = None,
    qk_scale: float = 1.0,
    head_scale: float = 1.0,
    **config: Any,
):
    """A random-initialised causal LM of family ``arch`` in eval mode (fp32).

    ``window`` gives the families of :data:`WINDOWED` sliding-window layers of that width (and
    their default attention implementation). ``qk_scale`` multiplies the query/key projections
    (peaked attention, so that cache eviction changes the outputs); ``head_scale`` multiplies an
    untied output head (sharper next-token distributions; a tied head is left alone, as scaling
    it would scale the inputs too). ``config`` overrides any field.
    """
    if arch not in ARCHITECTURES:
        raise ValueError(f"arch: expected one of {sorted(ARCHITECTURES)}, got {arch!r}")
    cfg_name, lm_name, base, layer_field = ARCHITECTURES[arch]
    fields = {**base, layer_field: n_layers, "vocab_size": vocab}
    if window is not None:
        fields.update(_window_fields(arch, window, n_layers))
        attn_implementation = attn_implementation or WINDOWED[arch]
    fields.update(config)

    import torch
    import transformers

    cfg = getattr(transformers, cfg_name)(**fields)
    if attn_implementation is not None:
        cfg._attn_implementation = attn_implementation
    torch.manual_seed(seed)
    model = getattr(transformers, lm_name)(cfg).eval()
    with torch.no_grad():
        if qk_scale != 1.0:
            for name, p in model.named_parameters():
                if any(s in name for s in _QK_NAMES):
                    p.mul_(qk_scale)
        head = model.get_output_embeddings()
        if head_scale != 1.0 and head is not None:
            if head.weight is not model.get_input_embeddings().weight:
                head.weight.mul_(head_scale)
    return model


def share_weights(source, model):
    """``model`` with every parameter and buffer that ``source`` has under the same name and shape
    copied from it (a draft sharing a target's embeddings, first layers, norm and head)."""
    mine = model.state_dict()
    shared = {
        k: v for k, v in source.state_dict().items() if k in mine and v.shape == mine[k].shape
    }
    mine.update(shared)
    model.load_state_dict(mine)
    return model
