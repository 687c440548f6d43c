"""Check WSMLoss (torch, autograd scores) against the numpy closed-form AWSM objective.

Run in any environment with torch:  python tests/verify_torch_loss.py
An exponential-Hawkes intensity written in torch must give the same loss as
``wsm_tpp.objective(model, seqs, method="awsm")`` for every weight (float64, rel. tol 1e-10).
"""

import numpy as np
import torch
from wsm_tpp import ExpHawkes, objective, simulate_hawkes
from wsm_tpp.torch_loss import WSMLoss


def pad(seqs):
    n = max(len(t) for t, _ in seqs)
    times = torch.zeros(len(seqs), n, dtype=torch.float64)
    marks = torch.zeros(len(seqs), n, dtype=torch.long)
    mask = torch.zeros(len(seqs), n, dtype=torch.bool)
    for i, (t, k) in enumerate(seqs):
        times[i, : len(t)] = torch.from_numpy(t)
        marks[i, : len(t)] = torch.from_numpy(k)
        mask[i, : len(t)] = True
    return times, marks, mask


def hawkes_fn(mu, A, beta, times, marks, mask):
    prev = torch.cat([torch.zeros_like(times[:, :1]), times[:, :-1]], dim=1)
    mu, A = torch.as_tensor(mu), torch.as_tensor(A)

    def fn(tau):
        t = prev + tau  # (B, N)
        dt = t[:, :, None] - times[:, None, :]  # (B, N, N)
        before = (torch.arange(times.shape[1])[None, :] < torch.arange(times.shape[1])[:, None])[
            None
        ] & mask[:, None, :]
        ker = torch.where(
            before, beta * torch.exp(-beta * torch.where(before, dt, torch.zeros_like(dt))), 0.0
        )
        onehot = torch.nn.functional.one_hot(marks, A.shape[0]).to(times.dtype)  # (B, N, K)
        return mu + ker @ onehot @ A.T

    return fn


def main() -> int:
    mu, A, beta, T = np.array([0.3, 0.4]), np.array([[0.3, 0.2], [0.1, 0.4]]), 2.0, 20.0
    seqs = [simulate_hawkes(mu, A, beta, T, rng=i) for i in range(5)]
    times, marks, mask = pad(seqs)
    model = ExpHawkes(2, beta=beta, mu=mu * 1.3, A=A * 0.7)
    worst = 0.0
    for w in ("two_sided_min", "two_sided_product", "one_sided", "none"):
        ours = WSMLoss(weight=w)(
            hawkes_fn(model.mu, model.A, beta, times, marks, mask), times, marks, T, mask
        )
        ref = objective(
            model,
            seqs,
            method="awsm" if w != "none" else "asm",
            T=T,
            weight=w if w != "none" else "two_sided_min",
        )
        rel = abs(ours.item() - ref) / abs(ref)
        worst = max(worst, rel)
        print(f"{w:18s} torch={ours.item(): .12f} numpy={ref: .12f} rel={rel:.2e}")
    print("OK" if worst < 1e-10 else "MISMATCH")
    return 0 if worst < 1e-10 else 1


if __name__ == "__main__":
    raise SystemExit(main())
