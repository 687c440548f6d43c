"""Time one online step (batch 8, replay batch 8, full buffer) of ER, DER++ and ER-ACE, each
plain and wrapped by SER, on 16x16 one-channel images with ``small_cnn`` (16-32-32-64).

    python bench.py [--quick] [--json PATH]

The ratio column is plain / SER (<1: SER's step is that much slower: it adds the saliency
branch's forward and backward plus saliency features for the buffer batches). The avalanche-lib
peer (Replay / DER / ER_ACE) is not timed in this release.
"""

from __future__ import annotations

from papershelf_harness import Table, bench_cli, ratio, timeit_ms


def run(args):
    import saliency_replay as sr
    import torch

    torch.set_num_threads(1)
    ch = (16, 32, 32, 64)
    g = torch.Generator().manual_seed(0)
    x, y = torch.rand(8, 1, 16, 16, generator=g), torch.randint(0, 10, (8,), generator=g)
    target = sr.proxy_saliency(x)
    repeat = 3 if args.quick else 20
    table = Table(["strategy", "plain ms/step", "SER ms/step", "plain/SER"])
    for name, cls in (("ER", sr.ER), ("DER++", sr.DERpp), ("ER-ACE", sr.ERACE)):
        times = []
        for ser in (False, True):
            torch.manual_seed(0)
            stages, head = sr.small_cnn(1, 10, channels=ch)
            s = cls(sr.ModulatedClassifier(stages, head), buffer_size=16, generator=g)
            learner = sr.SER(s, sr.SaliencyEncoderDecoder(stages, channels=ch)) if ser else s
            for _ in range(3):  # fill the buffer, past the first task
                learner.observe(x, y, target) if ser else learner.observe(x, y)
            learner.end_task()

            def step(learner=learner, ser=ser):
                return learner.observe(x, y, target) if ser else learner.observe(x, y)

            times.append(timeit_ms(step, repeat=repeat).best_ms)
        table.add(name, times[0], times[1], ratio(times[0], times[1]))
    table.notes = "best of the repeats; plain/SER < 1 means SER's step is slower by that factor"
    return table


main = bench_cli(run, title="saliency-replay: ms per online step")
