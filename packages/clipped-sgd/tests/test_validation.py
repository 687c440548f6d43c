"""Bad input raises a clear error naming the argument."""

import numpy as np
import pytest
from clipped_sgd import (
    ClippedSGD,
    StreamingLinearRegression,
    StreamingLogisticRegression,
    StreamingMean,
    clip_level,
    clip_norm,
    estimate_noise_trace,
    geometric_median_of_means,
    heavy_tailed_noise,
    median_of_means,
    sample_mean,
)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"clip": 0.0}, "clip"),
        ({"clip": -1}, "clip"),
        ({"step": "bogus"}, "step"),
        ({"step": "constant"}, "lr"),
        ({"step": -0.1}, "step"),
        ({"mu": 0.0}, "mu"),
        ({"mu": 2.0, "L": 1.0}, "L must be >= mu"),
        ({"projection": ("ball", -1)}, "projection"),
        ({"projection": "box"}, "projection"),
        ({"x0": np.zeros(3)}, "x0"),
        ({"x0": np.array([np.nan, 0.0])}, "x0"),
    ],
)
def test_clipped_sgd_bad_params(kwargs, match):
    with pytest.raises(ValueError, match=match):
        ClippedSGD(2, **kwargs)


def test_clipped_sgd_bad_dim_and_gradients():
    for dim in (0, -1, 2.5, True):
        with pytest.raises(ValueError, match="dim"):
            ClippedSGD(dim)
    opt = ClippedSGD(2)
    with pytest.raises(ValueError, match="shape"):
        opt.step(np.zeros(3))
    with pytest.raises(ValueError, match="NaN"):
        opt.step(np.array([np.nan, 1.0]))


def test_functional_bad_input():
    with pytest.raises(ValueError, match="clip level"):
        clip_norm(np.ones(2), 0.0)
    with pytest.raises(ValueError, match="delta"):
        clip_level(1.0, 10, delta=1.5)
    with pytest.raises(ValueError, match="horizon"):
        clip_level(1.0, 0)
    with pytest.raises(ValueError, match="noise_trace"):
        clip_level(np.nan, 10)
    with pytest.raises(ValueError, match="G"):
        estimate_noise_trace(np.ones((1, 3)))


@pytest.mark.parametrize("fn", [sample_mean, median_of_means, geometric_median_of_means])
def test_baselines_bad_input(fn):
    with pytest.raises(ValueError, match="X"):
        fn(np.ones(5))
    with pytest.raises(ValueError, match="empty"):
        fn(np.ones((0, 3)))
    with pytest.raises(ValueError, match="NaN"):
        fn(np.array([[1.0, np.nan]]))
    with pytest.raises(TypeError, match="numeric"):
        fn(np.array([["a", "b"]]))


def test_baselines_bad_blocks():
    with pytest.raises(ValueError, match="n_blocks"):
        median_of_means(np.ones((10, 2)), n_blocks=0)
    with pytest.raises(ValueError, match="delta"):
        median_of_means(np.ones((10, 2)), delta=2.0)


@pytest.mark.parametrize(
    "params, match",
    [
        ({"clip": "bogus"}, "clip"),
        ({"clip": -1.0}, "clip"),
        ({"delta": 0.0}, "delta"),
        ({"c": 0}, "c must"),
        ({"batch_size": 0}, "batch_size"),
        ({"horizon": 0}, "horizon"),
    ],
)
def test_estimator_bad_params(params, match):
    X = np.random.default_rng(0).standard_normal((20, 2))
    with pytest.raises(ValueError, match=match):
        StreamingMean(**params).fit(X)


def test_estimator_bad_data():
    with pytest.raises(ValueError, match="NaN"):
        StreamingMean().fit(np.array([[1.0, np.nan], [0.0, 1.0]]))
    with pytest.raises(ValueError, match="2 samples"):
        StreamingMean().fit(np.ones((1, 3)))
    with pytest.raises(ValueError, match="mu"):
        StreamingLinearRegression(mu=-1.0).fit(np.ones((5, 2)), np.ones(5))
    with pytest.raises(ValueError, match="binary"):
        StreamingLogisticRegression().fit(np.ones((6, 2)), [0, 1, 2, 0, 1, 2])
    clf = StreamingLogisticRegression()
    with pytest.raises(ValueError, match="classes"):
        clf.partial_fit(np.ones((3, 2)), [0, 0, 1], classes=[0, 1, 2])
    clf.partial_fit(np.random.default_rng(0).standard_normal((6, 2)), [0, 1, 0, 1, 0, 1])
    with pytest.raises(ValueError, match="labels outside"):
        clf.partial_fit(np.ones((2, 2)), [0, 5])
    m = StreamingMean().fit(np.random.default_rng(0).standard_normal((20, 3)))
    with pytest.raises(ValueError, match="features"):
        m.partial_fit(np.ones((4, 2)))


def test_noise_bad_input():
    with pytest.raises(ValueError, match="tail"):
        heavy_tailed_noise(3, kind="student_t", tail=2.0)
    with pytest.raises(ValueError, match="kind"):
        heavy_tailed_noise(3, kind="cauchy")
