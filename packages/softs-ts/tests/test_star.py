"""STAR against a naive per-channel loop, and the statistics of stochastic pooling."""

import math

import numpy as np
import pytest
import torch
from scipy import stats
from softs_ts import POOLINGS, STAR


def _lin(layer, v):
    W, b = layer.weight.detach().double().numpy(), layer.bias.detach().double().numpy()
    return [sum(W[i, k] * v[k] for k in range(len(v))) + b[i] for i in range(W.shape[0])]


def _gelu(v):
    return [0.5 * a * (1.0 + math.erf(a / math.sqrt(2.0))) for a in v]


def naive_star(star, S, pooling, drawn=None):
    """Loop over samples, channels and core dimensions; ``drawn[b][j]`` is a channel index."""
    S = S.detach().double().numpy()
    B, C, _ = S.shape
    out = np.zeros_like(S)
    cores = []
    for b in range(B):
        O = [
            _lin(star.candidate_out, _gelu(_lin(star.candidate_hidden, S[b, c]))) for c in range(C)
        ]
        core = []
        for j in range(star.d_core):
            col = [O[c][j] for c in range(C)]
            m = max(col)
            e = [math.exp(v - m) for v in col]
            p = [v / sum(e) for v in e]
            if pooling == "mean":
                core.append(sum(col) / C)
            elif pooling == "max":
                core.append(m)
            elif pooling == "drawn":
                core.append(col[drawn[b][j]])
            else:
                core.append(sum(pc * oc for pc, oc in zip(p, col, strict=True)))
        cores.append(core)
        for c in range(C):
            h = _gelu(_lin(star.fuse_hidden, list(S[b, c]) + core))
            out[b, c] = _lin(star.fuse_out, h)
    return out, np.array(cores)


@pytest.fixture
def S():
    return torch.randn(2, 5, 6, generator=torch.Generator().manual_seed(1))


# every pooling in eval mode; in training mode all but stochastic (random: tested below)
DETERMINISTIC = [(p, False) for p in POOLINGS] + [(p, True) for p in POOLINGS[1:]]


@pytest.mark.parametrize(("pooling", "training"), DETERMINISTIC)
def test_deterministic_poolings_match_naive_loop(S, pooling, training):
    torch.manual_seed(0)
    star = STAR(6, 4, pooling=pooling).double()
    star.train(training)
    ref_out, ref_core = naive_star(star, S, pooling)
    np.testing.assert_allclose(star.core(S.double()).detach().numpy(), ref_core, atol=1e-10)
    np.testing.assert_allclose(star(S.double()).detach().numpy(), ref_out, atol=1e-10)


def test_candidates_are_softmax_over_channels(S):
    star = STAR(6, 4).double()
    O, p = star.candidates(S.double())
    assert O.shape == p.shape == (2, 5, 4)
    np.testing.assert_allclose(p.sum(1).detach().numpy(), 1.0, atol=1e-12)
    ref = np.exp(O.detach().numpy()) / np.exp(O.detach().numpy()).sum(1, keepdims=True)
    np.testing.assert_allclose(p.detach().numpy(), ref, atol=1e-12)


def test_stochastic_draw_matches_loop(S):
    """A training-mode draw picks, per (b, j), an actual candidate O[b, c, j]; the forward equals
    the naive loop with those channels."""
    torch.manual_seed(0)
    star = STAR(6, 4).double().train()
    S = S.double()
    O, _ = star.candidates(S)
    core = star.core(S, generator=torch.Generator().manual_seed(3)).detach()
    diff = (O.detach() - core[:, None, :]).abs()  # [B, C, J]
    assert torch.all(diff.min(dim=1).values < 1e-12)
    drawn = diff.argmin(dim=1).tolist()
    out = star(S, generator=torch.Generator().manual_seed(3)).detach().numpy()
    ref_out, ref_core = naive_star(star, S, "drawn", drawn)
    np.testing.assert_allclose(core.numpy(), ref_core, atol=1e-12)
    np.testing.assert_allclose(out, ref_out, atol=1e-10)


def test_stochastic_pooling_is_unbiased_and_draws_follow_p():
    """Monte-Carlo mean of 5000 training draws ~ the eval core (2% rel. L2), and the drawn
    channels' frequencies per core dimension pass a chi-square test against p."""
    torch.manual_seed(0)
    C, J, n = 6, 3, 5000
    star = STAR(8, J).double().train()
    S = torch.randn(1, C, 8, dtype=torch.float64, generator=torch.Generator().manual_seed(2))
    O, p = (t.detach()[0] for t in star.candidates(S))
    Srep = S.expand(n, -1, -1)
    draws = star.core(Srep, generator=torch.Generator().manual_seed(5)).detach()  # [n, J]
    star.eval()
    weighted = star.core(S).detach()[0]
    rel = float(torch.linalg.norm(draws.mean(0) - weighted) / torch.linalg.norm(weighted))
    assert rel < 0.02, rel
    idx = (draws[:, None, :] - O[None]).abs().argmin(dim=1)  # [n, J]
    for j in range(J):
        counts = np.bincount(idx[:, j].numpy(), minlength=C)
        pval = stats.chisquare(counts, n * p[:, j].numpy()).pvalue
        assert pval > 1e-3, (j, counts, p[:, j])


def test_chi_square_detects_wrong_distribution():
    """The statistical check has power: uniform draws are rejected against a peaked p."""
    p = np.array([0.5, 0.2, 0.1, 0.1, 0.05, 0.05])
    counts = np.bincount(np.random.default_rng(0).integers(0, 6, 5000), minlength=6)
    assert stats.chisquare(counts, 5000 * p).pvalue < 1e-6


def test_generator_makes_draw_reproducible(S):
    star = STAR(6, 4).train()
    a = star(S, generator=torch.Generator().manual_seed(7))
    b = star(S, generator=torch.Generator().manual_seed(7))
    c = star(S, generator=torch.Generator().manual_seed(8))
    assert torch.equal(a, b)
    assert not torch.equal(a, c)


def test_gradient_flows_through_drawn_candidates(S):
    star = STAR(6, 4).train()
    star(S, generator=torch.Generator().manual_seed(0)).sum().backward()
    assert star.candidate_out.weight.grad.abs().sum() > 0
    assert star.candidate_hidden.weight.grad.abs().sum() > 0


@pytest.mark.parametrize("pooling", POOLINGS)
def test_star_is_channel_permutation_equivariant(pooling):
    star = STAR(8, 4, pooling=pooling).eval()
    S = torch.randn(3, 7, 8)
    perm = torch.randperm(7, generator=torch.Generator().manual_seed(0))
    assert torch.allclose(star(S)[:, perm], star(S[:, perm]), atol=1e-5)


def test_any_channel_count():
    star = STAR(4, 2).eval()
    for C in (1, 3, 50):
        assert star(torch.randn(2, C, 4)).shape == (2, C, 4)
    # one channel: every pooling gives that channel's candidate
    S = torch.randn(2, 1, 4)
    O, _ = star.candidates(S)
    assert torch.allclose(star.core(S), O[:, 0])
