"""Time per posterior draw: CMPE (1, 2, 10 consistency steps) vs FMPE (10, 100, 1000 Euler steps)
on the same width-256 residual MLP vs sbi's NPE (masked autoregressive flow, sbi's defaults), in
one run, one CPU thread, one observation and a batch of draws.

Sampling time does not depend on the weights, so the networks are untrained (the speed claim
with trained networks is in reproduce.py). sbi's draws go through ``DirectPosterior.sample``
with a Gaussian prior (nothing is rejected), as an sbi user would call it.

    python bench.py [--quick] [--json PATH]
"""

from __future__ import annotations

import cmpe
import numpy as np
import torch

from papershelf_harness import RATIO_NOTE, Table, bench_cli, ratio, timeit_ms

torch.set_num_threads(1)


def _sbi_sampler(n_draws):
    """A callable drawing ``n_draws`` from an (untrained) sbi NPE posterior, or None."""
    try:
        from sbi.inference import DirectPosterior
        from sbi.neural_nets import posterior_nn
    except ImportError:
        return None
    theta, x = cmpe.gaussian_conjugate(256, rng=0)
    torch.manual_seed(0)
    estimator = posterior_nn("maf")(
        torch.as_tensor(theta, dtype=torch.float32), torch.as_tensor(x, dtype=torch.float32)
    )
    prior = torch.distributions.MultivariateNormal(torch.zeros(2), torch.eye(2))
    posterior = DirectPosterior(estimator, prior)
    x_obs = torch.zeros(1, 2)
    return lambda: posterior.sample((n_draws,), x=x_obs, show_progress_bars=False)


def run(args):
    n_draws = 50 if args.quick else 1000
    repeat = 1 if args.quick else 3
    torch.manual_seed(0)
    cm = cmpe.ConsistencyPosterior(2, 2)
    fm = cmpe.FlowMatchingPosterior(2, 2)
    fm.net.load_state_dict(cm.net.state_dict())
    x_obs = np.zeros((1, 2))
    rows = []
    for steps in (1, 2, 10):
        ms = timeit_ms(lambda s=steps: cm.sample(x_obs, n_draws, n_steps=s), repeat=repeat).best_ms
        rows.append((f"CMPE, {steps} step{'s' * (steps > 1)}", steps, ms))
    for steps in (10, 100, 1000):
        ms = timeit_ms(
            lambda s=steps: fm.sample(x_obs, n_draws, n_steps=s), repeat=1, warmup=0
        ).best_ms
        rows.append((f"FMPE, {steps} Euler steps", steps, ms))
    sampler = _sbi_sampler(n_draws)
    npe_ms = None
    if sampler is not None:
        npe_ms = timeit_ms(sampler, repeat=repeat).best_ms
        rows.append(("NPE (sbi MAF, 5 transforms)", "1 pass", npe_ms))
    fmpe_ms = rows[5][2]
    table = Table(["method", "network evals per draw", "us_per_draw", "vs FMPE-1000", "vs sbi NPE"])
    for name, evals, ms in rows:
        table.add(
            name,
            evals,
            round(1e3 * ms / n_draws, 3),
            ratio(fmpe_ms, ms),
            ratio(npe_ms, ms) if npe_ms is not None else "n/a (sbi not installed)",
        )
    table.notes = (
        f"{n_draws} draws for one observation per call, best of {repeat}; width-256 MLP with 2 "
        "residual blocks, 1 CPU thread. " + RATIO_NOTE
    )
    return table


main = bench_cli(run, title="cmpe: time per posterior draw, CMPE vs FMPE vs sbi NPE")
