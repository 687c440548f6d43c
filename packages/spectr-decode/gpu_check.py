"""GPU check for spectr-decode: wall-clock of SpecTr vs speculative vs autoregressive on CUDA.

    python gpu_check.py --json out.json [--tokens 128] [--prompts 4]

Uses papershelf-tinylm's trained pair (trained on first use, about a minute on 16 CPU cores, or
loaded from $PAPERSHELF_TINYLM_CACHE). Prints tokens/s, tokens per target call and speed-ups;
also checks greedy identity on the GPU. Well under 5 minutes on an H200.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
# the harness from the repository, for a run outside the bench environment
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "papershelf-harness" / "src"))


def main(argv: list[str] | None = None) -> int:
    import reproduce as R
    import spectr_decode as sd
    import torch

    import papershelf_tinylm as tl
    from papershelf_harness import describe_machine

    ap = argparse.ArgumentParser()
    ap.add_argument("--json", type=Path, required=True)
    ap.add_argument("--tokens", type=int, default=128)
    ap.add_argument("--prompts", type=int, default=4)
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    target, draft, _ = tl.load_pair(seed=0)
    print(f"pair ready in {time.perf_counter() - t0:.1f} s")
    dev = "cuda" if torch.cuda.is_available() else "cpu"
    target, draft = target.to(dev), draft.to(dev)
    print("device:", dev, torch.cuda.get_device_name(0) if dev == "cuda" else "")
    # warm-up (kernels, allocator)
    sd.spectr_generate(target, draft, R.prompts(1)[0], 16, k=4, L=4, rng=0)
    sd.autoregressive_generate(target, R.prompts(1)[0], 16, rng=0)
    configs = [("autoregressive", 0, 0)] + [
        (f"k={k},L={L}", k, L) for L in (2, 4, 6) for k in (1, 2, 4, 8)
    ]
    res = R.decode_runs(target, draft, configs, R.prompts(args.prompts), max_new=args.tokens)
    ar = res["autoregressive"]["tokens_per_s"]
    rows = []
    for name, r in res.items():
        line = {
            "config": name,
            "tokens_per_s": round(r["tokens_per_s"], 1),
            "tokens_per_call": round(r["tokens_per_call"], 2),
            "tokens_per_call_se": round(r["tokens_per_call_se"], 3),
            "speedup_vs_ar": round(r["tokens_per_s"] / ar, 2),
            "target_ms_per_call": round(1e3 * r["target_s_per_call"], 2),
            "draft_ms_per_call": round(1e3 * r["draft_s_per_call"], 2),
        }
        rows.append(line)
        print(line)
    for L in (2, 4, 6):
        spec = res[f"k=1,L={L}"]["tokens_per_s"]
        best = max(res[f"k={k},L={L}"]["tokens_per_s"] for k in (2, 4, 8))
        print(
            f"L={L}: best SpecTr vs speculative wall-clock {best / spec:.2f}x, vs AR {best / ar:.2f}x"
        )
    pr = R.prompts(1)[0]
    g, _ = sd.spectr_generate(target, draft, pr, 64, k=4, L=4, temperature=0)
    a, _ = sd.autoregressive_generate(target, pr, 64, temperature=0)
    greedy_ok = g.tolist() == a.tolist()
    print("greedy identity on", dev, ":", greedy_ok)
    out = {
        "device": dev,
        "machine": describe_machine(dev),
        "rows": rows,
        "greedy_identity": greedy_ok,
        "seconds": round(time.perf_counter() - t0, 1),
    }
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
