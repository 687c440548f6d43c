"""Training-step time and saved activation bytes, in one run on the same tiny random-init Llama
(papershelf_harness.tiny_hf, CPU): exact fine-tuning, peft LoRA, WTA-CRS, LoRA + WTA-CRS (the
frozen base weights save no rows; only the adapters are sampled) and activation checkpointing;
plus, on a transformer FFN stack, WTA-CRS at several ratios.

    python bench.py [--quick] [--json PATH]
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn
from wta_crs import convert_linear_layers, saved_activation_bytes

from papershelf_harness import Table, bench_cli, ratio, timeit_ms
from papershelf_harness.tiny_hf import tiny_causal_lm

LORA_TARGETS = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]


class FFN(nn.Module):
    def __init__(self, d, ff):
        super().__init__()
        self.up, self.down, self.norm = nn.Linear(d, ff), nn.Linear(ff, d), nn.LayerNorm(d)

    def forward(self, x):
        return self.norm(x + self.down(F.gelu(self.up(x))))


class Stack(nn.Module):
    def __init__(self, d, ff, layers):
        super().__init__()
        self.blocks = nn.ModuleList(FFN(d, ff) for _ in range(layers))

    def forward(self, x):
        for b in self.blocks:
            x = b(x)
        return x


def _llama(quick):
    size = {} if quick else dict(hidden_size=256, intermediate_size=1024, num_attention_heads=4)
    size.update(num_key_value_heads=size.get("num_attention_heads", 4))
    return tiny_causal_lm("llama", n_layers=2, vocab=256, seed=0, **size).train()


def _lora(model):
    from peft import LoraConfig, get_peft_model

    config = LoraConfig(r=8, lora_alpha=16, lora_dropout=0.0, target_modules=LORA_TARGETS)
    return get_peft_model(model, config)


def _llama_configs(quick):
    def exact():
        return _llama(quick)

    def lora():
        return _lora(_llama(quick))

    def wta():
        return convert_linear_layers(_llama(quick), ratio=0.3)

    def lora_wta():  # base_layer frozen (plain F.linear, no rows); lora_A / lora_B sampled
        return convert_linear_layers(lora(), ratio=0.3)

    def checkpointing():
        model = _llama(quick)
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
        return model

    return [
        ("exact fine-tuning", exact),
        ("peft LoRA r=8", lora),
        ("WTA-CRS ratio 0.3", wta),
        ("LoRA r=8 + WTA-CRS 0.3", lora_wta),
        ("activation checkpointing", checkpointing),
    ]


def _ffn_configs(quick):
    d, ff = (64, 256) if quick else (256, 1024)

    def make(r):
        def build():
            model = Stack(d, ff, 2 if quick else 4).train()
            return model if r is None else convert_linear_layers(model, ratio=r)

        return build

    ratios = (0.3,) if quick else (0.5, 0.3, 0.1)
    return d, [("FFN exact nn.Linear", make(None))] + [
        (f"FFN WTA-CRS ratio {r}", make(r)) for r in ratios
    ]


def _measure(table, configs, batch, loss, repeat):
    base = None
    for name, build in configs:
        torch.manual_seed(0)
        model = build()

        def step(model=model):
            model.zero_grad(set_to_none=True)
            loss(model, batch).backward()

        ms = timeit_ms(step, repeat=repeat).best_ms
        saved = saved_activation_bytes(model, batch)
        trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
        if base is None:
            base = (ms, saved)
        table.add(name, trainable, ms, ratio(base[0], ms), saved / 2**20, ratio(base[1], saved))


def run(args):
    torch.set_num_threads(1)
    repeat = 1 if args.quick else 5
    batch, tokens = (2, 16) if args.quick else (8, 128)
    table = Table(["config", "trainable", "step ms", "time ratio", "saved MB", "memory ratio"])

    gen = torch.Generator().manual_seed(0)
    ids = torch.randint(0, 256, (batch, tokens), generator=gen)
    _measure(
        table,
        _llama_configs(args.quick),
        {"input_ids": ids, "labels": ids},
        lambda model, b: model(**b).loss,
        repeat,
    )
    d, ffn = _ffn_configs(args.quick)
    x = torch.randn(batch, tokens, d, generator=gen)
    _measure(table, ffn, x, lambda model, b: model(b).square().mean(), repeat)
    table.notes = (
        "two groups, each with ratios against its own first row (exact fine-tuning of the tiny "
        "Llama; the exact FFN stack): baseline/config, >1 means the config is faster or saves "
        "fewer bytes. Saved bytes: distinct storages autograd keeps for backward "
        "(saved_tensors_hooks), parameters aside; for checkpointing only what the outer graph "
        "keeps is seen (the recomputation's transient memory is not). LoRA + WTA-CRS: the frozen "
        "base layers run plain F.linear and save no rows; the adapters' inputs are sampled. "
        "Norm, activation-function and attention tensors are never sampled."
    )
    return table


main = bench_cli(run, title="WTA-CRS vs exact, peft LoRA and checkpointing: step time, saved bytes")
