"""Synthetic multichannel series with a shared low-rank core."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ._checks import check_array, check_float, check_int, check_rng

__all__ = ["SyntheticSeries", "make_series"]


@dataclass(frozen=True)
class SyntheticSeries:
    """``series [T, C]`` = lagged ``drivers [T, K]`` mixed by ``loadings [K, C]`` + noise (+ drift,
    corruption); ``lags[c]`` is channel ``c``'s delay (all 0 without ``max_lag``)."""

    series: np.ndarray
    drivers: np.ndarray
    loadings: np.ndarray
    corrupted: tuple[int, ...]
    lags: tuple[int, ...]


def make_series(
    T: int,
    C: int,
    *,
    n_drivers: int = 4,
    noise: float = 0.5,
    drift: float = 0.0,
    corrupt: Sequence[int] = (),
    corrupt_std: float = 10.0,
    max_lag: int = 0,
    rng=None,
) -> SyntheticSeries:
    """``C`` channels mixed from ``n_drivers`` latent drivers plus idiosyncratic AR(1) noise.

    Drivers alternate between sinusoids (random period 12-96 steps, phase, slowly varying
    amplitude) and stationary AR(2) processes, each scaled to unit variance; loadings are
    N(0, 1/K). ``noise`` is the std of each channel's own AR(1) noise (coefficient 0.5).
    ``drift`` adds a per-channel level that moves linearly over time (total change
    ``drift * N(0, 1)`` per channel) and slowly rescales the loadings, i.e. distribution drift.
    Channels in ``corrupt`` get additive N(0, ``corrupt_std``²) noise. With ``max_lag > 0``
    channel ``c`` sees the drivers delayed by ``lags[c] ~ U{0..max_lag}`` steps (leading and
    lagging sensors), so other channels carry information about a channel's future.
    """
    T = check_int(T, "T", minimum=2)
    C = check_int(C, "C", minimum=1)
    K = check_int(n_drivers, "n_drivers", minimum=1)
    noise = check_float(noise, "noise", minimum=0.0)
    drift = check_float(drift, "drift", minimum=0.0)
    corrupt_std = check_float(corrupt_std, "corrupt_std", minimum=0.0)
    bad = check_array(list(corrupt), "corrupt", ndim=1, dtype="int", allow_empty=True)
    if bad.size and (bad.min() < 0 or bad.max() >= C):
        raise ValueError(f"corrupt must hold channel indices in [0, {C}), got {bad.tolist()}")
    if len(set(bad.tolist())) != bad.size:
        raise ValueError(f"corrupt must not repeat a channel, got {bad.tolist()}")
    max_lag = check_int(max_lag, "max_lag", minimum=0)
    gen = check_rng(rng)
    T_out = T
    T = T + max_lag
    t = np.arange(T, dtype=np.float64)
    drivers = np.empty((T, K))
    for k in range(K):
        if k % 2 == 0:
            period = gen.uniform(12.0, 96.0)
            amp = 1.0 + 0.3 * np.sin(
                2 * np.pi * t / (T / gen.uniform(1.0, 3.0)) + gen.uniform(0, 6.3)
            )
            d = amp * np.sin(2 * np.pi * t / period + gen.uniform(0, 2 * np.pi))
        else:
            a1, a2 = gen.uniform(1.2, 1.7), -gen.uniform(0.75, 0.9)
            e = gen.standard_normal(T + 200)
            z = np.zeros(T + 200)
            for i in range(2, T + 200):
                z[i] = a1 * z[i - 1] + a2 * z[i - 2] + e[i]
            d = z[200:]
        drivers[:, k] = (d - d.mean()) / (d.std() + 1e-12)
    loadings = gen.standard_normal((K, C)) / np.sqrt(K)
    lags = gen.integers(0, max_lag + 1, size=C) if max_lag else np.zeros(C, dtype=np.int64)
    T = T_out
    t = t[:T]
    # channel c at time t sees drivers[t + max_lag - lags[c]]
    shifted = np.stack([drivers[max_lag - lag : max_lag - lag + T] for lag in lags], axis=1)
    drivers = drivers[max_lag:]
    if drift > 0:
        ramp = (t / max(T - 1, 1))[:, None]
        scale = 1.0 + drift * ramp * gen.uniform(-0.5, 0.5, size=(1, C))
        signal = np.einsum("tck,kc->tc", shifted, loadings) * scale
        signal = signal + drift * ramp * gen.standard_normal((1, C))
    else:
        signal = np.einsum("tck,kc->tc", shifted, loadings)
    eps = gen.standard_normal((T, C)) * noise * np.sqrt(1 - 0.25)
    idio = np.zeros((T, C))
    idio[0] = gen.standard_normal(C) * noise
    for i in range(1, T):
        idio[i] = 0.5 * idio[i - 1] + eps[i]
    series = signal + idio
    for c in bad.tolist():
        series[:, c] += gen.standard_normal(T) * corrupt_std
    return SyntheticSeries(
        series=series,
        drivers=drivers,
        loadings=loadings,
        corrupted=tuple(bad.tolist()),
        lags=tuple(int(v) for v in lags),
    )
