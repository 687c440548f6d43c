"""Bench: the cost of a LaCLIP training step (text drawn among caption + 4 rewrites by
``TextAugmentedDataset``) against a plain CLIP step (the caption only), same tiny CLIP on the
8x8 digits of reproduce.py, batch 128. The paper: no extra compute or memory at training time.

    python bench.py [--quick] [--steps N] [--json PATH]
"""

from __future__ import annotations

import itertools

import laclip
import torch
from laclip._optim import AdamW
from reproduce import ORIGINAL, SOURCES, WORDS, Pairs, TinyCLIP, Tokenizer, digits, rule_llm

from papershelf_harness import Table, bench_cli, ratio, timeit_ms

torch.set_num_threads(1)


def _forever(loader):
    """Batches without end, each one loaded anew (itertools.cycle would replay stored ones)."""
    while True:
        yield from loader


def _step_fn(dataset, tok, steps):
    torch.manual_seed(0)
    model = TinyCLIP(len(tok.index) + 1)
    opt = AdamW(model.parameters(), lr=1e-3)
    loader = torch.utils.data.DataLoader(dataset, batch_size=128, shuffle=True, drop_last=True)

    def run():
        for x, tokens in itertools.islice(_forever(loader), steps):
            loss = laclip.clip_loss(
                model.image(x), model.encode_text(tokens), model.logit_scale.exp()
            )
            opt.zero_grad()
            loss.backward()
            opt.step()

    def load():
        for _ in itertools.islice(_forever(loader), steps):
            pass

    return run, load


def run(args):
    steps = 3 if args.quick else args.steps
    repeat = 1 if args.quick else 5
    x, y, _, _ = digits(0)
    captions = [ORIGINAL.format(WORDS[int(c)]) for c in y]
    per_source = [
        laclip.LLMRewriter(rule_llm(s, i), [("a b", "b a")], k=1, rng=i).rewrite(captions)
        for i, s in enumerate(SOURCES)
    ]
    rewrites = [list(r) for r in zip(*per_source, strict=True)]
    tok = Tokenizer(captions + [t for r in rewrites for t in r])
    base = Pairs(x, captions)
    plain = laclip.TextAugmentedDataset(base, [[] for _ in captions], tokenizer=tok)
    aug = laclip.TextAugmentedDataset(base, rewrites, tokenizer=tok)
    table = Table(
        ["what", f"plain CLIP ms / {steps} steps", f"LaCLIP ms / {steps} steps", "plain/LaCLIP"],
        notes="ratio = plain / LaCLIP (>1: LaCLIP faster; >= 0.95: within 5% of plain, the "
        "paper's claim of no overhead). Best of repeats, 1 thread.",
    )
    (run_p, load_p), (run_a, load_a) = _step_fn(plain, tok, steps), _step_fn(aug, tok, steps)
    for what, fp, fa in [("train step", run_p, run_a), ("data loading only", load_p, load_a)]:
        tp = timeit_ms(fp, repeat=repeat).best_ms
        ta = timeit_ms(fa, repeat=repeat).best_ms
        table.add(what, f"{tp:.1f}", f"{ta:.1f}", ratio(tp, ta))
    return table


def _args(parser):
    parser.add_argument("--steps", type=int, default=200)


main = bench_cli(run, title="LaCLIP step cost vs plain CLIP", extra_args=_args)
