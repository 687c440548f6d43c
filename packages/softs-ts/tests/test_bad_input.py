"""Bad input gets a TypeError (wrong type) or ValueError (wrong value) naming the argument.

One case per public argument, by kind (see ``papershelf_harness.suite``).
"""

import numpy as np
import softs_ts as S
import torch
from hypothesis import strategies as st

from papershelf_harness import suite

K = suite.keyword
L, H = 8, 2
STAR = S.STAR(4, 2)
MODEL = S.SOFTS(L, H, d_model=8, d_core=4, d_ff=8, e_layers=1)
LIN = S.ChannelLinear(L, H)
X = np.ones((3, L, 2))
Y = np.ones((3, H, 2))
SERIES = np.random.default_rng(0).normal(size=(20, 2))
SCALER = S.StandardScaler().fit(SERIES)
POOL = frozenset(S.POOLINGS)
ACT = frozenset({"gelu", "relu"})
BAD_GEN = (("seed", TypeError), (1, TypeError), (np.random.default_rng(0), TypeError))
not_in_01 = st.one_of(st.floats(1.0, 1e6), st.floats(-1e6, -1e-6))
negative = st.floats(-1e6, -1e-6)

CASES = [
    # STAR
    suite.Int("STAR.d_series", "d_series", lambda v: S.STAR(v, 2), minimum=1),
    suite.Int("STAR.d_core", "d_core", lambda v: S.STAR(4, v), minimum=1),
    K(suite.Option, S.STAR, "pooling", 4, 2, valid=POOL),
    suite.Array("STAR.forward.S", "S", lambda v: STAR(v), (2, 3, 4), (3,)),
    suite.Array("STAR.core.S", "S", lambda v: STAR.core(v), (2, 3, 4), (3,)),
    suite.Array("STAR.candidates.S", "S", lambda v: STAR.candidates(v), (2, 3, 4), (3,)),
    suite.Mismatch("STAR.forward.S_dim", "S", lambda: STAR(torch.ones(2, 3, 5))),
    suite.Values(
        "STAR.forward.generator",
        "generator",
        lambda v: STAR(torch.ones(1, 2, 4), generator=v),
        bad=BAD_GEN,
    ),
    suite.Values(
        "STAR.core.generator",
        "generator",
        lambda v: STAR.core(torch.ones(1, 2, 4), generator=v),
        bad=BAD_GEN,
    ),
    # SOFTS and baselines
    suite.Int("SOFTS.seq_len", "seq_len", lambda v: S.SOFTS(v, H), minimum=1),
    suite.Int("SOFTS.pred_len", "pred_len", lambda v: S.SOFTS(L, v), minimum=1),
    K(suite.Int, S.SOFTS, "d_model", L, H, minimum=1),
    K(suite.Int, S.SOFTS, "d_core", L, H, minimum=1),
    K(suite.Int, S.SOFTS, "d_ff", L, H, minimum=1),
    K(suite.Int, S.SOFTS, "e_layers", L, H, minimum=0),
    K(suite.Number, S.SOFTS, "dropout", L, H),
    K(suite.OutOfRange, S.SOFTS, "dropout", L, H, values=not_in_01),
    K(suite.Flag, S.SOFTS, "use_norm", L, H),
    K(suite.Option, S.SOFTS, "pooling", L, H, valid=POOL),
    K(suite.Option, S.SOFTS, "activation", L, H, valid=ACT),
    suite.Array("SOFTS.forward.x", "x", lambda v: MODEL(v), (2, L, 3), (3,)),
    suite.Array(
        "SOFTS.forward.x_mark", "x_mark", lambda v: MODEL(X, v), (3, L, 2), (3,), none_ok=True
    ),
    suite.Mismatch("SOFTS.forward.x_seq_len", "x", lambda: MODEL(torch.ones(2, L + 1, 3))),
    suite.Mismatch("SOFTS.forward.x_mark_len", "x_mark", lambda: MODEL(X, np.ones((3, L - 1, 2)))),
    suite.Values(
        "SOFTS.forward.generator", "generator", lambda v: MODEL(X, generator=v), bad=BAD_GEN
    ),
    suite.Int("SeriesMLP.seq_len", "seq_len", lambda v: S.SeriesMLP(v, H), minimum=1),
    K(suite.Int, S.SeriesMLP, "e_layers", L, H, minimum=0),
    suite.Int(
        "ITransformerLite.pred_len", "pred_len", lambda v: S.ITransformerLite(L, v), minimum=1
    ),
    K(suite.Int, S.ITransformerLite, "n_heads", L, H, kwargs={"d_model": 8}, minimum=1),
    suite.Mismatch(
        "ITransformerLite.n_heads_divides",
        "n_heads",
        lambda: S.ITransformerLite(L, H, d_model=8, n_heads=3),
    ),
    suite.Int("ChannelLinear.seq_len", "seq_len", lambda v: S.ChannelLinear(v, H), minimum=1),
    K(suite.Int, S.ChannelLinear, "kernel", L, H, minimum=1),
    K(suite.Flag, S.ChannelLinear, "decompose", L, H),
    suite.Array("ChannelLinear.forward.x", "x", lambda v: LIN(v), (2, L, 3), (3,)),
    # data
    suite.Array(
        "sliding_windows.series", "series", lambda v: S.sliding_windows(v, 2, 1), (10, 2), (2,)
    ),
    suite.Int(
        "sliding_windows.seq_len", "seq_len", lambda v: S.sliding_windows(SERIES, v, 1), minimum=1
    ),
    suite.Int(
        "sliding_windows.pred_len", "pred_len", lambda v: S.sliding_windows(SERIES, 2, v), minimum=1
    ),
    K(suite.Int, S.sliding_windows, "stride", SERIES, 2, 1, minimum=1),
    suite.Mismatch("sliding_windows.too_short", "series", lambda: S.sliding_windows(SERIES, 15, 6)),
    suite.Int("chronological_split.T", "T", lambda v: S.chronological_split(v), minimum=3),
    suite.Values(
        "chronological_split.ratios",
        "ratios",
        lambda v: S.chronological_split(100, v),
        bad=(
            ((0.5, 0.5), ValueError),
            ((0.7, 0.2, 0.2), ValueError),
            ((1.2, -0.4, 0.2), ValueError),
            ("abc", TypeError),
            (None, TypeError),
        ),
    ),
    K(suite.Int, S.chronological_split, "seq_len", 100, minimum=0),
    suite.Array(
        "StandardScaler.fit.series", "series", lambda v: S.StandardScaler().fit(v), (5, 2), (2,)
    ),
    suite.Array(
        "StandardScaler.transform.series", "series", lambda v: SCALER.transform(v), (5, 2), (2, 3)
    ),
    suite.Mismatch(
        "StandardScaler.transform.channels", "series", lambda: SCALER.transform(np.ones((4, 3)))
    ),
    K(
        suite.Option,
        S.data.time_features,
        "freq",
        [__import__("datetime").datetime(2020, 1, 1)],
        valid=frozenset("sthdbwm"),
    ),
    suite.Values(
        "time_features.dates",
        "dates",
        lambda v: S.data.time_features(v),
        bad=(("2020", TypeError), ([1.0], TypeError), ([], ValueError), (None, TypeError)),
    ),
    suite.Values(
        "load_csv.path",
        "path",
        lambda v: S.load_csv(v),
        bad=((3, TypeError), (None, TypeError), ("/nonexistent/x.csv", ValueError)),
    ),
    # metrics
    suite.Array("mse.pred", "pred", lambda v: S.mse(v, np.ones(3)), (3,), (1, 2, 3)),
    suite.Array("mae.target", "target", lambda v: S.mae(np.ones(3), v), (3,), (1, 2, 3)),
    suite.Mismatch("mse.shapes", "target", lambda: S.mse(np.ones(3), np.ones(4))),
    K(
        suite.Option,
        S.per_horizon,
        "metric",
        np.ones((2, 3, 1)),
        np.ones((2, 3, 1)),
        valid=frozenset({"mse", "mae"}),
    ),
    # train
    suite.Values(
        "fit.model",
        "model",
        lambda v: S.fit(v, (X, Y)),
        bad=((None, TypeError), ("m", TypeError), (lambda x: x, TypeError)),
    ),
    suite.Values(
        "fit.train",
        "train",
        lambda v: S.fit(LIN, v),
        bad=(
            (X, TypeError),
            ((X,), TypeError),
            ((X, np.ones((4, H, 2))), ValueError),
            ((X[0], Y), ValueError),
            ((X * np.nan, Y), ValueError),
        ),
    ),
    suite.Mismatch("fit.val_shape", "val", lambda: S.fit(LIN, (X, Y), (X[:, :, :1], Y))),
    K(suite.Int, S.fit, "epochs", LIN, (X, Y), minimum=1),
    K(suite.Number, S.fit, "lr", LIN, (X, Y)),
    K(suite.OutOfRange, S.fit, "lr", LIN, (X, Y), values=negative),
    K(suite.Int, S.fit, "batch_size", LIN, (X, Y), minimum=1),
    K(
        suite.Option,
        S.fit,
        "schedule",
        LIN,
        (X, Y),
        valid=frozenset({"cosine", "constant", "halving"}),
    ),
    K(suite.Int, S.fit, "patience", LIN, (X, Y), minimum=1, none_ok=True),
    K(suite.Number, S.fit, "time_limit", LIN, (X, Y), none_ok=True),
    K(suite.Flag, S.fit, "verbose", LIN, (X, Y)),
    suite.Values(
        "fit.generator", "generator", lambda v: S.fit(LIN, (X, Y), generator=v), bad=BAD_GEN
    ),
    suite.Array("predict.X", "X", lambda v: S.predict(LIN, v), (2, L, 3), (3,)),
    K(suite.Int, S.predict, "batch_size", LIN, X, minimum=1),
    suite.Mismatch("predict.x_mark", "x_mark", lambda: S.predict(MODEL, X, np.ones((2, L, 1)))),
    # forecast
    suite.Array(
        "forecast.series", "series", lambda v: S.forecast(v, 2, seq_len=4, epochs=1), (30, 2), (2,)
    ),
    suite.Int(
        "forecast.pred_len",
        "pred_len",
        lambda v: S.forecast(SERIES, v, seq_len=4, epochs=1),
        minimum=1,
    ),
    K(suite.Int, S.forecast, "seq_len", SERIES, 2, kwargs={"epochs": 1}, minimum=1),
    K(suite.Int, S.forecast, "epochs", SERIES, 2, kwargs={"seq_len": 4}, minimum=1),
    K(suite.Number, S.forecast, "val_fraction", SERIES, 2, kwargs={"seq_len": 4, "epochs": 1}),
    K(
        suite.OutOfRange,
        S.forecast,
        "val_fraction",
        SERIES,
        2,
        kwargs={"seq_len": 4, "epochs": 1},
        values=st.floats(0.51, 1e6),
    ),
    suite.Values(
        "forecast.model",
        "model",
        lambda v: S.forecast(SERIES, 2, seq_len=4, model=v, epochs=1),
        bad=(("softs", TypeError), (3, TypeError)),
    ),
    suite.Mismatch("forecast.too_short", "series", lambda: S.forecast(SERIES, 10, seq_len=12)),
    suite.Mismatch(
        "forecast.model_shape",
        "model",
        lambda: S.forecast(SERIES, 2, seq_len=4, model=S.ChannelLinear(4, 3), epochs=1),
    ),
    # synthetic
    suite.Int("make_series.T", "T", lambda v: S.make_series(v, 2), minimum=2),
    suite.Int("make_series.C", "C", lambda v: S.make_series(10, v), minimum=1),
    K(suite.Int, S.make_series, "n_drivers", 10, 2, minimum=1),
    K(suite.Int, S.make_series, "max_lag", 10, 2, minimum=0),
    K(suite.Number, S.make_series, "noise", 10, 2),
    K(suite.OutOfRange, S.make_series, "noise", 10, 2, values=negative),
    K(suite.Number, S.make_series, "drift", 10, 2),
    K(suite.Number, S.make_series, "corrupt_std", 10, 2),
    K(suite.Rng, S.make_series, "rng", 10, 2),
    suite.Values(
        "make_series.corrupt",
        "corrupt",
        lambda v: S.make_series(10, 2, corrupt=v),
        bad=(
            ([2], ValueError),
            ([-1], ValueError),
            ([0, 0], ValueError),
            ([0.5], TypeError),
            (["a"], TypeError),
        ),
    ),
]

globals().update(suite.bad_input_suite(CASES))
