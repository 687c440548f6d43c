"""Reproduce H2O's headline claims at toy scale on a tiny Llama trained offline.

    python reproduce.py [--full] [--quick] [--json PATH] [--threads N] [--task recall|copy]

Zhang et al., "H2O: Heavy-Hitter Oracle for Efficient Generative Inference of Large Language
Models", NeurIPS 2023 (https://arxiv.org/abs/2306.14048). Headline: with a 20 % KV budget
(heavy hitters + recent tokens) accuracy stays close to the full cache while the recent-only
("local") window degrades sharply (Sec. 5.1, Fig. 4 / Table 1).

Model: a papershelf-tinylm byte-level Llama (2 layers, d=64, 4 query / 2 KV heads, RoPE; tinylm's
configuration, corpus and on-disk cache), trained once on Python stdlib text with a long-range
"header recall" task: position 0 holds one of 16 header bytes, and at ~10 % of later positions the
input is a marker byte whose target is the header. The header is never repeated in the input, so
it can only be recalled from position 0 (tinylm's trainer takes next-token targets only, so the
custom-target loop is here; the weights are cached with tinylm's ``save_model`` under its content
key). Evaluation: teacher-forced on 8 held-out sequences of 128 bytes, prompt 64, budget 20 % of
128 = 25 slots (13 heavy + 12 recent) per layer and KV head, real eviction token by token.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import torch

from papershelf_harness import Claim, reproduce_cli

HEADERS = np.array(
    [1, 2, 3, 4, 5, 6, 7, 8, 14, 15, 16, 17, 18, 19, 20, 21], dtype=np.int64
)  # absent from the corpus
MARKER = 127  # DEL, absent from the corpus
MARKER_RATE = 0.1
TASK = "recall"  # default task of reproduce.py (see claims)
ARCH = {"hidden_size": 64, "intermediate_size": 192, "num_hidden_layers": 2, "num_attention_heads": 4,
        "num_key_value_heads": 2}  # fmt: skip


DATA_KEY_V1 = "h2o-cache/header-marker-recall-v1"


def _headed_windows(rng: np.random.Generator, batch_size: int, seq_len: int, split: str):
    """``batch_size`` times: a random header byte h and a random corpus window of ``seq_len``
    bytes (int64) whose first byte is replaced by h; drawn lazily, so the caller's own draws
    for a row come between this row's and the next's."""
    from papershelf_tinylm import corpus

    text = corpus(split)
    for _ in range(batch_size):
        h = HEADERS[rng.integers(len(HEADERS))]
        s = int(rng.integers(0, len(text) - seq_len))
        row = text[s : s + seq_len].astype(np.int64)
        row[0] = h
        yield h, row


def marker_batch(
    rng: np.random.Generator, batch_size: int, seq_len: int, *, split: str = "train"
) -> np.ndarray:
    """Variant "copy": header byte at position 0; at ~10 % of later positions a marker FOLLOWED by the
    header in the input (so a recent marker/header pair can also be copied). Returns ids."""
    out = np.empty((batch_size, seq_len), dtype=np.int64)
    for r, (h, row) in enumerate(_headed_windows(rng, batch_size, seq_len, split)):
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
        dict(ARCH), seed=0, train=spec, batch_fn=marker_batch, data_key=DATA_KEY_V1, verbose=verbose
    )


DATA_KEY_V2 = "h2o-cache/header-marker-recall-v2-custom-targets"


def marker_batch_v2(
    rng: np.random.Generator, batch_size: int, seq_len: int, *, split: str = "train"
):
    """Header byte at position 0; at ~10 % of later positions the INPUT is a marker whose target is
    the header. The header is never repeated in the input stream (the text simply continues after
    the marker), so it can only be recalled from position 0.

    Returns ``(ids, targets)``, both int64 (batch, seq_len); ``targets[:, t]`` is what position t
    must predict (``ids[:, t + 1]``, or the header after a marker; -100 at the last position).
    """
    ids = np.empty((batch_size, seq_len), dtype=np.int64)
    tgt = np.empty((batch_size, seq_len), dtype=np.int64)
    for r, (h, row) in enumerate(_headed_windows(rng, batch_size, seq_len, split)):
        marks = np.flatnonzero(rng.random(seq_len) < MARKER_RATE)
        marks = marks[(marks >= 2) & (marks < seq_len - 1)]
        row[marks] = MARKER
        t = np.append(row[1:], -100)
        t[marks] = h
        ids[r], tgt[r] = row, t
    return ids, tgt


def train_v2(steps: int, verbose: bool = False):
    """Train (or load from tinylm's cache) on :func:`marker_batch_v2` with its custom targets."""
    from transformers import LlamaConfig, LlamaForCausalLM

    from papershelf_tinylm import (
        TrainSpec,
        cache_dir,
        content_key,
        load_saved,
        model_spec,
        save_model,
    )

    spec_t = TrainSpec(steps=steps, batch_size=16, seq_len=128, lr=4e-3, warmup=30)
    spec = model_spec(dict(ARCH), seed=0, train=spec_t, data_key=DATA_KEY_V2)
    path = cache_dir() / f"custom-{content_key(spec)[:16]}"
    if (path / "model.safetensors").is_file():
        return load_saved(path)
    torch.manual_seed(0)
    model = LlamaForCausalLM(LlamaConfig(**spec["config"]))
    rng = np.random.default_rng([0, 1])
    opt = torch.optim.AdamW(model.parameters(), lr=spec_t.lr, betas=(0.9, 0.95), weight_decay=0.01)
    model.train()
    for step in range(steps):
        lr = (
            spec_t.lr * (step + 1) / spec_t.warmup
            if step < spec_t.warmup
            else spec_t.lr
            * (
                0.1
                + 0.45
                * (1 + math.cos(math.pi * (step - spec_t.warmup) / max(1, steps - spec_t.warmup)))
            )
        )
        for g in opt.param_groups:
            g["lr"] = lr
        x, y = (
            torch.from_numpy(a) for a in marker_batch_v2(rng, spec_t.batch_size, spec_t.seq_len)
        )
        logits = model(input_ids=x).logits
        loss = torch.nn.functional.cross_entropy(
            logits.flatten(0, 1), y.flatten(), ignore_index=-100
        )
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        if verbose and step % 50 == 0:
            print(f"step {step:5d}  loss {loss.item():.3f}", flush=True)
    model.eval()
    save_model(model, path, spec)
    return model


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


def kvpress_logits(model, ids, prefill: int, kept: int):
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
        return torch.stack(logits, 1), sizes, cache.layers[0].keys.shape[-2]  # (B, L - prefill, V)
    finally:
        for h in handles:
            h.remove()
        model.set_attn_implementation(prev)


def policy_logits(
    model, ids, prefill: int, heavy: int, recent: int, policy: str, score_mode: str = "sum"
):
    """(B, L - prefill, V) logits of positions prefill-1 .. L-2 under real eviction (H2OCache)."""
    from h2o_cache import H2OCache

    B, L = ids.shape
    with torch.no_grad():
        if policy == "full":
            return model(input_ids=ids).logits[:, prefill - 1 : L - 1]
        pos = torch.arange(L)[None].expand(B, L)
        with H2OCache(
            model, heavy=heavy, recent=recent, policy=policy, score_mode=score_mode
        ) as cache:
            out = model(input_ids=ids[:, :prefill], position_ids=pos[:, :prefill], cache=cache)
            logits = [out.logits[:, -1]]
            for t in range(prefill, L - 1):
                out = model(
                    input_ids=ids[:, t : t + 1], position_ids=pos[:, t : t + 1], cache=cache
                )
                logits.append(out.logits[:, -1])
    return torch.stack(logits, 1)


def target_nll(logits, tgt, prefill: int) -> torch.Tensor:
    """(B, L - prefill) NLL of the targets of positions prefill-1 .. L-2."""
    y = tgt[:, prefill - 1 : tgt.shape[1] - 1]
    return torch.nn.functional.cross_entropy(logits.float().transpose(1, 2), y, reduction="none")


def claims(args) -> list[Claim]:
    """The claims of the run described by ``args`` (``--full``, ``--quick``, ``--task``,
    ``--threads``): task "copy": marker followed by the header (the brief's recipe; a recent
    marker/header pair can be copied); "recall": the header only at position 0 (custom targets)."""
    torch.set_num_threads(args.threads)
    warnings.filterwarnings("ignore", category=FutureWarning)
    n_seqs, steps = (2, 2) if args.quick else (None, None)
    return _claims(args.full, n_seqs=n_seqs, steps=steps, task=args.task)


def _claims(
    full: bool, n_seqs: int | None = None, steps: int | None = None, task: str = TASK
) -> list[Claim]:
    """task "copy": marker followed by the header (the brief's recipe; a recent marker/header pair
    can be copied); "recall": the header only at position 0 (custom targets)."""
    from h2o_cache import h2o_mask_mode, h2o_token_nll

    n_seqs = n_seqs or (64 if full else 8)
    rng = np.random.default_rng(2026)
    if task == "copy":
        steps = steps or 600
        model = train(steps)
        a = marker_batch(rng, n_seqs, 128, split="heldout")
        tgt = np.concatenate([a[:, 1:], np.full((n_seqs, 1), -100)], 1)
        ids, tgt = torch.from_numpy(a), torch.from_numpy(tgt)
    else:
        steps = steps or 1500
        model = train_v2(steps)
        ids, tgt = (torch.from_numpy(a) for a in marker_batch_v2(rng, n_seqs, 128, split="heldout"))
    P, heavy, recent = 64, 13, 12  # 20 % of 128 = 25 slots
    is_marker = ids[:, P - 1 : -1] == MARKER  # positions whose target is the header
    res, mnll = {}, {}
    for name, pol, mode in [("full", "full", "sum"), ("h2o", "h2o", "sum"), ("local", "local", "sum"),
                            ("random", "random", "sum"), ("mean", "h2o", "mean")]:  # fmt: skip
        nll = target_nll(policy_logits(model, ids, P, heavy, recent, pol, mode), tgt, P)
        res[name], mnll[name] = math.exp(float(nll.mean())), float(nll[is_marker].mean())
    real = h2o_token_nll(model, ids, prefill_len=P, heavy=heavy, recent=recent)
    mask = h2o_mask_mode(model, ids, prefill_len=P, heavy=heavy, recent=recent)
    diff = float((real - mask).abs().max())
    cov = {}
    for pol in ["h2o", "local", "random"]:
        _, m = h2o_mask_mode(
            model, ids, prefill_len=P, heavy=heavy, recent=recent, policy=pol, return_masks=True
        )
        cov[pol] = float(coverage(model, ids, m)[..., P:].mean())
    note = f"task {task!r}; tiny Llama 2L d=64 4q/2kv heads, {steps} steps x 16 seqs; {n_seqs} held-out seqs x 128 B, prompt 64, 13 heavy + 12 recent"
    rows = [
        {"claim": "H2O at a 20% budget: ppl within 5% of the full cache", "paper": "~= full (Fig. 4)",
         "measured": f"{res['h2o']:.3f} vs {res['full']:.3f} ({res['h2o'] / res['full']:.3f}x)",
         "holds": res["h2o"] <= 1.05 * res["full"], "note": note},
        {"claim": "recent-only (local) window at the same budget is far worse (>= 1.3x ppl)",
         "paper": "sharp drop (Fig. 4)", "measured": f"{res['local']:.3f} ({res['local'] / res['full']:.2f}x full)",
         "holds": res["local"] >= 1.3 * res["full"], "note": f"random heavy + recent: {res['random']:.3f} ({res['random'] / res['full']:.2f}x)"},
        {"claim": "header recall (NLL of the header target after a marker): H2O keeps it, local loses it",
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
        klog, k0, k1 = kvpress_logits(model, ids, P, heavy + recent)
        knll = target_nll(klog, tgt, P)
        kp = math.exp(float(knll.mean()))
        rows.append({"claim": "kvpress ObservedAttentionPress (prefill-only) at the same prompt budget",
                     "paper": "n/a (peer)", "measured": f"ppl {kp:.3f}, marker NLL {float(knll[is_marker].mean()):.2f}",
                     "holds": None, "note": f"cache {k0} -> {k1} slots during decoding (grows; H2O stays at 25)"})  # fmt: skip
    except Exception as e:
        rows.append({"claim": "kvpress ObservedAttentionPress at the same budget", "paper": "n/a (peer)",
                     "measured": "not runnable", "holds": None, "note": f"{type(e).__name__}: {e}"[:200]})  # fmt: skip
    return [Claim(**r) for r in rows]


def _extra_args(parser) -> None:
    parser.add_argument("--threads", type=int, default=2, help="torch CPU threads")
    parser.add_argument("--task", choices=["copy", "recall"], default=TASK)


main = reproduce_cli(claims, full_help="64 held-out sequences (default: 8)", extra_args=_extra_args)
