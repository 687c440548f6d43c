"""fit / predict on synthetic data, and the synthetic generator itself."""

import numpy as np
import pytest
import torch
from softs_ts import SOFTS, ChannelLinear, fit, make_series, predict, sliding_windows


def _windows(seed=0, T=400, C=6):
    s = make_series(T, C, n_drivers=2, noise=0.2, rng=seed).series
    s = (s - s[:300].mean(0)) / s[:300].std(0)
    return sliding_windows(s[:300], 24, 6, stride=2), sliding_windows(s[276:], 24, 6)


def test_fit_learns_and_restores_best_epoch():
    (X, Y), (Xv, Yv) = _windows()
    torch.manual_seed(0)
    m = SOFTS(24, 6, d_model=16, d_core=8, d_ff=16, e_layers=1)
    before = float(np.mean((predict(m, Xv) - Yv) ** 2))
    r = fit(m, (X, Y), (Xv, Yv), epochs=6, lr=1e-2, generator=torch.Generator().manual_seed(0))
    after = float(np.mean((predict(m, Xv) - Yv) ** 2))
    assert after < 0.75 * before
    assert r.epochs_run == len(r.train_loss) == len(r.val_loss)
    assert r.val_loss[r.best_epoch - 1] == min(r.val_loss)
    assert after == pytest.approx(min(r.val_loss), rel=1e-5)


def test_fit_is_reproducible_with_generator():
    (X, Y), _ = _windows()
    outs = []
    for _ in range(2):
        torch.manual_seed(0)
        m = SOFTS(24, 6, d_model=8, d_core=4, d_ff=8, e_layers=1)
        fit(m, (X, Y), epochs=2, generator=torch.Generator().manual_seed(3))
        outs.append(predict(m, X[:5]))
    np.testing.assert_array_equal(outs[0], outs[1])


def test_early_stopping_stops_when_val_gets_worse():
    (X, Y), (Xv, Yv) = _windows()
    torch.manual_seed(0)
    m = ChannelLinear(24, 6)
    # a validation set the model cannot fit (signs flipped): val loss rises as train improves
    r = fit(m, (X, Y), (Xv, -Yv * 5), epochs=30, lr=1e-2, patience=2, schedule="constant")
    assert r.stopped_early and r.epochs_run <= r.best_epoch + 2


def test_fit_float64_and_covariates():
    (X, Y), _ = _windows()
    M = np.random.default_rng(0).normal(size=(len(X), 24, 2))
    m = SOFTS(24, 6, d_model=8, d_core=4, d_ff=8, e_layers=1).double()
    fit(m, (X, Y, M), epochs=1)
    out = predict(m, X[:3], M[:3])
    assert out.shape == (3, 6, 6) and out.dtype == np.float64


def test_synthetic_is_low_rank_plus_noise():
    d = make_series(2000, 12, n_drivers=3, noise=0.0, rng=0)
    sv = np.linalg.svd(d.series - d.series.mean(0), compute_uv=False)
    assert sv[3] < 1e-8 * sv[0]
    assert sv[2] > 1e-3 * sv[0]
    noisy = make_series(2000, 12, n_drivers=3, noise=0.0, corrupt=[4], corrupt_std=10.0, rng=0)
    resid = noisy.series - d.series
    assert np.allclose(np.delete(resid, 4, axis=1), 0)
    assert 9.0 < resid[:, 4].std() < 11.0
    assert noisy.corrupted == (4,)
    drifted = make_series(2000, 12, drift=2.0, noise=0.0, rng=0).series
    assert not np.allclose(drifted, d.series)


def test_forecast_one_call_recovers_a_clean_seasonal_series():
    """Noise-free period-12 series with a level and scale per channel: the forecast of the
    next 6 steps (original scale) is close to the truth, and far better than the series std."""
    from softs_ts import forecast

    t = np.arange(400)
    truth = np.stack([5 + 2 * np.sin(2 * np.pi * t / 12), -3 + np.cos(2 * np.pi * t / 12)], 1)
    torch.manual_seed(0)
    res = forecast(
        truth[:394],
        6,
        seq_len=24,
        model=ChannelLinear(24, 6),
        epochs=30,
        lr=1e-2,
        generator=torch.Generator().manual_seed(0),
    )
    assert res.values.shape == (6, 2)
    err = np.abs(res.values - truth[394:]).max()
    assert err < 0.2 * truth.std(0).min(), err
