"""One-shot GPU check for h2o-cache and papershelf-kernels' attention_colsum (< 3 min on an H200).

    python packages/h2o-cache/gpu_check.py --json gpu_check.json

1. Triton kernel vs the float32 reference (fp16 / bf16 / fp32; causal prefill, GQA decode with a
   key-padding mask, MQA chunk, head dims 64 / 128): max errors against the declared tolerances.
2. Timing (papershelf_harness.timeit_ms with CUDA synchronisation, best of 20): the kernel vs
   eager attention + column sums (what H2O ports use) and vs PyTorch SDPA without column sums
   (the floor), with TFLOP/s.
3. H2OCache on a random-init Llama in fp16: greedy output identical to the full cache when the
   budget covers the sequence; decode tokens/s, KV memory and peak GPU memory
   (papershelf_harness.peak_memory) of H2O (20 %) vs the full cache.
Prints everything and writes JSON to --json.
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
import time
import traceback
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
for src in (
    HERE,  # bench.py (the eager attention + column sums baseline)
    HERE / "src",
    HERE.parent / "papershelf-kernels" / "src",
    HERE.parent / "papershelf-harness" / "src",
):
    if src.is_dir() and str(src) not in sys.path:
        sys.path.insert(0, str(src))

import torch  # noqa: E402

from papershelf_harness import describe_machine, peak_memory, timeit_ms  # noqa: E402

warnings.filterwarnings("ignore", category=FutureWarning)


def section(name, fn, out):
    t0 = time.perf_counter()
    print(f"\n=== {name} ===", flush=True)
    try:
        out[name] = fn()
        out[name + "_ok"] = True
    except Exception as e:
        traceback.print_exc()
        out[name] = {"error": f"{type(e).__name__}: {e}"}
        out[name + "_ok"] = False
    out[name + "_seconds"] = round(time.perf_counter() - t0, 1)


def correctness():
    from papershelf_kernels.attention import (
        ATOL,
        RTOL,
        attention_colsum,
        attention_colsum_reference,
    )

    rows = []
    cases = [  # B, H, Hkv, Lq, Lk, D, causal, mask
        (2, 8, 2, 300, 300, 64, True, False),
        (2, 8, 2, 1, 3000, 128, False, True),
        (1, 8, 1, 37, 1500, 64, True, False),
        (1, 4, 4, 129, 700, 96, True, True),
    ]
    for dtype in (torch.float16, torch.bfloat16, torch.float32):
        for B, H, Hkv, Lq, Lk, D, causal, use_mask in cases:
            g = torch.Generator(device="cuda").manual_seed(0)
            q = torch.randn(B, H, Lq, D, device="cuda", generator=g).to(dtype)
            k = torch.randn(B, Hkv, Lk, D, device="cuda", generator=g).to(dtype)
            v = torch.randn(B, Hkv, Lk, D, device="cuda", generator=g).to(dtype)
            m = (torch.rand(B, Hkv, 1, Lk, device="cuda", generator=g) > 0.2) if use_mask else None
            ro, rc = attention_colsum_reference(
                q.float(), k.float(), v.float(), attn_mask=m, causal=causal
            )
            out, col = attention_colsum(q, k, v, attn_mask=m, causal=causal, backend="triton")
            eo = (out.float() - ro).abs().max().item()
            ec = (col - rc).abs().max().item()
            ok_o = torch.allclose(out.float(), ro, atol=ATOL[dtype], rtol=RTOL[dtype])
            ok_c = torch.allclose(col, rc, atol=ATOL[dtype] * Lq, rtol=RTOL[dtype])
            row = dict(dtype=str(dtype)[6:], shape=f"B{B} H{H}/{Hkv} Lq{Lq} Lk{Lk} D{D}", causal=causal,
                       mask=use_mask, max_err_out=eo, max_err_colsum=ec, ok=bool(ok_o and ok_c))  # fmt: skip
            print(row, flush=True)
            rows.append(row)
    return {"all_ok": all(r["ok"] for r in rows), "rows": rows}


def _cuda_ms(fn) -> float:
    return timeit_ms(fn, repeat=20, warmup=3, sync=torch.cuda.synchronize).best_ms


def timing():
    from bench import eager_colsum as eager  # the same eager baseline as bench.py

    from papershelf_kernels.attention import attention_colsum

    rows = []
    for kind, B, Lq, Lk in [
        ("prefill", 1, 4096, 4096),
        ("prefill", 4, 2048, 2048),
        ("decode", 8, 1, 8192),
        ("decode", 32, 1, 4096),
    ]:
        H, Hkv, D = 32, 8, 128
        q = torch.randn(B, H, Lq, D, device="cuda", dtype=torch.float16)
        k = torch.randn(B, Hkv, Lk, D, device="cuda", dtype=torch.float16)
        v = torch.randn(B, Hkv, Lk, D, device="cuda", dtype=torch.float16)
        causal = kind == "prefill"
        kk, vv = k.repeat_interleave(H // Hkv, 1), v.repeat_interleave(H // Hkv, 1)
        ms_k = _cuda_ms(
            functools.partial(attention_colsum, q, k, v, causal=causal, backend="triton")
        )
        try:
            ms_e = _cuda_ms(functools.partial(eager, q, k, v, causal))
        except torch.OutOfMemoryError:
            ms_e = float("nan")
        sdpa = torch.nn.functional.scaled_dot_product_attention
        ms_s = _cuda_ms(functools.partial(sdpa, q, kk, vv, is_causal=causal))
        frac = 0.5 if causal else 1.0
        flops = (
            4 * B * H * Lq * Lk * D * frac + 2 * B * H * Lq * Lk * D * frac
        )  # fwd (2 matmuls) + colsum pass (QK^T)
        row = dict(kind=kind, shape=f"B{B} H{H}/{Hkv} Lq{Lq} Lk{Lk} D{D} fp16", kernel_ms=ms_k, eager_colsum_ms=ms_e,
                   sdpa_no_colsum_ms=ms_s, speedup_vs_eager=ms_e / ms_k, kernel_tflops=flops / ms_k / 1e9)  # fmt: skip
        print(row, flush=True)
        rows.append(row)
    return rows


def decode():
    from h2o_cache import H2OCache
    from transformers import DynamicCache, LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    cfg = LlamaConfig(vocab_size=32000, hidden_size=2048, intermediate_size=5632, num_hidden_layers=8,
                      num_attention_heads=32, num_key_value_heads=8, max_position_embeddings=16384)  # fmt: skip
    cfg.bos_token_id = cfg.eos_token_id = None
    model = LlamaForCausalLM(cfg).to("cuda", torch.float16).eval()
    res = {}
    # exactness: budget >= length -> identical greedy tokens
    ids = torch.randint(0, 32000, (2, 64), device="cuda")
    ref = model.generate(ids, max_new_tokens=16, do_sample=False)
    with H2OCache(model, heavy=100, recent=100) as cache:
        big = model.generate(ids, max_new_tokens=16, do_sample=False, cache=cache)
    res["budget_ge_length_identical"] = bool(torch.equal(ref, big))
    print(
        "budget >= length identical greedy output:", res["budget_ge_length_identical"], flush=True
    )
    for B, prompt, new in [(8, 4096, 64), (32, 2048, 64)]:
        ids = torch.randint(0, 32000, (B, prompt), device="cuda")

        def run(make, n, ids=ids):
            """(seconds of one generate call, its cache, its peak extra GPU bytes)."""
            held = {}

            def call():
                cache = held["cache"] = make()
                with torch.no_grad():
                    model.generate(
                        ids, max_new_tokens=n, min_new_tokens=n, do_sample=False, cache=cache
                    )
                if hasattr(cache, "detach"):
                    cache.detach()  # restore the model's attention implementation

            t = timeit_ms(call, repeat=1, warmup=0, sync=torch.cuda.synchronize).best_ms / 1e3
            return t, held["cache"]

        out = {}
        for name, make in [("full", lambda: DynamicCache(config=model.config)),
                           ("h2o20", lambda: H2OCache(model, ratio=(0.1, 0.1)))]:  # fmt: skip
            run(make, 2)  # warm-up / compile
            t1, _ = run(make, 1)
            tn, cache = run(make, new)
            (_, _), peak = peak_memory(lambda make=make, n=new: run(make, n), device="cuda")
            mem = sum(layer.keys.numel() * layer.keys.element_size() * 2 for layer in cache.layers)
            out[name] = dict(
                decode_tok_per_s=B * (new - 1) / (tn - t1),
                prefill_s=t1,
                kv_mib=mem / 2**20,
                peak_extra_mib=peak / 2**20,
            )
        out["decode_speedup"] = out["h2o20"]["decode_tok_per_s"] / out["full"]["decode_tok_per_s"]
        out["kv_ratio"] = out["h2o20"]["kv_mib"] / out["full"]["kv_mib"]
        print(f"B={B} prompt={prompt} new={new}:", out, flush=True)
        res[f"B{B}_prompt{prompt}"] = out
    return res


def main(argv=None):
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--json", type=Path, default=Path("h2o_gpu_check.json"))
    a = p.parse_args(argv)
    if not torch.cuda.is_available():
        print("no CUDA device")
        return 1
    out = {"machine": describe_machine("cuda"), "torch": torch.__version__}
    t0 = time.perf_counter()
    section("correctness", correctness, out)
    section("timing", timing, out)
    section("decode", decode, out)
    out["seconds"] = round(time.perf_counter() - t0, 1)
    a.json.write_text(json.dumps(out, indent=2, default=str))
    print(f"\nwrote {a.json} in {out['seconds']} s")
    return 0 if all(out.get(k + "_ok") for k in ("correctness", "timing", "decode")) else 2


if __name__ == "__main__":
    raise SystemExit(main())
