"""Bad input raises clear errors naming the argument."""

import numpy as np
import pytest
from bsr_dp import (
    CorrelatedNoise,
    brute_force_sensitivity,
    bsr_coefs,
    max_se,
    mean_se,
    minsep_sensitivity,
    optimize_banded_toeplitz,
    per_step_error,
    sqrt_toeplitz_coefs,
    workload_momentum,
)


@pytest.mark.parametrize(
    ("call", "exc", "match"),
    [
        (lambda: workload_momentum(0), ValueError, "n"),
        (lambda: workload_momentum(2.5), TypeError, "n"),
        (lambda: workload_momentum(10, momentum=1.0), ValueError, "momentum"),
        (lambda: workload_momentum(10, momentum=-0.1), ValueError, "momentum"),
        (lambda: workload_momentum(10, weight_decay=0.0), ValueError, "weight_decay"),
        (lambda: workload_momentum(10, weight_decay=1.5), ValueError, "weight_decay"),
        (lambda: workload_momentum(10, momentum=float("nan")), ValueError, "momentum"),
        (lambda: bsr_coefs(10, 0), ValueError, "bandwidth"),
        (lambda: bsr_coefs(10, True), TypeError, "bandwidth"),
        (lambda: sqrt_toeplitz_coefs([]), ValueError, "empty"),
        (lambda: sqrt_toeplitz_coefs([-1.0, 1.0]), ValueError, "a"),
        (lambda: sqrt_toeplitz_coefs([[1.0]]), ValueError, "1-D"),
        (lambda: sqrt_toeplitz_coefs(["a"]), TypeError, "a"),
        (lambda: minsep_sensitivity([1.0, np.nan], 10, 2), ValueError, "NaN"),
        (lambda: minsep_sensitivity([1.0], 10, 0), ValueError, "min_sep"),
        (lambda: minsep_sensitivity([1.0], 10, 2, 0), ValueError, "max_participations"),
        (lambda: per_step_error([0.0, 1.0], [1.0, 1.0]), ValueError, "strategy_coefs"),
        (lambda: max_se([1.0], [1.0, np.inf], 1), ValueError, "workload_coefs"),
        (lambda: mean_se([1.0], [], 1), ValueError, "workload_coefs"),
        (lambda: optimize_banded_toeplitz(10, 3, 2, "median"), ValueError, "objective"),
        (
            lambda: optimize_banded_toeplitz(10, 3, 2, workload_coefs=np.ones(9)),
            ValueError,
            "workload_coefs",
        ),
        (lambda: optimize_banded_toeplitz(10, 3, 2, init=[1.0, 0.5]), ValueError, "init"),
        (lambda: brute_force_sensitivity(np.eye(30), 2), ValueError, "C"),
        (lambda: brute_force_sensitivity(np.ones(3), 2), ValueError, "C"),
        (lambda: CorrelatedNoise([1.0], 3, sigma=-1.0), ValueError, "sigma"),
        (lambda: CorrelatedNoise([1.0], "x"), TypeError, "shape"),
        (lambda: CorrelatedNoise([1.0], 3, dtype=np.int64), TypeError, "dtype"),
    ],
)
def test_bad_input(call, exc, match):
    with pytest.raises(exc, match=match):
        call()
