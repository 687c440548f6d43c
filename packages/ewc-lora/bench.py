"""EWC-LoRA against peft's LoRA with the same penalty: a training step (LM loss + EWC penalty)
and the penalty alone, on the same tiny random Llama, CPU, one thread.

    python bench.py [--quick] [--json PATH]
"""

from __future__ import annotations

import torch
from ewc_lora import LoRALinear, apply_lora, ewc_lora_penalty

from papershelf_harness import Table, bench_cli, ratio, timeit_ms
from papershelf_harness.tiny_hf import tiny_causal_lm

TARGETS = ["q_proj", "k_proj", "v_proj", "o_proj", "up_proj", "down_proj"]


def _pair(hidden, layers):
    import peft

    kw = dict(n_layers=layers, vocab=256, seed=0, hidden_size=hidden, intermediate_size=4 * hidden)
    ours, theirs = tiny_causal_lm("llama", **kw), tiny_causal_lm("llama", **kw)
    apply_lora(ours, target_modules=TARGETS, r=8, alpha=32, dropout=0.0)
    config = peft.LoraConfig(r=8, lora_alpha=32, lora_dropout=0.0, target_modules=TARGETS)
    theirs = peft.get_peft_model(theirs, config)
    g = torch.Generator().manual_seed(0)
    with torch.no_grad():  # the same adapters in both
        for name, m in ours.named_modules():
            if isinstance(m, LoRALinear):
                m.B.copy_(torch.randn(m.B.shape, generator=g) * 0.01)
                layer = theirs.get_submodule("base_model.model." + name)
                layer.lora_A["default"].weight.copy_(m.A)
                layer.lora_B["default"].weight.copy_(m.B)
    fisher = {
        n: torch.rand(p.shape, generator=g)
        for n, p in tiny_causal_lm("llama", **kw).named_parameters()
    }
    return ours.train(), theirs.train(), fisher


def run(args):
    torch.set_num_threads(1)
    hidden, layers, tokens = (32, 1, 32) if args.quick else (256, 2, 128)
    repeat = 2 if args.quick else 5
    ours, theirs, fisher = _pair(hidden, layers)
    ids = torch.randint(0, 256, (4, tokens), generator=torch.Generator().manual_seed(1))

    def step(model):
        def go():
            model.zero_grad(set_to_none=True)
            loss = model(input_ids=ids, labels=ids).loss + ewc_lora_penalty(model, fisher, lam=2.0)
            loss.backward()
            return loss

        return go

    gap = abs(float(step(ours)().detach()) - float(step(theirs)().detach()))
    table = Table(["config", "peft_ms", "ours_ms", "ratio"])

    def timed_row(label, peft_fn, ours_fn, digits):
        """One row: best of ``repeat`` runs of peft's and our callable, ratio peft / ours."""
        t_peft, t_ours = timeit_ms(peft_fn, repeat=repeat), timeit_ms(ours_fn, repeat=repeat)
        table.add(
            label,
            round(t_peft.best_ms, digits),
            round(t_ours.best_ms, digits),
            ratio(t_peft.best_ms, t_ours.best_ms),
        )

    timed_row(
        f"train step, LM loss + EWC penalty (d={hidden}, {layers} layers, 4x{tokens} tokens)",
        step(theirs),
        step(ours),
        2,
    )
    timed_row(
        "EWC-LoRA penalty alone (forward)",
        lambda: ewc_lora_penalty(theirs, fisher),
        lambda: ewc_lora_penalty(ours, fisher),
        3,
    )
    table.notes = (
        f"same adapters in both (r=8, alpha=32, q/k/v/o/up/down): losses differ by {gap:.1e}; "
        "ratio = peft / ours (> 1: ours faster)"
    )
    return table


main = bench_cli(run, title="EWC-LoRA: this package's LoRA vs peft LoRA, same penalty")
