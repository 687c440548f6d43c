"""Scores against naive numpy references."""

import catex_ood as cx
import numpy as np
import pytest
import torch

from papershelf_harness.testing import assert_close


def _softmax_max(z):
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return (e / e.sum(axis=1, keepdims=True)).max(axis=1)


def _catex_naive(S, S_sp, tau):
    S_sp = S_sp.max(axis=2) if S_sp.ndim == 3 else S_sp
    n, C = S.shape
    out = np.empty(n)
    for i in range(n):
        logits = []
        for c in range(C):
            p = np.exp(S[i, c]) / (np.exp(S[i, c]) + np.exp(S_sp[i, c]))  # softmax(s, s~)[0]
            logits.append(S[i, c] * max(p, tau))
        out[i] = _softmax_max(np.array([logits]))[0]
    return out


@pytest.mark.parametrize("temperature", [1.0, 0.01, 3.0])
def test_mcm_matches_numpy(temperature):
    S = np.random.default_rng(0).uniform(-1, 1, (7, 5))
    assert_close(
        cx.mcm_score(S, temperature=temperature), _softmax_max(S / temperature), atol=1e-12
    )
    t = cx.mcm_score(torch.tensor(S, dtype=torch.float32), temperature=temperature)
    assert isinstance(t, torch.Tensor) and t.shape == (7,) and t.dtype == torch.float32
    assert_close(t, _softmax_max(S / temperature), atol=1e-6)


@pytest.mark.parametrize("tau", [0.0, 0.5, 0.51, 0.9])
@pytest.mark.parametrize("ns", [None, 1, 3])
def test_catex_matches_naive(tau, ns):
    rng = np.random.default_rng(1)
    S = rng.uniform(-1, 1, (6, 4))
    S_sp = rng.uniform(-1, 1, (6, 4) if ns is None else (6, 4, ns))
    ours = cx.catex_score(torch.tensor(S), torch.tensor(S_sp), tau=tau)
    assert_close(ours, _catex_naive(S, S_sp, tau), atol=1e-12)
    assert_close(cx.catex_score(S, S_sp, tau=tau), _catex_naive(S, S_sp, tau), atol=1e-12)


def test_catex_with_no_spurious_is_mcm():
    S = torch.randn(9, 6, generator=torch.Generator().manual_seed(2)).double()
    assert_close(cx.catex_score(S, torch.full_like(S, -torch.inf)), cx.mcm_score(S), atol=1e-15)
    assert_close(
        cx.catex_score(S, torch.full((9, 6, 2), -torch.inf, dtype=torch.float64), tau=0.9),
        cx.mcm_score(S),
        atol=1e-15,
    )


def test_tau_clamps():
    S = torch.tensor([[0.3, 0.2, -0.1]], dtype=torch.float64)
    S_sp = S + 5.0  # p = sigmoid(-5) < tau
    assert_close(cx.catex_logits(S, S_sp, tau=0.4), 0.4 * S, atol=1e-15)
    S_sp = S - 5.0  # p = sigmoid(5) > tau
    assert_close(
        cx.catex_logits(S, S_sp, tau=0.4), S * torch.sigmoid(torch.tensor(5.0)), atol=1e-12
    )


def test_full_score_naive():
    rng = np.random.default_rng(3)
    S, S_sp = rng.uniform(-1, 1, (5, 3)), rng.uniform(-1, 1, (5, 3, 2))
    z = np.concatenate([S, S_sp.reshape(5, -1)], axis=1)
    e = np.exp(z - z.max(1, keepdims=True))
    p = e / e.sum(1, keepdims=True)
    assert_close(cx.catex_full_score(S, S_sp), p[:, :3].max(1), atol=1e-12)


def test_spurious_evidence_lowers_score():
    S = torch.tensor([[0.9, 0.1, 0.0]])
    low = cx.catex_score(S, torch.tensor([[0.95, -1.0, -1.0]]))
    high = cx.catex_score(S, torch.tensor([[-1.0, -1.0, -1.0]]))
    assert float(low) < float(high)


def test_metrics_are_papershelf_oods():
    import papershelf_ood

    assert cx.auroc is papershelf_ood.auroc and cx.fpr_at_tpr is papershelf_ood.fpr_at_tpr
