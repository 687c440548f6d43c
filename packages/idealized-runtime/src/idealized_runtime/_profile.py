"""Profiling a Hugging Face causal LM (extra ``hf``: torch + transformers, imported lazily)."""

from __future__ import annotations

import inspect
import time
from typing import Any

import numpy as np

from ._checks import check_int, describe
from ._validation import check_tokens

__all__ = ["profile_model"]


def _sizes(value: Any, name: str) -> list[int]:
    arr = check_tokens(value, name, minimum=1, ndim=1, allow_empty=False)
    return [int(v) for v in arr]


def profile_model(
    model_or_config: Any,
    prompt_sizes: Any,
    output_sizes: Any,
    *,
    repeats: int = 3,
    warmup: int = 1,
    device: str = "cpu",
) -> np.ndarray:
    """Time batch-1 greedy generation of exactly ``o`` tokens after ``p`` random prompt tokens.

    ``model_or_config`` is a ``transformers.PreTrainedModel`` (used as is, moved to ``device`` and
    put in eval mode) or a ``PretrainedConfig`` (a randomly initialised causal LM is built from it:
    only the architecture matters for runtime). Per (p, o) cell, ``warmup`` untimed runs, then
    ``repeats`` timed runs; a run is one forward over the prompt (emitting the first token) and
    ``o - 1`` cached one-token forwards, so exactly ``o`` forwards, timed with ``perf_counter``
    (with ``torch.cuda.synchronize`` on CUDA). Returns ``(len(prompt_sizes) * len(output_sizes) *
    repeats, 3)`` rows ``(p, o, seconds)``, ready for :func:`fit_cost_model`.
    """
    ps = _sizes(prompt_sizes, "prompt_sizes")
    os_ = _sizes(output_sizes, "output_sizes")
    repeats = check_int(repeats, "repeats", minimum=1)
    warmup = check_int(warmup, "warmup", minimum=0)
    if not isinstance(device, str):
        if type(device).__module__.startswith("torch"):
            device = str(device)
        else:
            raise TypeError(
                f"device must be a string such as 'cpu' or 'cuda', got {describe(device)}"
            )
    try:
        import torch
        import transformers
    except ImportError as e:  # pragma: no cover - exercised only without the extra
        raise ImportError(
            "profile_model needs torch and transformers: pip install 'idealized-runtime[hf]'"
        ) from e
    try:
        dev = torch.device(device)
    except RuntimeError as e:
        raise ValueError(f"device {device!r} is not a torch device: {e}") from None

    if isinstance(model_or_config, transformers.PretrainedConfig):
        model = transformers.AutoModelForCausalLM.from_config(model_or_config)
    elif isinstance(model_or_config, torch.nn.Module) and hasattr(model_or_config, "config"):
        model = model_or_config
    else:
        raise TypeError(
            "model_or_config must be a transformers PreTrainedModel or PretrainedConfig, got "
            f"{describe(model_or_config)}"
        )
    config = model.config
    limit = getattr(config, "max_position_embeddings", None) or getattr(config, "n_positions", None)
    if limit is not None and max(ps) + max(os_) > int(limit):
        raise ValueError(
            f"prompt_sizes + output_sizes reach {max(ps) + max(os_)} tokens, beyond the model's "
            f"{int(limit)} positions"
        )
    vocab = int(getattr(config, "vocab_size", 0) or 0)
    if vocab < 1:
        raise ValueError("model_or_config has no vocab_size; cannot draw prompt tokens")
    model = model.to(dev).eval()
    sync = torch.cuda.synchronize if dev.type == "cuda" else (lambda: None)
    gen = torch.Generator().manual_seed(0)

    # transformers 5.x calls the KV cache `cache` (`past_key_values` before, deprecated since)
    params = inspect.signature(model.forward).parameters
    cache_kw = "cache" if "cache" in params else "past_key_values"

    def cache_of(out: Any) -> Any:
        c = getattr(out, "cache", None)
        return c if c is not None else out.past_key_values

    def one_run(prompt: torch.Tensor, o: int) -> float:
        sync()
        start = time.perf_counter()
        out = model(input_ids=prompt, use_cache=True)
        nxt = out.logits[:, -1:].argmax(-1)
        past = cache_of(out)
        for _ in range(o - 1):
            out = model(input_ids=nxt, use_cache=True, **{cache_kw: past})
            past = cache_of(out)
            nxt = out.logits[:, -1:].argmax(-1)
        sync()
        return time.perf_counter() - start

    rows: list[tuple[int, int, float]] = []
    with torch.inference_mode():
        for p in ps:
            prompt = torch.randint(0, vocab, (1, p), generator=gen).to(dev)
            for o in os_:
                for _ in range(warmup):
                    one_run(prompt, o)
                for _ in range(repeats):
                    rows.append((p, o, one_run(prompt, o)))
    return np.array(rows, dtype=np.float64)
