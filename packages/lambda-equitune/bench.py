"""Wrapper cost: one EquiTune / EquiZero / λ-EquiTune forward against |G| plain forwards.

Efficient Equivariant Transfer Learning from Pretrained Models (Basu et al., NeurIPS 2023) -
https://arxiv.org/abs/2305.09900. The wrappers evaluate the |G| transformed copies in one
batched call of the model; the issue's target is wrapper time <= 1.2 x (|G| plain forwards).

    python bench.py [--quick] [--json PATH]

Columns: ``plain_ms`` one plain forward on the batch; ``loop_ms`` |G| plain forwards (one per
group element, the baseline); ``wrapper_ms`` one wrapper forward; ``ratio`` = loop_ms / wrapper_ms
(> 1 means the wrapper is faster than |G| plain forwards; >= 0.83 meets the 1.2x target).
CPU, ``torch.no_grad()``, best of several runs.
"""

from __future__ import annotations

import lambda_equitune as le
import torch

from papershelf_harness import RATIO_NOTE, Table, bench_cli, ratio, timeit_ms


def run(args) -> Table:
    torch.manual_seed(0)
    batch, channels, repeat = (64, 8, 2) if args.quick else (256, 32, 5)
    model = le.DigitsCNN(10, channels=channels).eval()
    x = torch.randn(batch, 1, 8, 8)
    table = Table(["group", "wrapper", "plain_ms", "loop_ms", "wrapper_ms", "ratio"])
    for group in (le.Rot90(), le.D4()):
        n = len(group.elements)
        wrappers = {
            "EquiTune": le.EquiTune(model, group),
            "EquiZero": le.EquiZero(model, group),
            "LambdaEquiTune": le.LambdaEquiTune(
                model, group, le.WeightNet(model.n_features).eval(), features=model.features
            ),
        }
        with torch.no_grad():
            plain = timeit_ms(lambda: model(x), repeat=repeat).best_ms
            loop = timeit_ms(
                lambda group=group: [model(group.act(x, g)) for g in group.elements],
                repeat=repeat,
            ).best_ms
            for name, w in wrappers.items():
                w.eval()
                ours = timeit_ms(lambda w=w: w(x), repeat=repeat).best_ms
                table.add(
                    f"{type(group).__name__} (|G|={n})", name, plain, loop, ours, ratio(loop, ours)
                )
    table.notes = (
        "ratio = loop_ms / wrapper_ms, loop = |G| plain forwards (>= 0.83 meets 'wrapper <= 1.2x "
        "|G| plain forwards'). λ-EquiTune also runs its WeightNet on the features. " + RATIO_NOTE
    )
    return table


main = bench_cli(run, title="lambda-equitune: wrapper forward vs |G| plain forwards (CPU)")
