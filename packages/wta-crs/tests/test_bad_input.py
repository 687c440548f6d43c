"""Bad input: a TypeError or ValueError naming the argument, one suite case per argument."""

import numpy as np
import pytest
import torch
from hypothesis import strategies as st
from torch import nn
from wta_crs import (
    GradNormCache,
    WTALinear,
    choose_num_deterministic,
    convert_linear_layers,
    crs_matmul_grad,
    crs_variance,
    saved_activation_bytes,
    select_rows,
    topk_matmul_grad,
    wta_crs_matmul_grad,
    wta_crs_variance,
)

from papershelf_harness import suite
from papershelf_harness.testing import assert_rejects

X = np.random.default_rng(0).standard_normal((6, 3))
G = np.random.default_rng(1).standard_normal((6, 2))
ESTIMATORS = [
    crs_matmul_grad,
    wta_crs_matmul_grad,
    topk_matmul_grad,
    crs_variance,
    wta_crs_variance,
]

# "adaptive" or a number: other strings are ValueErrors, other types TypeErrors
BAD_C = (("fixed", ValueError), ("", ValueError), (None, TypeError), ([1], TypeError))
CASES = []
for fn in ESTIMATORS:
    name = fn.__name__
    CASES += [
        suite.Array(f"{name}.X", "X", lambda v, f=fn: f(v, G, 2), (6, 3), ndims=(2,)),
        suite.Array(f"{name}.G", "G", lambda v, f=fn: f(X, v, 2), (6, 2), ndims=(2,)),
        suite.Int(f"{name}.k", "k", lambda v, f=fn: f(X, G, v), minimum=1),
        suite.Mismatch(f"{name}.rows", "G", lambda f=fn: f(X, G[:5], 2)),
    ]
for fn in (crs_matmul_grad, wta_crs_matmul_grad, crs_variance, wta_crs_variance):
    CASES.append(
        suite.Array(
            f"{fn.__name__}.p", "p", lambda v, f=fn: f(X, G, 2, p=v), (6,), ndims=(1,), none_ok=True
        )
    )
    CASES.append(
        suite.Mismatch(f"{fn.__name__}.p_length", "p", lambda f=fn: f(X, G, 2, p=np.ones(5)))
    )
    CASES.append(
        suite.Mismatch(f"{fn.__name__}.p_negative", "p", lambda f=fn: f(X, G, 2, p=-np.ones(6)))
    )
for fn in (crs_matmul_grad, wta_crs_matmul_grad):
    CASES.append(suite.keyword(suite.Rng, fn, "rng", X, G, 2))
for fn in (wta_crs_matmul_grad, wta_crs_variance):
    CASES.append(suite.keyword(suite.Values, fn, "num_deterministic", X, G, 3, bad=BAD_C))
    CASES.append(
        suite.keyword(
            suite.OutOfRange,
            fn,
            "num_deterministic",
            X,
            G,
            3,
            id=f"{fn.__name__}.c_range",
            values=st.sampled_from([-1, 3, 4, 100]),
        )
    )
CASES += [
    suite.Array(
        "choose_num_deterministic.p",
        "p",
        lambda v: choose_num_deterministic(v, 2),
        (6,),
        ndims=(1,),
    ),
    suite.Int(
        "choose_num_deterministic.k",
        "k",
        lambda v: choose_num_deterministic(np.ones(4), v),
        minimum=1,
    ),
    suite.Mismatch(
        "choose_num_deterministic.zero_sum", "p", lambda: choose_num_deterministic(np.zeros(4), 2)
    ),
    suite.Mismatch("topk_matmul_grad.k_above_n", "k", lambda: topk_matmul_grad(X, G, 7)),
    suite.Mismatch("wta_crs_matmul_grad.k_above_n", "k", lambda: wta_crs_matmul_grad(X, G, 7)),
    # torch API
    suite.keyword(suite.Number, WTALinear, "ratio", 3, 2),
    suite.keyword(
        suite.OutOfRange,
        WTALinear,
        "ratio",
        3,
        2,
        id="WTALinear.ratio_range",
        values=st.sampled_from([0.0, -0.5, 1.5, 2.0]),
    ),
    suite.keyword(suite.Int, WTALinear, "min_k", 3, 2, minimum=1),
    suite.Int("WTALinear.in_features", "in_features", lambda v: WTALinear(v, 2), minimum=1),
    suite.Int("WTALinear.out_features", "out_features", lambda v: WTALinear(2, v), minimum=1),
    suite.Flag("WTALinear.bias", "bias", lambda v: WTALinear(2, 2, bias=v)),
    suite.keyword(suite.Values, WTALinear, "num_deterministic", 3, 2, bad=BAD_C),
    suite.keyword(suite.Number, convert_linear_layers, "ratio", nn.Linear(2, 2)),
    suite.keyword(
        suite.OutOfRange,
        convert_linear_layers,
        "ratio",
        nn.Linear(2, 2),
        id="convert_linear_layers.ratio_range",
        values=st.sampled_from([0.0, 1.01, -1.0]),
    ),
]

globals().update(suite.bad_input_suite(CASES))


@pytest.mark.parametrize("bad", [1, "x", None, object()])
def test_generator_must_be_a_torch_generator(bad):
    if bad is None:
        WTALinear(2, 2, generator=bad)
        return
    assert_rejects(TypeError, "generator", lambda v: WTALinear(2, 2, generator=v), bad)


@pytest.mark.parametrize("bad", [np.nan, 1.0, -0.1])
def test_num_deterministic_fraction_range(bad):
    assert_rejects(
        ValueError, "num_deterministic", lambda v: WTALinear(2, 2, num_deterministic=v), bad
    )


def test_num_deterministic_int_type():
    assert_rejects(
        TypeError,
        "num_deterministic",
        lambda v: wta_crs_matmul_grad(X, G, 3, num_deterministic=v),
        1.5,
    )


def test_model_and_regexes():
    assert_rejects(TypeError, "model", lambda v: convert_linear_layers(v), "not a model")
    assert_rejects(
        TypeError, "include", lambda v: convert_linear_layers(nn.Linear(2, 2), include=v), 3
    )
    assert_rejects(
        ValueError, "exclude", lambda v: convert_linear_layers(nn.Linear(2, 2), exclude=v), "("
    )
    assert_rejects(TypeError, "model", lambda v: saved_activation_bytes(v, torch.ones(2)), 3)
    assert_rejects(TypeError, "batch", lambda v: saved_activation_bytes(nn.Linear(2, 2), v), 3)


def test_from_linear_and_cache_arguments():
    assert_rejects(TypeError, "linear", lambda v: WTALinear.from_linear(v), nn.ReLU())
    assert_rejects(
        TypeError, "grad_cache", lambda v: WTALinear.from_linear(nn.Linear(2, 2), grad_cache=v), {}
    )
    assert_rejects(TypeError, "dtype", lambda v: GradNormCache(dtype=v), torch.int64)
    cache = GradNormCache()

    def enter(v):
        with cache.examples(v):
            pass

    assert_rejects(ValueError, "ids", enter, [1, 1])
    assert_rejects(TypeError, "ids", enter, [0.5, 1.5])
    assert_rejects(ValueError, "ids", enter, [[1, 2]])


def test_select_rows_arguments():
    w = torch.ones(5)
    assert_rejects(TypeError, "weights", lambda v: select_rows(v, 2), np.ones(5))
    assert_rejects(ValueError, "weights", lambda v: select_rows(v, 2), torch.tensor([1.0, -1.0]))
    assert_rejects(
        ValueError, "weights", lambda v: select_rows(v, 2), torch.tensor([1.0, float("nan")])
    )
    assert_rejects(ValueError, "k", lambda v: select_rows(w, v), 6)
    assert_rejects(ValueError, "k", lambda v: select_rows(w, v), 0)
