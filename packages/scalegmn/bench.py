"""Benchmark ScaleGMN against the permutation-only GMN and the peer NFN (nfn's HNP layers,
permutation-equivariant neural functionals) on a zoo of tanh MLPs fitted to four classes of 2-D
functions: test accuracy on the raw test networks and on sign-flipped + permuted copies, and the
time of one training epoch (best epoch, ms, one CPU thread).

    python bench.py [--quick] [--json PATH]
"""

from __future__ import annotations

import torch
from torch import nn

from papershelf_harness import Table, bench_cli, ratio, timeit_ms


class NFNClassifier(nn.Module):
    """NFN-HNP invariant classifier: HNPLinear -> ReLU -> HNPLinear -> ReLU -> HNPPool -> Linear."""

    def __init__(self, ws, bs, channels, out_dim):
        super().__init__()
        from nfn.common import WeightSpaceFeatures, network_spec_from_wsfeat
        from nfn.layers import HNPLinear, HNPPool, TupleOp

        self._wsf = WeightSpaceFeatures
        spec = network_spec_from_wsfeat(self._features(ws, bs))
        self.net = nn.Sequential(
            HNPLinear(spec, 1, channels),
            TupleOp(nn.ReLU()),
            HNPLinear(spec, channels, channels),
            TupleOp(nn.ReLU()),
            HNPPool(spec),
            nn.Flatten(1),
            nn.Linear(channels * HNPPool.get_num_outs(spec), out_dim),
        )

    def _features(self, ws, bs):
        return self._wsf([w.unsqueeze(1) for w in ws], [b.unsqueeze(1) for b in bs])

    def forward(self, ws, bs):
        return self.net(self._features(ws, bs))


def run(args):
    import scalegmn as S
    from scalegmn.train import accuracy, fit_classifier

    torch.set_num_threads(1)
    n, n_train = (80, 60) if args.quick else (400, 300)
    dims = (2, 6, 6, 1) if args.quick else (2, 8, 8, 1)
    epochs = 2 if args.quick else 15
    d = 8 if args.quick else 16
    g = torch.Generator().manual_seed(0)
    zoo = S.zoo.function_zoo(
        n, layer_dims=dims, steps=40 if args.quick else 150, lr=0.03, n_side=8, generator=g
    )
    tr, te = zoo.subset(slice(0, n_train)), zoo.subset(slice(n_train, n))
    fw, fb, _ = S.random_scaling(te.weights, te.biases, kind="sign", generator=g)
    fw, fb, _ = S.random_permutation(fw, fb, generator=g)
    try:
        import nfn
    except ImportError:  # the bench group installs it; without it the NFN row is empty
        nfn = None
    makers = {
        "ScaleGMN (sign)": lambda: S.ScaleGMN(
            dims, out_dim=4, d_hidden=d, num_layers=2, symmetry="sign"
        ),
        "GMN (permutation)": lambda: S.ScaleGMN(
            dims, out_dim=4, d_hidden=d, num_layers=2, symmetry="permutation"
        ),
    }
    if nfn is not None:
        makers["NFN-HNP (nfn)"] = lambda: NFNClassifier(tr.weights, tr.biases, 2 * d, 4)
    table = Table(
        ["model", "params", "test_acc", "flipped_acc", "epoch_ms", "epoch_ms vs ScaleGMN"],
        notes="accuracy on the raw test networks and on sign-flipped + permuted copies; "
        "epoch_ms = best epoch over the training run; the ratio is other/ScaleGMN time "
        "(baseline/ours with ScaleGMN as the baseline: > 1 means that model is faster).",
    )
    base = None
    for name, make in makers.items():
        torch.manual_seed(0)
        model = make()
        gen = torch.Generator().manual_seed(0)
        t = timeit_ms(
            lambda m=model, gg=gen: fit_classifier(
                m,
                tr.weights,
                tr.biases,
                tr.labels,
                epochs=1,
                batch_size=32,
                lr=3e-3,
                warmup_steps=10,
                generator=gg,
            ),
            repeat=epochs,
            warmup=0,
        )
        base = t.best_ms if base is None else base
        table.add(
            name,
            sum(p.numel() for p in model.parameters()),
            f"{100 * accuracy(model, te.weights, te.biases, te.labels):.1f}%",
            f"{100 * accuracy(model, fw, fb, te.labels):.1f}%",
            f"{t.best_ms:.0f}",
            ratio(base, t.best_ms),
        )
    return table


main = bench_cli(run, title="ScaleGMN vs GMN vs NFN on a zoo of tanh MLPs")
