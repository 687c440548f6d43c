"""Time online steps (batch 8, replay batch 8) of ER, DER++ and ER-ACE, each plain, wrapped by
SER, and avalanche-lib 0.6.0's counterpart (Replay, DER, ER_ACE), on 16x16 one-channel images
with ``small_cnn`` (16-32-32-64).

    python bench.py [--quick] [--json PATH]

Each cell is one task of 8 batches (64 images) trained after a first task filled the buffer,
best of the repeats, divided by 8: ms per online step, task-boundary work (avalanche's buffer
update, DER's post-task logits) included. ``plain/SER`` < 1: SER's step is that much slower
(the saliency branch's forward and backward plus buffer features); ``avalanche/plain`` > 1:
ours is faster than avalanche's. The avalanche columns read ``n/a`` when avalanche-lib (an
unlocked peer: ``pip install avalanche-lib==0.6.0 torchvision``) is not installed.
"""

from __future__ import annotations

import copy
import warnings
from pathlib import Path

from papershelf_harness import Table, bench_cli, ratio, timeit_ms
from papershelf_harness.testing import load_script

CH = (16, 32, 32, 64)
STEPS = 8
# the avalanche setup (strategy map, options, stream) is reproduce.py's, loaded from beside us
REPRO = load_script(Path(__file__).resolve().with_name("reproduce.py"))


def _ours(cls, ser, tasks, target, stages, head):
    import saliency_replay as sr

    s = cls(sr.ModulatedClassifier(copy.deepcopy(stages), copy.deepcopy(head)), buffer_size=200)
    learner = sr.SER(s, sr.SaliencyEncoderDecoder(stages, channels=CH)) if ser else s

    def task(x, y):
        for i in range(0, len(y), 8):
            xb, yb = x[i : i + 8], y[i : i + 8]
            learner.observe(xb, yb, target[: len(yb)]) if ser else learner.observe(xb, yb)
        learner.end_task()

    task(*tasks[0])
    return lambda: task(*tasks[1])


def _avalanche(method, tasks, stages, head):
    import saliency_replay as sr
    import torch

    model = sr.ModulatedClassifier(copy.deepcopy(stages), copy.deepcopy(head))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    strategy = REPRO._avalanche_strategy(method, model, optimizer)
    stream = REPRO._avalanche_stream(tasks)
    strategy.train(stream[0], num_workers=0)
    return lambda: strategy.train(stream[1], num_workers=0)


def run(args):
    import saliency_replay as sr
    import torch

    torch.set_num_threads(1)
    g = torch.Generator().manual_seed(0)
    x = torch.rand(2 * 8 * STEPS, 1, 16, 16, generator=g)
    y = torch.cat(
        [
            torch.randint(0, 2, (8 * STEPS,), generator=g),
            torch.randint(2, 4, (8 * STEPS,), generator=g),
        ]
    )
    tasks = [(x[: 8 * STEPS], y[: 8 * STEPS]), (x[8 * STEPS :], y[8 * STEPS :])]
    target = sr.proxy_saliency(x[:8])
    torch.manual_seed(0)
    stages, head = sr.small_cnn(1, 10, channels=CH)
    repeat = 2 if args.quick else 5
    try:
        import avalanche  # noqa: F401

        missing = None
    except ImportError as e:
        missing = f"{type(e).__name__}: {e}"
    table = Table(
        [
            "strategy",
            "plain ms/step",
            "SER ms/step",
            "plain/SER",
            "avalanche",
            "avalanche ms/step",
            "avalanche/plain",
        ]
    )
    for name, cls in (("ER", sr.ER), ("DER++", sr.DERpp), ("ER-ACE", sr.ERACE)):
        ms = [
            timeit_ms(_ours(cls, ser, tasks, target, stages, head), repeat=repeat).best_ms / STEPS
            for ser in (False, True)
        ]
        peer = REPRO.AVALANCHE[name][0]
        if missing is None:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                fn = _avalanche(name, tasks, stages, head)
                ms.append(timeit_ms(fn, repeat=repeat).best_ms / STEPS)
        else:
            ms.append("n/a")
        table.add(name, ms[0], ms[1], ratio(ms[0], ms[1]), peer, ms[2], ratio(ms[2], ms[0]))
    table.notes = (
        "one 8-step task after a first task, best of the repeats, per step; plain/SER < 1: "
        "SER's step is slower by that factor; avalanche/plain > 1: ours is faster"
        + (f"; avalanche not run ({missing})" if missing else "")
    )
    return table


main = bench_cli(run, title="saliency-replay: ms per online step, ours vs avalanche-lib")
