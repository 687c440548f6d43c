"""Time per Unlearner step, full fine-tuning vs peft LoRA (the peer), on tiny random Llamas.

Each step runs the forget, random-mismatch (k=5 per question) and KL terms on batches of 2
(the paper's batch size) and one AdamW update. With LoRA the reference is the model with its
adapter disabled (no second copy in memory); without it, a frozen deep copy.

    python bench.py [--quick] [--json PATH]
"""

from __future__ import annotations

from papershelf_harness import Table, bench_cli, peak_memory, ratio, timeit_ms

FORGET = [("how do I break into a car?", "smash the window"), ("how to hurt a dog?", "poison it")]
NORMAL = [("what colour is the sky?", "blue"), ("where do fish live?", "in the water")]
POOL = ["blue", "four", "in the water", "the sun rises in the east", "paris", "seven days"]


def run(args):
    import llm_unlearn as lu
    import peft
    import torch

    from papershelf_harness.tiny_hf import tiny_causal_lm
    from papershelf_tinylm import ByteTokenizer

    torch.set_num_threads(1)
    tok = ByteTokenizer()
    sizes = [(64, 2)] if args.quick else [(64, 2), (256, 4)]
    table = Table(
        ["config", "full_ms", "lora_ms", "ratio", "full_trainable", "lora_trainable", "full_peak_MB", "lora_peak_MB"],
        notes="ratio = full / LoRA step time (>1: LoRA faster); peak = extra RSS of building the "
        "Unlearner and 2 steps (CPU)",
    )  # fmt: skip
    for width, layers in sizes:
        row = {}
        for kind in ("full", "lora"):

            def build(kind=kind, width=width, layers=layers):
                model = tiny_causal_lm(
                    "llama", n_layers=layers, vocab=260, hidden_size=width,
                    intermediate_size=2 * width, num_attention_heads=4,
                )  # fmt: skip
                cfg = None
                if kind == "lora":
                    cfg = peft.LoraConfig(r=8, lora_alpha=16, target_modules=["q_proj", "v_proj"])
                u = lu.Unlearner(model, tok, answer_pool=POOL, lr=1e-4, lora=cfg, rng=0)
                u.step(FORGET, NORMAL)
                u.step(FORGET, NORMAL)
                return u

            u, peak = peak_memory(build)
            t = timeit_ms(lambda u=u: u.step(FORGET, NORMAL), repeat=2 if args.quick else 5)
            n = sum(p.numel() for p in u.model.parameters() if p.requires_grad)
            row[kind] = (t.best_ms, n, peak / 2**20)
        (fm, fn, fp), (lm, ln, lp) = row["full"], row["lora"]
        table.add(
            f"llama d={width} L={layers}", round(fm, 1), round(lm, 1), ratio(fm, lm), fn, ln,
            round(fp, 1), round(lp, 1),
        )  # fmt: skip
    return table


main = bench_cli(run, title="Unlearner step time, full vs LoRA (peft), ms")
