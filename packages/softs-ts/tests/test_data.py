"""Windows, splits, scaler, time features and the CSV loader against brute force."""

import datetime as dt

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from softs_ts import StandardScaler, chronological_split, load_csv, mae, mse, per_horizon
from softs_ts.data import sliding_windows, time_features


@settings(max_examples=40, deadline=None)
@given(
    T=st.integers(2, 40),
    C=st.integers(1, 4),
    L=st.integers(1, 10),
    H=st.integers(1, 10),
    stride=st.integers(1, 5),
)
def test_sliding_windows_match_loop(T, C, L, H, stride):
    series = np.arange(T * C, dtype=float).reshape(T, C) ** 1.5
    if T < L + H:
        return
    X, Y = sliding_windows(series, L, H, stride=stride)
    xs, ys = [], []
    s = 0
    while s + L + H <= T:
        xs.append(series[s : s + L])
        ys.append(series[s + L : s + L + H])
        s += stride
    np.testing.assert_array_equal(X, np.array(xs))
    np.testing.assert_array_equal(Y, np.array(ys))
    assert X.flags.c_contiguous and X.shape == (len(xs), L, C)


def test_chronological_split_is_the_authors_7_1_2():
    T, L = 1000, 96
    tr, va, te = chronological_split(T, (0.7, 0.1, 0.2), seq_len=L)
    assert (tr.start, tr.stop) == (0, 700)
    assert (va.start, va.stop) == (700 - L, 800)
    assert (te.start, te.stop) == (800 - L, 1000)
    tr, va, te = chronological_split(10)
    assert (tr, va, te) == (slice(0, 7), slice(7, 8), slice(8, 10))


def test_scaler_fits_train_only():
    rng = np.random.default_rng(0)
    x = rng.normal(3, 2, (100, 3))
    sc = StandardScaler().fit(x[:60])
    z = sc.transform(x)
    np.testing.assert_allclose(z[:60].mean(0), 0, atol=1e-12)
    np.testing.assert_allclose(z[:60].std(0), 1, atol=1e-12)
    np.testing.assert_allclose(sc.inverse_transform(z), x, atol=1e-12)
    np.testing.assert_allclose(sc.transform(x[None])[0], z)


def test_time_features_values():
    d = dt.datetime(2016, 7, 1, 13, 30)
    f = time_features([d], freq="h")[0]
    np.testing.assert_allclose(
        f, [13 / 23 - 0.5, 4 / 6 - 0.5, 0 / 30 - 0.5, (183 - 1) / 365 - 0.5], atol=1e-12
    )
    assert time_features([d], freq="t").shape == (1, 5)


def test_load_csv_roundtrip(tmp_path):
    p = tmp_path / "mini.csv"
    start = dt.datetime(2016, 7, 1)
    lines = ["date,HUFL,OT"]
    for i in range(5):
        lines.append(f"{(start + dt.timedelta(hours=i)).isoformat(sep=' ')},{i},{2 * i + 0.5}")
    p.write_text("\n".join(lines) + "\n")
    data = load_csv(p)
    assert data.names == ("HUFL", "OT")
    np.testing.assert_array_equal(data.values[:, 1], [0.5, 2.5, 4.5, 6.5, 8.5])
    assert data.marks.shape == (5, 4) and data.dates[1] == start + dt.timedelta(hours=1)
    np.testing.assert_allclose(data.marks[:, 0], np.arange(5) / 23 - 0.5)


def test_metrics_match_manual():
    rng = np.random.default_rng(1)
    p, t = rng.normal(size=(4, 3, 2)), rng.normal(size=(4, 3, 2))
    assert np.isclose(mse(p, t), ((p - t) ** 2).sum() / p.size)
    assert np.isclose(mae(p, t), np.abs(p - t).sum() / p.size)
    ph = per_horizon(p, t)
    for h in range(3):
        assert np.isclose(ph[h], ((p[:, h] - t[:, h]) ** 2).mean())
    assert np.isclose(per_horizon(p, t, metric="mae").mean(), mae(p, t))


def test_sliding_windows_returns_writable_copies():
    """Defect: a single window came back as a read-only view of the input (no copy)."""
    series = np.arange(12.0).reshape(6, 2)
    for T in (6, 5):
        X, Y = sliding_windows(series[:T], 4, 1)
        assert X.flags.writeable and Y.flags.writeable
        X[0, 0, 0] = -1.0
        Y[0, 0, 0] = -1.0
    assert series[0, 0] == 0.0 and series[4, 0] == 8.0
