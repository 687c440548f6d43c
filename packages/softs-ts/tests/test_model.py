"""SOFTS and the baselines: shapes, equivariance, normalisation invariance, covariates."""

import numpy as np
import pytest
import torch
from softs_ts import POOLINGS, SOFTS, ChannelLinear, ITransformerLite, SeriesMLP

L, H = 24, 6


def small(pooling="stochastic", **kw):
    torch.manual_seed(0)
    kw = {"d_model": 16, "d_core": 8, "d_ff": 16, "e_layers": 2, **kw}
    return SOFTS(L, H, pooling=pooling, **kw).eval()


def test_signature_defaults_are_the_authors():
    m = SOFTS(96, 96)
    assert (m.d_model, m.d_core, m.d_ff, m.e_layers) == (512, 512, 2048, 2)
    assert m.dropout == 0.0 and m.use_norm and m.pooling == "stochastic"
    assert len(m.blocks) == 2


@pytest.mark.parametrize("pooling", POOLINGS)
def test_forecast_is_channel_permutation_equivariant(pooling):
    m = small(pooling)
    x = torch.randn(4, L, 9)
    perm = torch.randperm(9, generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        diff = (m(x)[:, :, perm] - m(x[:, :, perm])).abs().max()
    assert diff < 1e-5


def test_forecast_depends_on_other_channels():
    """STAR mixes channels (SeriesMLP does not): changing channel 0 moves channel 1's forecast."""
    x = torch.randn(2, L, 5)
    x2 = x.clone()
    x2[:, :, 0] += torch.randn(2, L) * 3
    m = small()
    mlp = SeriesMLP(L, H, d_model=16, d_ff=16).eval()
    lin = ChannelLinear(L, H).eval()
    with torch.no_grad():
        assert (m(x)[:, :, 1:] - m(x2)[:, :, 1:]).abs().max() > 1e-4
        assert torch.allclose(mlp(x)[:, :, 1:], mlp(x2)[:, :, 1:], atol=1e-6)
        assert torch.allclose(lin(x)[:, :, 1:], lin(x2)[:, :, 1:], atol=1e-6)


def test_normalisation_invariance():
    m = small().double()
    x = torch.randn(3, L, 4, dtype=torch.float64)
    with torch.no_grad():
        base = m(x)
        shifted = x.clone()
        shifted[:, :, 2] += 5.0
        expect = base.clone()
        expect[:, :, 2] += 5.0
        assert (m(shifted) - expect).abs().max() < 1e-4
        scaled = x.clone()
        scaled[:, :, 1] *= 3.0
        expect = base.clone()
        expect[:, :, 1] = (base[:, :, 1] - x[:, :, 1].mean(1, keepdim=True)) * 3.0 + scaled[
            :, :, 1
        ].mean(1, keepdim=True)
        assert (m(scaled) - expect).abs().max() < 1e-4


def test_instance_norm_matches_manual_denormalisation():
    """use_norm = normalise per (sample, channel), run the un-normalised network, de-normalise."""
    m = small()
    x = torch.randn(2, L, 3) * 4 + 7
    mu = x.mean(1, keepdim=True)
    sd = torch.sqrt(x.var(1, keepdim=True, unbiased=False) + 1e-5)
    m_raw = small(use_norm=False)
    m_raw.load_state_dict(m.state_dict())
    with torch.no_grad():
        assert torch.allclose(m(x), m_raw((x - mu) / sd) * sd + mu, atol=1e-4)


def test_covariates_are_extra_tokens():
    m = small()
    x, mark = torch.randn(2, L, 3), torch.randn(2, L, 4)
    with torch.no_grad():
        out = m(x, mark)
        assert out.shape == (2, H, 3)
        assert (out - m(x)).abs().max() > 1e-5
        # same as appending the covariates as channels without normalising them
        m_raw = small(use_norm=False)
        m_raw.load_state_dict(m.state_dict())
        mu = x.mean(1, keepdim=True)
        sd = torch.sqrt(x.var(1, keepdim=True, unbiased=False) + 1e-5)
        joint = m_raw(torch.cat([(x - mu) / sd, mark], dim=2))[:, :, :3] * sd + mu
        assert torch.allclose(out, joint, atol=1e-4)


def test_any_channel_count_and_float64():
    m = small()
    for C in (1, 2, 40):
        assert m(torch.randn(2, L, C)).shape == (2, H, C)
    assert m.double()(torch.randn(1, L, 3, dtype=torch.float64)).dtype == torch.float64


def test_training_mode_draw_reproducible_with_generator():
    m = small().train()
    x = torch.randn(2, L, 5)
    a = m(x, generator=torch.Generator().manual_seed(0))
    b = m(x, generator=torch.Generator().manual_seed(0))
    assert torch.equal(a, b)


def test_itransformer_lite_is_equivariant_and_mixes():
    torch.manual_seed(0)
    m = ITransformerLite(L, H, d_model=16, n_heads=4, d_ff=16).eval()
    x = torch.randn(2, L, 6)
    perm = torch.tensor([5, 3, 1, 0, 2, 4])
    with torch.no_grad():
        assert (m(x)[:, :, perm] - m(x[:, :, perm])).abs().max() < 1e-5


def test_channel_linear_matches_manual_dlinear():
    torch.manual_seed(0)
    m = ChannelLinear(L, H, kernel=5).double().eval()
    x = torch.randn(2, L, 3, dtype=torch.float64)
    xn = x - x.mean(1, keepdim=True)
    z = xn.transpose(1, 2).numpy()
    trend = np.empty_like(z)
    for i in range(L):  # edge-padded centred moving average, window 5
        idx = np.clip(np.arange(i - 2, i + 3), 0, L - 1)
        trend[..., i] = z[..., idx].mean(-1)
    Ws, bs = m.seasonal.weight.detach().numpy(), m.seasonal.bias.detach().numpy()
    Wt, bt = m.trend.weight.detach().numpy(), m.trend.bias.detach().numpy()
    ref = (z - trend) @ Ws.T + bs + trend @ Wt.T + bt
    ref = ref.transpose(0, 2, 1) + x.mean(1, keepdim=True).numpy()
    with torch.no_grad():
        np.testing.assert_allclose(m(x).numpy(), ref, atol=1e-10)


def test_array_input_equals_tensor_input():
    m = small()
    x = np.random.default_rng(0).normal(size=(2, L, 3))
    with torch.no_grad():
        a = m(x)
        b = m(torch.as_tensor(x, dtype=torch.float32))
    assert a.dtype == torch.float32 and torch.equal(a, b)
