"""Closed-form derivatives vs nested autograd: the order-k residual of a two-layer ReLU^p PINN.

    python bench.py [--quick] [--json PATH]

For the 1-D Poisson (k = 2) and biharmonic (k = 4) residuals, and the 2-D biharmonic one, times
(a) the residual alone and (b) a training epoch (loss + backward) with the closed-form
derivatives of ``TwoLayerPowerNet`` and with the same network differentiated by nested
``torch.autograd.grad`` (what a generic PINN library does), and DeepXDE's own nested ``dde.grad.hessian``.
"""

from __future__ import annotations

import os

import pinn_split as ps
import torch

from papershelf_harness import RATIO_NOTE, Table, bench_cli, ratio, timeit_ms

torch.set_num_threads(1)


def _deepxde():
    """DeepXDE on its PyTorch backend (the bench group installs it), or None."""
    os.environ.setdefault("DDE_BACKEND", "pytorch")
    try:
        import deepxde as dde
    except ImportError:
        return None
    dde.config.set_default_float("float64")
    return dde


def _dde_derivative(dde, net, x, alpha):
    """d^alpha u by DeepXDE's cached nested gradients (dde.grad.hessian of dde.grad.hessian)."""
    dde.grad.clear()
    x = x.detach().requires_grad_(True)
    y = net(x)[:, None]
    for axis, k in enumerate(alpha):
        for _ in range(k // 2):
            y = dde.grad.hessian(y, x, i=axis, j=axis)
    return y


def _case(pde, alpha, m, n, repeat):
    """(what, closed-form ms, nested-autograd ms) for the residual and for one epoch."""
    net = ps.TwoLayerPowerNet(pde.dim, m, pde.order + 1, generator=torch.Generator().manual_seed(0))
    generic = ps.AutogradNet(net)
    interior, boundary = ps.sample_points(pde, n_interior=n, n_boundary=64)
    closed = timeit_ms(lambda: net.derivative(interior, alpha), repeat=repeat).best_ms
    auto = timeit_ms(lambda: ps.autograd_derivative(generic, interior, alpha), repeat=repeat)
    dde = _deepxde()
    peer = (
        timeit_ms(lambda: _dde_derivative(dde, net, interior, alpha), repeat=repeat).best_ms
        if dde is not None
        else float("nan")
    )
    yield f"d^{alpha} u", closed, auto.best_ms, peer

    def epoch(model):
        net.zero_grad()
        ps.pinn_loss(model, pde, interior, boundary).backward()

    closed = timeit_ms(lambda: epoch(net), repeat=repeat).best_ms
    yield "loss+backward", closed, timeit_ms(lambda: epoch(generic), repeat=repeat).best_ms, None


def run(args):
    table = Table(
        [
            "problem",
            "m",
            "n",
            "what",
            "closed_ms",
            "autograd_ms",
            "speed-up",
            "deepxde_ms",
            "vs deepxde",
        ]
    )
    widths = (20,) if args.quick else (100, 1000)
    repeat = 1 if args.quick else 5
    problems = [
        ("poisson(1)", ps.poisson(1), (2,)),
        ("biharmonic(1)", ps.biharmonic(1), (4,)),
        ("biharmonic(2)", ps.biharmonic(2), (2, 2)),
    ]
    n = 16 if args.quick else 256
    for label, pde, alpha in problems:
        for m in widths:
            for what, closed, auto, peer in _case(pde, alpha, m, n, repeat):
                peer_ms = "n/a" if peer is None or peer != peer else round(peer, 3)
                table.add(
                    label,
                    m,
                    n,
                    what,
                    round(closed, 3),
                    round(auto, 3),
                    ratio(auto, closed),
                    peer_ms,
                    ratio(peer, closed),
                )
    table.notes = (
        RATIO_NOTE + " Baseline: nested autograd; ours: closed form. CPU, one torch "
        "thread, float64; DeepXDE (PyTorch backend, float64, dde.grad.hessian nested) times the residual only; n/a where it is not installed."
    )
    return table


main = bench_cli(run, title="closed-form vs nested-autograd PINN residuals")
