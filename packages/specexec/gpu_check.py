"""GPU check for specexec (one call, well under 2 minutes on an H200; no downloads).

    python packages/specexec/gpu_check.py --json out.json

1. Greedy identity and tree-attention accuracy on CUDA (fp32 and bf16) with random-init Llamas.
2. The premise of the paper: a target forward over N tree tokens costs about the same as over 1
   token (latency vs N for a ~1B-parameter Llama in bf16).
3. Host-to-device bandwidth from pinned memory -> the offloaded pass time C of a 70B fp16 target,
   and the cost-model speed-up with tokens/pass measured on a GPU pair (draft = target's first
   layers, so the agreement is high; random weights: tokens/pass is illustrative only).
4. Wall-clock of SpecExec vs autoregressive and chain decoding on the GPU (not offloaded).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "src"))
# the harness from the repository, for a run outside the bench environment
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "papershelf-harness" / "src"))

import numpy as np
import torch

from papershelf_harness import describe_machine, timeit_ms
from papershelf_harness.tiny_hf import share_weights, tiny_causal_lm

DEV = "cuda"
SMOKE = False  # --smoke: tiny sizes on CPU, to check the script itself


def sync():
    if DEV == "cuda":
        torch.cuda.synchronize()


def llama(layers, hidden, heads, kv, inter, vocab, dtype, seed=0):
    """A random-init Llama of this size (the harness's builder; output head x4: peakier random
    distributions -> deeper trees), initialised on the device (fast for the 1.2B model)."""
    with torch.device(DEV):
        m = tiny_causal_lm(
            "llama",
            n_layers=layers,
            seed=seed,
            vocab=vocab,
            attn_implementation="sdpa",
            head_scale=4.0,
            hidden_size=hidden,
            intermediate_size=inter,
            num_attention_heads=heads,
            num_key_value_heads=kv,
            max_position_embeddings=4096,
        )
    return m.to(dtype=dtype)


def truncated_draft(target, layers, dtype):
    """The target's first ``layers`` layers (embeddings, norm and head shared)."""
    c = target.config
    d = llama(
        layers,
        c.hidden_size,
        c.num_attention_heads,
        c.num_key_value_heads,
        c.intermediate_size,
        c.vocab_size,
        dtype,
        seed=1,
    )
    return share_weights(target, d)


def sync_time(fn, reps=5):
    """Median seconds of ``reps`` calls after one warm-up, synchronising the device."""
    return timeit_ms(fn, repeat=reps, warmup=1, sync=sync).median_ms / 1e3


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--json", type=Path, default=Path("specexec_gpu.json"))
    p.add_argument("--smoke", action="store_true", help="tiny CPU run of this script")
    args = p.parse_args(argv)
    global DEV, SMOKE
    if args.smoke:
        DEV, SMOKE = "cpu", True
        torch.set_num_threads(1)
    import specexec as sx
    import transformers
    from specexec.models import HFSession

    out = {
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "device": torch.cuda.get_device_name(0) if DEV == "cuda" else "cpu",
        "machine": describe_machine(DEV),
    }
    print(out, flush=True)
    t_all = time.perf_counter()

    # 1. correctness on CUDA
    dtypes = [(torch.float32, 1e-3)] if SMOKE else [(torch.float32, 1e-3), (torch.bfloat16, 0.25)]
    for dtype, tol in dtypes:
        tgt = llama(2, 32, 4, 2, 64, 100, dtype) if SMOKE else llama(4, 256, 8, 4, 512, 1000, dtype)
        dft = truncated_draft(tgt, 1, dtype)
        ids = torch.randint(
            0,
            tgt.config.vocab_size,
            (1, 16),
            device=DEV,
            generator=torch.Generator(DEV).manual_seed(0),
        )
        with torch.no_grad():
            ref = tgt.generate(
                ids, max_new_tokens=64, do_sample=False, eos_token_id=None, pad_token_id=0
            )[0, 16:]
            got, st = sx.specexec_generate(tgt, dft, ids, 64, budget=128, temperature=0)
            prompt = ids[0].tolist()
            tree = sx.build_tree(HFSession(dft, prompt).score, prompt, 64, branch_width=8)
            logits = HFSession(tgt, prompt).score(tree, np.arange(-1, len(tree))).float()
            worst = 0.0
            for i in range(len(tree)):
                path = prompt + tree.path_tokens(i).tolist()
                r = tgt(torch.tensor([path], device=DEV)).logits[0, -1].float()
                worst = max(worst, (logits[i + 1] - r).abs().max().item())
        name = str(dtype).split(".")[-1]
        ref = ref.cpu().numpy()
        same = bool(np.array_equal(got, ref))
        first_diff = None if same else int(np.flatnonzero(got != ref)[0])
        out[f"greedy_identity_{name}"] = {
            "identical": same,
            "first_mismatch": first_diff,
            "tokens_per_call": st.tokens_per_call,
        }
        out[f"tree_attention_max_abs_diff_{name}"] = {"value": worst, "tol": tol, "ok": worst < tol}
        print(
            name,
            out[f"greedy_identity_{name}"],
            out[f"tree_attention_max_abs_diff_{name}"],
            flush=True,
        )
        del tgt, dft

    # 2. forward latency vs number of tree tokens (~1.2B params, bf16)
    big = (
        llama(2, 64, 4, 2, 128, 32000, torch.float32)
        if SMOKE
        else llama(16, 2048, 16, 8, 5632, 32000, torch.bfloat16)
    )
    lat = {}
    with torch.no_grad():
        for n in [1, 16] if SMOKE else [1, 16, 128, 512, 2048]:
            x = torch.randint(0, 32000, (1, n), device=DEV)
            lat[n] = sync_time(lambda x=x: big(x, logits_to_keep=1)) * 1e3
    out["target_forward_ms_vs_tokens"] = lat
    print(
        "forward ms vs tokens (1.2B bf16, on-GPU):",
        {k: round(v, 2) for k, v in lat.items()},
        flush=True,
    )

    # 3. pinned H2D bandwidth -> C for a 70B fp16 target
    if SMOKE:
        bw = 25.0
    else:
        buf = torch.empty(1 << 30, dtype=torch.uint8, pin_memory=True)
        dev = torch.empty_like(buf, device=DEV)
        s = sync_time(lambda: dev.copy_(buf, non_blocking=True), reps=3)
        bw = buf.numel() / s / 1e9
        del buf, dev
    C = 140e9 / (bw * 1e9)
    out["h2d_pinned_GBps"] = bw
    print(f"pinned H2D {bw:.1f} GB/s -> 70B fp16 offloaded pass ~{C:.2f} s", flush=True)

    # 4. SpecExec on a GPU pair: tokens/pass vs budget, wall-clock, cost-model speed-up
    dft = truncated_draft(big, 1 if SMOKE else 2, big.dtype)
    draft_step = sync_time(lambda: dft(torch.randint(0, 32000, (1, 128), device=DEV)))
    cost = sx.OffloadCostModel(C, draft_step)
    prompt = torch.randint(
        0, 32000, (1, 32), device=DEV, generator=torch.Generator(DEV).manual_seed(1)
    )
    rows = {}
    with torch.no_grad():
        _, ar = sx.autoregressive_generate(big, prompt, 64, temperature=0)
        _, ch = sx.chain_speculative_generate(big, dft, prompt, 64, gamma=4, temperature=0)
        rows["autoregressive"] = {
            "ms_per_token": 1e3 * ar.wall_time_s / 64,
            "tokens_per_call": 1.0,
        }
        rows["chain4"] = {
            "ms_per_token": 1e3 * ch.wall_time_s / 64,
            "tokens_per_call": ch.tokens_per_call,
            "offload_speedup": cost.simulate(ch) * C,
        }
        for k in [16] if SMOKE else [16, 64, 256, 1024]:
            if time.perf_counter() - t_all > 100:
                break
            _, st = sx.specexec_generate(big, dft, prompt, 64, budget=k, temperature=0)
            rows[f"specexec_K{k}"] = {
                "ms_per_token": 1e3 * st.wall_time_s / 64,
                "tokens_per_call": st.tokens_per_call,
                "draft_steps_per_call": st.draft_calls / st.target_calls,
                "offload_speedup": cost.simulate(st) * C,
            }
    out["decoding"] = rows
    for k, v in rows.items():
        print(k, {a: round(b, 3) for a, b in v.items()}, flush=True)
    out["seconds"] = time.perf_counter() - t_all
    args.json.write_text(json.dumps(out, indent=2, default=str))
    print("wrote", args.json, f"in {out['seconds']:.1f} s")


if __name__ == "__main__":
    main()
