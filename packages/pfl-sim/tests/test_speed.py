"""The speed property (brief check 6): in-process simulation vs a fresh process per client."""

from __future__ import annotations

import multiprocessing as mp
import time

import numpy as np
import pytest
import torch
from pfl_sim import simulate


def _train_one(state, x, y, out):
    model = torch.nn.Linear(5, 1).double()
    model.load_state_dict(state)
    torch.optim.SGD(model.parameters(), lr=0.05).zero_grad()
    loss = ((model(x) - y) ** 2).mean()
    loss.backward()
    with torch.no_grad():
        out.send({k: (p - 0.05 * p.grad).numpy() for k, p in model.named_parameters()})


@pytest.mark.slow
def test_in_process_simulation_is_5x_faster_than_a_process_per_client():
    g = torch.Generator().manual_seed(0)
    users = {
        u: (
            torch.randn(8, 5, generator=g, dtype=torch.float64),
            torch.randn(8, 1, generator=g, dtype=torch.float64),
        )
        for u in range(1000)
    }
    model = torch.nn.Linear(5, 1).double()
    rounds, cohort = 5, 50

    def mse(p, y):
        return ((p - y) ** 2).mean()

    simulate(model, mse, users, rounds=1, cohort_size=2)  # warm-up (imports)
    t = time.perf_counter()
    simulate(model, mse, users, rounds=rounds, cohort_size=cohort, local_lr=0.05)
    ours = time.perf_counter() - t

    ctx = mp.get_context("fork")
    rng = np.random.default_rng(0)
    state = {k: v.clone() for k, v in model.state_dict().items()}
    t = time.perf_counter()
    for _ in range(rounds):
        new = []
        for u in rng.choice(1000, cohort, replace=False):
            recv, send = ctx.Pipe(duplex=False)
            proc = ctx.Process(target=_train_one, args=(state, *users[int(u)], send))
            proc.start()
            new.append(recv.recv())
            proc.join()
        state = {k: torch.as_tensor(np.mean([n[k] for n in new], axis=0)) for k in state}
    baseline = time.perf_counter() - t
    assert baseline / ours >= 5, (baseline, ours)
