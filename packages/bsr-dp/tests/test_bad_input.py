"""Bad input gets a TypeError (wrong type) or ValueError (wrong value) naming the argument."""

import numpy as np
import pytest
from bsr_dp import (
    CorrelatedNoise,
    aof,
    brute_force_sensitivity,
    bsr_coefs,
    inverse_toeplitz_coefs,
    matrix_se,
    max_se,
    mean_se,
    minsep_sensitivity,
    optimize_banded_toeplitz,
    per_step_error,
    sqrt_toeplitz_coefs,
    toeplitz_matrix,
    workload_momentum,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from papershelf_harness import strategies as invalid
from papershelf_harness.testing import assert_rejects

FAST = settings(max_examples=15, deadline=None)
A10 = workload_momentum(10, momentum=0.9)
C1D = {  # public functions whose first argument is a 1-D coefficient vector, and its name
    "a": sqrt_toeplitz_coefs,
    "coefs": inverse_toeplitz_coefs,
    "c": lambda c: minsep_sensitivity(c, 10, 2),
    "strategy_coefs": lambda c: per_step_error(c, A10),
}


@FAST
@given(value=invalid.non_numeric(), name=st.sampled_from(sorted(C1D)))
def test_non_numeric_coefs_are_type_errors(value, name):
    assert_rejects(TypeError, name, C1D[name], value)


@FAST
@given(value=invalid.non_finite_arrays(shape=(4,), base=1.0), name=st.sampled_from(sorted(C1D)))
def test_non_finite_coefs_are_value_errors(value, name):
    assert_rejects(ValueError, name, C1D[name], value)


@FAST
@given(value=invalid.wrong_ndim_arrays(ok_ndims=(1,)), name=st.sampled_from(sorted(C1D)))
def test_wrong_ndim_coefs_are_value_errors(value, name):
    assert_rejects(ValueError, name, C1D[name], value)


@pytest.mark.parametrize("name", sorted(C1D))
def test_empty_and_non_invertible_coefs(name):
    assert_rejects(ValueError, name, C1D[name], [])
    if name != "c":  # the strategy itself must be invertible
        assert_rejects(ValueError, name, C1D[name], [0.0, 1.0])


@FAST
@given(value=invalid.non_finite_arrays(shape=(10,), base=1.0))
def test_non_finite_workload(value):
    assert_rejects(ValueError, "workload_coefs", per_step_error, [1.0], value)
    assert_rejects(ValueError, "workload_coefs", max_se, [1.0], value, 2)
    assert_rejects(ValueError, "workload_coefs", mean_se, [1.0], value, 2)
    assert_rejects(
        ValueError, "workload_coefs", optimize_banded_toeplitz, 10, 3, 2, workload_coefs=value
    )


@FAST
@given(value=invalid.non_integers())
def test_integer_arguments_refuse_non_integers(value):
    assert_rejects(TypeError, "n", workload_momentum, value)
    assert_rejects(TypeError, "bandwidth", bsr_coefs, 10, value)
    assert_rejects(TypeError, "min_sep", minsep_sensitivity, [1.0], 10, value)
    assert_rejects(TypeError, "bands", optimize_banded_toeplitz, 10, value, 2)
    assert_rejects(TypeError, "maxiter", aof, 8, 4, maxiter=value)
    if value is not None:  # None means the default (n = len(coefs), k = ceil(n / b))
        assert_rejects(TypeError, "n", toeplitz_matrix, [1.0], value)
        assert_rejects(
            TypeError,
            "max_participations",
            minsep_sensitivity,
            [1.0],
            10,
            2,
            max_participations=value,
        )


@FAST
@given(value=invalid.negative_or_zero_ints())
def test_integer_arguments_refuse_non_positive(value):
    assert_rejects(ValueError, "n", workload_momentum, value)
    assert_rejects(ValueError, "bandwidth", bsr_coefs, 10, value)
    assert_rejects(ValueError, "min_sep", max_se, [1.0], A10, value)
    assert_rejects(
        ValueError, "max_participations", mean_se, [1.0], A10, 2, max_participations=value
    )
    assert_rejects(ValueError, "min_sep", brute_force_sensitivity, np.eye(4), value)
    assert_rejects(ValueError, "min_sep", aof, 8, value)


@FAST
@given(
    momentum=st.one_of(
        st.floats(max_value=-1e-9), st.floats(min_value=1.0), invalid.non_finite_floats()
    ),
    weight_decay=st.one_of(
        st.floats(max_value=0.0), st.floats(min_value=1 + 1e-9), invalid.non_finite_floats()
    ),
)
def test_momentum_and_weight_decay_ranges(momentum, weight_decay):
    assert_rejects(ValueError, "momentum", workload_momentum, 5, momentum=momentum)
    assert_rejects(ValueError, "weight_decay", bsr_coefs, 5, 2, weight_decay=weight_decay)
    assert_rejects(ValueError, "momentum", aof, 8, 4, momentum=momentum)
    assert_rejects(TypeError, "momentum", workload_momentum, 5, momentum="0.9")


def test_options_and_lengths():
    assert_rejects(ValueError, "objective", optimize_banded_toeplitz, 10, 3, 2, objective="median")
    assert_rejects(TypeError, "objective", optimize_banded_toeplitz, 10, 3, 2, objective=1)
    assert_rejects(
        ValueError, "workload_coefs", optimize_banded_toeplitz, 10, 3, 2, workload_coefs=np.ones(9)
    )
    assert_rejects(ValueError, "init", optimize_banded_toeplitz, 10, 3, 2, init=[1.0, 0.5])
    assert_rejects(ValueError, "tol", optimize_banded_toeplitz, 10, 3, 2, tol=-1.0)
    assert_rejects(ValueError, "constraint", aof, 8, 4, constraint="diagonal")
    assert_rejects(ValueError, "min_sep", aof, 10, 4)  # n not a multiple of min_sep
    assert_rejects(ValueError, "n", aof, 2048, 4)
    assert_rejects(ValueError, "tol", aof, 8, 4, tol=-1e-3)
    assert_rejects(ValueError, "workload_coefs", aof, 8, 4, workload_coefs=np.r_[0.0, np.ones(7)])
    assert_rejects(ValueError, "C", brute_force_sensitivity, np.eye(30), 2)
    assert_rejects(ValueError, "C", brute_force_sensitivity, np.ones((3, 4)), 2)
    assert_rejects(ValueError, "C", brute_force_sensitivity, np.ones(3), 2)


@FAST
@given(C=invalid.wrong_ndim_arrays(ok_ndims=(2,)))
def test_matrix_se_shapes(C):
    assert_rejects(ValueError, "C", matrix_se, C, np.eye(2), 1.0)
    assert_rejects(ValueError, "A", matrix_se, np.eye(2), C, 1.0)


@FAST
@given(
    C=invalid.non_finite_arrays(shape=(3, 3), base=1.0),
    s=st.one_of(st.floats(max_value=0.0), invalid.non_finite_floats()),
)
def test_matrix_se_values(C, s):
    assert_rejects(ValueError, "C", matrix_se, C, np.eye(3), 1.0)
    assert_rejects(ValueError, "A", matrix_se, np.eye(3), np.eye(2), 1.0)
    assert_rejects(ValueError, "sensitivity", matrix_se, np.eye(3), np.eye(3), s)
    assert_rejects(TypeError, "sensitivity", matrix_se, np.eye(3), np.eye(3), "1")
    assert_rejects(TypeError, "C", matrix_se, [["a"]], np.eye(1), 1.0)
    assert_rejects(ValueError, "C", matrix_se, np.zeros((3, 3)), np.eye(3), 1.0)  # singular


@FAST
@given(rng=invalid.not_rngs())
def test_noise_rng(rng):
    assert_rejects((TypeError, ValueError), "rng", CorrelatedNoise, [1.0, 0.5], 3, rng=rng)


@FAST
@given(
    sigma=st.one_of(st.floats(max_value=-1e-9), invalid.non_finite_floats()),
    steps=invalid.negative_or_zero_ints(-1),
)
def test_noise_values(sigma, steps):
    assert_rejects(ValueError, "sigma", CorrelatedNoise, [1.0], 3, sigma=sigma)
    assert_rejects(ValueError, "shape", CorrelatedNoise, [1.0], (2, steps))
    assert_rejects(ValueError, "steps", CorrelatedNoise([1.0], 3).sample, steps)


def test_noise_types():
    assert_rejects(TypeError, "shape", CorrelatedNoise, [1.0], "x")
    assert_rejects(TypeError, "shape", CorrelatedNoise, [1.0], (2, 1.5))
    assert_rejects(TypeError, "dtype", CorrelatedNoise, [1.0], 3, dtype=np.int64)
    assert_rejects(TypeError, "dtype", CorrelatedNoise, [1.0], 3, dtype="not-a-dtype")
    assert_rejects(TypeError, "sigma", CorrelatedNoise, [1.0], 3, sigma=None)
    assert_rejects(ValueError, "coefs", CorrelatedNoise, [-1.0], 3)


def test_options_are_keyword_only():
    with pytest.raises(TypeError):
        workload_momentum(10, 0.9)  # momentum is keyword-only since 0.2
    with pytest.raises(TypeError):
        optimize_banded_toeplitz(10, 3, 2, "mean")
    with pytest.raises(TypeError):
        CorrelatedNoise([1.0], 3, 1.0)
