"""torch extra: WSMLoss equals the numpy closed-form AWSM objective (skipped without torch)."""

import sys
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")


def test_wsm_loss_matches_numpy_objective():
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from verify_torch_loss import main

    assert main() == 0


def test_gru_intensity_trains_with_wsm_loss():
    from wsm_tpp import simulate_hawkes
    from wsm_tpp.torch_loss import GRUIntensity, WSMLoss

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from verify_torch_loss import pad

    torch.manual_seed(0)
    seqs = [simulate_hawkes(0.5, 0.8, 2.0, 20.0, rng=i) for i in range(8)]
    times, marks, mask = pad(seqs)
    model = GRUIntensity(K=1, hidden=8).double()
    loss_fn = WSMLoss()
    opt = torch.optim.Adam(model.parameters(), lr=0.02)
    losses = []
    for _ in range(15):
        loss = loss_fn(model.intensity_fn(times, marks), times, marks, 20.0, mask)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert np.isfinite(losses).all() and losses[-1] < losses[0]


def test_wsm_loss_bad_weight_names_the_argument():
    from wsm_tpp.torch_loss import WSMLoss

    with pytest.raises(ValueError, match="weight must be one of"):
        WSMLoss(weight="two_side_op")


def test_wsm_loss_rejects_intensity_without_mark_axis():
    # a (B, N) intensity used to be summed over N silently
    from wsm_tpp.torch_loss import WSMLoss

    times = torch.tensor([[0.5, 1.0, 2.0]], dtype=torch.float64)
    marks = torch.zeros_like(times, dtype=torch.long)
    with pytest.raises(ValueError, match=r"\(B, N, K\)"):
        WSMLoss()(lambda tau: 1.0 + tau**2, times, marks, 3.0)
    ok = WSMLoss()(lambda tau: (1.0 + tau**2)[..., None], times, marks, 3.0)
    assert torch.isfinite(ok)
