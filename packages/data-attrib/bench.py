"""Attribution time against dattri (the paper's library), same model, data and loaders, on CPU:
IF-explicit (2*10^3 parameters), IF-CG (10 iterations; up to 10^5) and TracIn (dattri's
unprojected path; up to 10^6) on one-hidden-layer MLPs, 64 training and 16 test examples
(300 parameters with --quick, no warm-up).

    python bench.py [--quick] [--json PATH]
"""

from __future__ import annotations

import copy
import os
import sys

import torch
from torch.func import functional_call

from papershelf_harness import Table, bench_cli, ratio, timeit_ms


def _mlp(d_in, hidden, classes=10):
    torch.manual_seed(0)
    return torch.nn.Sequential(
        torch.nn.Linear(d_in, hidden), torch.nn.Tanh(), torch.nn.Linear(hidden, classes)
    )


def _setup(n_params, n_train=64, n_test=16, d_in=32):
    hidden = max(4, round((n_params - 10) / (d_in + 11)))
    model = _mlp(d_in, hidden)
    g = torch.Generator().manual_seed(0)
    X = torch.randn(n_train + n_test, d_in, generator=g)
    Y = torch.randint(0, 10, (n_train + n_test,), generator=g)

    def loss(params, batch):
        x, y = batch
        return torch.nn.functional.cross_entropy(functional_call(model, params, (x,)), y)

    def loader(a, b, bs):
        ds = torch.utils.data.TensorDataset(X[a:b], Y[a:b])
        return torch.utils.data.DataLoader(ds, batch_size=bs, shuffle=False)

    p = sum(q.numel() for q in model.parameters())
    return (
        model,
        loss,
        loader(0, n_train, n_train),
        loader(0, n_train, n_train),
        loader(n_train, n_train + n_test, 16),
        p,
    )


def _time(fn, repeat):
    return timeit_ms(fn, repeat=repeat, warmup=1 if repeat > 1 else 0).best_ms


def _dattri():
    os.environ.setdefault("TQDM_DISABLE", "1")  # dattri's progress bars
    try:
        from dattri.algorithm.influence_function import IFAttributorCG, IFAttributorExplicit
        from dattri.algorithm.tracin import TracInAttributor
        from dattri.task import AttributionTask
    except ImportError:  # pragma: no cover - dattri is in the bench group
        return None
    return {
        "task": AttributionTask,
        "IF-explicit": lambda t: IFAttributorExplicit(t, regularization=1e-3),
        "IF-CG (10 it.)": lambda t: IFAttributorCG(t, regularization=1e-3),
        "TracIn": lambda t: TracInAttributor(t, weight_list=torch.ones(1), normalized_grad=False),
    }


def _ours(da, task):
    return {
        "IF-explicit": lambda: da.IFExplicit(task, regularization=1e-3),
        "IF-CG (10 it.)": lambda: da.IFCG(task, regularization=1e-3),
        "TracIn": lambda: da.TracIn(task),
    }


def _run_ours(make, full, train, test):
    att = make()
    att.cache(full)
    return att.attribute(train, test)


def _run_theirs(make, task, full, train, test):
    att = make(task)
    if hasattr(att, "weight_list"):
        att.projector_kwargs = None  # dattri's exact (unprojected) TracIn path
    else:
        att.cache(full)
    return att.attribute(train, test)


def _rows(table, da, dattri, size, repeat):
    model, loss, full, train, test, p = _setup(size)
    ours = _ours(da, da.AttributionTask(loss, model))
    if size <= 2_000:
        names = list(ours)
    elif size <= 100_000:
        names = ["IF-CG (10 it.)", "TracIn"]
    else:
        names = ["TracIn"]
    theirs_task = None
    if dattri is not None:
        theirs_task = dattri["task"](
            loss_func=loss, model=model, checkpoints=copy.deepcopy(model.state_dict())
        )
    for name in names:
        out = {}
        t_ours = _time(
            lambda n=name, o=out: o.update(ours=_run_ours(ours[n], full, train, test)), repeat
        )
        if dattri is None:
            table.add(name, p, f"{t_ours:.0f}", "n/a", "n/a", "n/a")
            continue
        t_theirs = _time(
            lambda n=name, o=out: o.update(
                theirs=_run_theirs(dattri[n], theirs_task, full, train, test)
            ),
            repeat,
        )
        b = out["theirs"].to(out["ours"].dtype)
        diff = f"{float((out['ours'] - b).abs().max() / b.abs().max()):.1e}"
        table.add(name, p, f"{t_ours:.0f}", f"{t_theirs:.0f}", ratio(t_theirs, t_ours), diff)
        print(f"  {name} {p}: ours {t_ours:.0f} ms, dattri {t_theirs:.0f} ms", file=sys.stderr)


def run(args):
    import data_attrib as da

    torch.set_num_threads(1)
    dattri = _dattri()
    sizes = [300] if args.quick else [2_000, 10_000, 100_000, 1_000_000]
    repeat = 1 if args.quick else 2
    table = Table(["method", "params", "ours_ms", "dattri_ms", "dattri/ours", "max |diff|/max"])
    for size in sizes:
        _rows(table, da, dattri, size, repeat if size <= 10_000 else 1)
    table.notes = (
        "dattri/ours = dattri time / ours (>1: ours faster). CPU, one thread, float32. "
        "dattri's TracIn is run with projector_kwargs=None (its default projects to 512 dims). "
        "max |diff|/max: largest score difference relative to the largest dattri score. "
        "One batch of 64 training examples: dattri recomputes the IHVP for every (train batch, "
        "test batch) pair, so smaller batches multiply its IF cost; ours computes it once. "
        "Sizes <= 10^4: best of 2 after a warm-up; larger: one cold run each."
    )
    return table


main = bench_cli(run, title="cache + attribute time, ms (64 train x 16 test)")
