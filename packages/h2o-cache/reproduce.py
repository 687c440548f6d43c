"""Reproduce H2O's headline claims at toy scale on a tiny Llama trained offline.

    python reproduce.py [--full] [--json PATH] [--threads N]

Zhang et al., "H2O: Heavy-Hitter Oracle for Efficient Generative Inference of Large Language
Models", NeurIPS 2023 (https://arxiv.org/abs/2306.14048). Headline: with a 20 % KV budget
(heavy hitters + recent tokens) accuracy stays close to the full cache while the recent-only
("local") window degrades sharply (Sec. 5.1, Fig. 4 / Table 1).

Model: papershelf-tinylm byte-level Llama (2 layers, d=64, 4 query / 2 KV heads, RoPE), trained
once (cached on disk) on Python stdlib text with a long-range "header recall" task: position 0
holds one of 16 header bytes, and at ~10 % of later positions a marker byte is followed by the
header, so predicting the byte after a marker needs the header's key/value. Evaluation:
teacher-forced on held-out sequences of 128 bytes, prompt 64, budget 20 % of 128 = 25 slots
(13 heavy + 12 recent) per layer and KV head, real eviction token by token.
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import time
import warnings
from pathlib import Path

import numpy as np
import torch

PACKAGE = "h2o-cache"
PAPER = "H2O: Heavy-Hitter Oracle for Efficient Generative Inference of Large Language Models (NeurIPS 2023)"

HEADERS = np.array(
    [1, 2, 3, 4, 5, 6, 7, 8, 14, 15, 16, 17, 18, 19, 20, 21], dtype=np.int64
)  # absent from the corpus
MARKER = 127  # DEL, absent from the corpus
MARKER_RATE = 0.1
ARCH = {"hidden_size": 64, "intermediate_size": 192, "num_hidden_layers": 2, "num_attention_heads": 4,
        "num_key_value_heads": 2}  # fmt: skip
DATA_KEY = "h2o-cache/header-marker-recall-v1"


def marker_batch(
    rng: np.random.Generator, batch_size: int, seq_len: int, *, split: str = "train"
) -> np.ndarray:
    """Header byte at position 0; at ~10 % of later positions a marker followed by the header."""
    from papershelf_tinylm import corpus

    text = corpus(split)
    out = np.empty((batch_size, seq_len), dtype=np.int64)
    for r in range(batch_size):
        h = HEADERS[rng.integers(len(HEADERS))]
        s = int(rng.integers(0, len(text) - seq_len))
        row = text[s : s + seq_len].astype(np.int64)
        row[0] = h
        p = 2
        while p < seq_len - 1:
            if rng.random() < MARKER_RATE:
                row[p], row[p + 1] = MARKER, h
                p += 2
            else:
                p += 1
        out[r] = row
    return out


def train(steps: int, verbose: bool = False):
    from papershelf_tinylm import TrainSpec, train_model

    spec = TrainSpec(steps=steps, batch_size=16, seq_len=128, lr=4e-3, warmup=30)
    return train_model(
        dict(ARCH), seed=0, train=spec, batch_fn=marker_batch, data_key=DATA_KEY, verbose=verbose
    )


def heldout(n: int, seq_len: int = 128) -> torch.Tensor:
    return torch.from_numpy(marker_batch(np.random.default_rng(2026), n, seq_len, split="heldout"))


def marker_nll(nll: torch.Tensor, ids: torch.Tensor, prefill: int) -> float:
    """Mean NLL of the tokens that follow a marker (the recalled header) in the evaluated part."""
    is_marker = (
        ids[:, prefill - 1 : -1] == MARKER
    )  # input at t-1 is a marker -> target t is the header
    return float(nll[is_marker].mean())


def coverage(model, ids, masks) -> float:
    """Fraction of the full-cache attention mass of rows >= prefill that falls on the kept set."""
    with torch.no_grad():
        prev = model.config._attn_implementation
        model.set_attn_implementation("eager")
        att = model(input_ids=ids, output_attentions=True).attentions  # per layer (B, H, L, L)
        model.set_attn_implementation(prev)
    fr = []
    for a, m in zip(att, masks):
        G = a.shape[1] // m.shape[1]
        mm = m.repeat_interleave(G, dim=1).float()
        fr.append((a * mm).sum(-1))  # (B, H, L)
    return torch.stack(fr)  # (layers, B, H, L)


def kvpress_nll(model, ids, prefill: int, kept: int):
    """kvpress ObservedAttentionPress: compress the prompt to `kept` tokens once (prefill only),
    then decode with a growing cache. kvpress 0.5.x reads `past_key_values` / `cache_position`
    from the attention kwargs, which transformers 5.x renamed: a pre-hook adds the old names."""
    from kvpress import ObservedAttentionPress
    from transformers import DynamicCache

    press = ObservedAttentionPress(compression_ratio=1 - kept / prefill)
    mods = [layer.self_attn for layer in model.model.layers]

    def pre(module, args, kwargs):
        if "cache" in kwargs and "past_key_values" not in kwargs:
            kwargs["past_key_values"] = kwargs.pop("cache")
        if "cache_position" not in kwargs:
            pos = kwargs["position_ids"][0] if kwargs.get("position_ids") is not None else None
            kwargs["cache_position"] = pos
        return args, kwargs

    prev = model.config._attn_implementation
    model.set_attn_implementation("eager")
    handles = [m.register_forward_pre_hook(pre, with_kwargs=True) for m in mods]
    try:
        B, L = ids.shape
        pos = torch.arange(L)[None].expand(B, L)
        cache = DynamicCache(config=model.config)
        with torch.no_grad():
            with press(model):
                out = model(
                    input_ids=ids[:, :prefill], position_ids=pos[:, :prefill], past_key_values=cache
                )
            logits = [out.logits[:, -1]]
            sizes = cache.layers[0].keys.shape[-2]
            for t in range(prefill, L - 1):
                out = model(
                    input_ids=ids[:, t : t + 1],
                    position_ids=pos[:, t : t + 1],
                    past_key_values=cache,
                )
                logits.append(out.logits[:, -1])
        nll = torch.nn.functional.cross_entropy(
            torch.stack(logits, 2), ids[:, prefill:], reduction="none"
        )
        return nll, sizes, cache.layers[0].keys.shape[-2]
    finally:
        for h in handles:
            h.remove()
        model.set_attn_implementation(prev)


def claims(full: bool, n_seqs: int | None = None, steps: int | None = None) -> list[dict]:
    from h2o_cache import h2o_mask_mode, h2o_token_nll

    steps = steps or (1200 if full else 600)
    n_seqs = n_seqs or (64 if full else 8)
    model = train(steps)
    ids = heldout(n_seqs)
    P, heavy, recent = 64, 13, 12  # 20 % of 128 = 25 slots
    res, mnll = {}, {}
    for pol in ["full", "h2o", "local", "random"]:
        nll = h2o_token_nll(model, ids, P, heavy, recent, pol)
        res[pol] = math.exp(float(nll.mean()))
        mnll[pol] = marker_nll(nll, ids, P)
    nll_mean = h2o_token_nll(model, ids, P, heavy, recent, score_mode="mean")
    res["mean"], mnll["mean"] = math.exp(float(nll_mean.mean())), marker_nll(nll_mean, ids, P)
    real = h2o_token_nll(model, ids, P, heavy, recent)
    mask, masks = h2o_mask_mode(model, ids, P, heavy, recent, return_masks=True)
    diff = float((real - mask).abs().max())
    cov = {}
    for pol in ["h2o", "local", "random"]:
        _, m = h2o_mask_mode(model, ids, P, heavy, recent, pol, return_masks=True)
        cov[pol] = float(coverage(model, ids, m)[..., P:].mean())
    note = f"tiny Llama 2L d=64 4q/2kv heads, {steps} steps; {n_seqs} held-out seqs x 128 B, prompt 64, 13 heavy + 12 recent"
    rows = [
        {"claim": "H2O at a 20% budget: ppl within 5% of the full cache", "paper": "~= full (Fig. 4)",
         "measured": f"{res['h2o']:.3f} vs {res['full']:.3f} ({res['h2o'] / res['full']:.3f}x)",
         "holds": res["h2o"] <= 1.05 * res["full"], "note": note},
        {"claim": "recent-only (local) window at the same budget is far worse (>= 1.3x ppl)",
         "paper": "sharp drop (Fig. 4)", "measured": f"{res['local']:.3f} ({res['local'] / res['full']:.2f}x full)",
         "holds": res["local"] >= 1.3 * res["full"], "note": f"random heavy + recent: {res['random']:.3f}"},
        {"claim": "header recall (NLL of the byte after a marker): H2O keeps the header, local loses it",
         "paper": "H2 removal hurts (Sec. 3)",
         "measured": f"full {mnll['full']:.2f}, H2O {mnll['h2o']:.2f}, local {mnll['local']:.2f}, random {mnll['random']:.2f}",
         "holds": mnll["h2o"] < 0.5 * mnll["local"], "note": "nats"},
        {"claim": "attention mass of rows >= prompt on the kept set: H2O > local, random",
         "paper": "power-law attention, H2 carry most mass (Fig. 2)",
         "measured": f"H2O {cov['h2o']:.3f}, local {cov['local']:.3f}, random {cov['random']:.3f}",
         "holds": cov["h2o"] > max(cov["local"], cov["random"]), "note": "full-cache attention, kept sets from mask mode"},
        {"claim": "mask mode (one forward per layer) equals real eviction", "paper": "n/a (our check)",
         "measured": f"max |d log p| = {diff:.1e}", "holds": diff <= 1e-5, "note": "fp32"},
        {"claim": "score normalisation ablation: paper's sum vs kvpress-style mean",
         "paper": "sum (Alg. 1)",
         "measured": f"ppl sum {res['h2o']:.3f} / mean {res['mean']:.3f}; marker NLL {mnll['h2o']:.2f} / {mnll['mean']:.2f}",
         "holds": None, "note": "reported, not a paper claim"},
    ]  # fmt: skip
    try:
        knll, k0, k1 = kvpress_nll(model, ids, P, heavy + recent)
        kp = math.exp(float(knll.mean()))
        rows.append({"claim": "kvpress ObservedAttentionPress (prefill-only) at the same prompt budget",
                     "paper": "n/a (peer)", "measured": f"ppl {kp:.3f}, marker NLL {marker_nll(knll, ids, P):.2f}",
                     "holds": None, "note": f"cache {k0} -> {k1} slots during decoding (grows; H2O stays at 25)"})  # fmt: skip
    except Exception as e:
        rows.append({"claim": "kvpress ObservedAttentionPress at the same budget", "paper": "n/a (peer)",
                     "measured": "not runnable", "holds": None, "note": f"{type(e).__name__}: {e}"[:200]})  # fmt: skip
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--full", action="store_true", help="64 held-out sequences, 1200 training steps (default: 8, 600)"
    )
    parser.add_argument("--json", type=Path, default=Path(__file__).with_name("reproduce.json"))
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    warnings.filterwarnings("ignore", category=FutureWarning)
    t0 = time.perf_counter()
    rows = claims(args.full)
    seconds = time.perf_counter() - t0
    print(f"{'claim':70s} | {'paper':28s} | {'measured':60s} | holds")
    for r in rows:
        print(
            f"{r['claim'][:70]:70s} | {r['paper'][:28]:28s} | {r['measured'][:60]:60s} | {r['holds']}"
        )
    result = {
        "package": PACKAGE,
        "paper": PAPER,
        "full": args.full,
        "seconds": round(seconds, 2),
        "machine": f"{platform.machine()} {platform.processor() or ''}".strip()
        + f", {args.threads} torch threads",
        "claims": rows,
    }
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
