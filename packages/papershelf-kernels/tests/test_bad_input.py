"""Bad input gets a TypeError (wrong type) or ValueError (wrong value) naming the argument, the
same for every backend (each backend reads one validated inputs object)."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from papershelf_harness import strategies as invalid
from papershelf_harness.testing import assert_rejects
from papershelf_kernels._dispatch import has_triton, interpreting
from papershelf_kernels.attention import attention_colsum, attention_colsum_reference
from papershelf_kernels.neighborhood import (
    NAInputs,
    axis_windows,
    na_forward,
    na_reference,
    na_tiled,
    neighbor_indices,
    normalize_args,
)

TRITON_CPU = has_triton() and interpreting()
TRITON = pytest.param(
    "triton",
    marks=pytest.mark.skipif(
        not TRITON_CPU, reason="needs triton and TRITON_INTERPRET=1 (set by the nox session)"
    ),
)
NA_BACKENDS = ["auto", "tiled", "reference", TRITON]
CS_BACKENDS = ["auto", "torch", "reference", TRITON]

Q = torch.randn(1, 8, 2, 16)  # [B, X, H, D]: 1-D neighborhood problem
SETTINGS = settings(max_examples=15, deadline=None)


# ----------------------------------------------------------------------------- na_forward


@pytest.mark.parametrize("backend", NA_BACKENDS)
@pytest.mark.parametrize(
    ("name", "key", "value"),
    [
        ("key", torch.randn(1, 7, 2, 16), Q),  # token layout
        ("key", torch.randn(2, 8, 2, 16), Q),  # batch
        ("key", torch.randn(1, 8, 2, 8), Q),  # head dim
        ("key", torch.randn(1, 8, 3, 16), torch.randn(1, 8, 3, 16)),  # heads do not divide H
        ("value", Q, torch.randn(1, 8, 1, 16)),  # value heads != key heads
        ("value", Q, torch.randn(1, 6, 2, 16)),  # value layout
        ("key", torch.randn(1, 8, 16), Q),  # rank
    ],
    ids=["layout", "batch", "head-dim", "heads", "value-heads", "value-layout", "rank"],
)
def test_mismatched_key_or_value_shapes_are_value_errors_for_every_backend(
    backend, name, key, value
):
    # 0.1: tiled raised a bare torch reshape RuntimeError, triton read out of bounds and returned
    # a result; only the reference checked the layout
    assert_rejects(ValueError, name, na_forward, Q, key, value, 3, backend=backend)


@pytest.mark.parametrize("backend", NA_BACKENDS)
@pytest.mark.parametrize("which", ["query", "key", "value"])
@pytest.mark.parametrize("dtype", [torch.int32, torch.int64, torch.bool, torch.complex64])
def test_integer_bool_and_complex_tensors_are_type_errors(backend, which, dtype):
    # 0.1: integer inputs returned int32 "attention" from the reference/tiled backends
    args = {"query": Q, "key": Q, "value": Q}
    args[which] = torch.ones(Q.shape, dtype=dtype)
    assert_rejects(TypeError, which, na_forward, *args.values(), 3, backend=backend)


@SETTINGS
@given(
    which=st.sampled_from(["query", "key", "value"]),
    pos=st.integers(0, Q.numel() - 1),
    bad=invalid.non_finite_floats(),
    backend=st.sampled_from(["auto", "tiled", "reference", *(["triton"] if TRITON_CPU else [])]),
)
def test_nan_or_inf_is_a_value_error(which, pos, bad, backend):
    # 0.1: NaN/inf went through and came out as NaN attention
    args = {"query": Q, "key": Q.clone(), "value": Q.clone()}
    t = Q.clone()
    t.view(-1)[pos] = bad
    args[which] = t
    assert_rejects(ValueError, which, na_forward, *args.values(), 3, backend=backend)


@SETTINGS
@given(value=invalid.non_numeric(), which=st.sampled_from(["query", "key", "value"]))
def test_non_tensors_are_type_errors(value, which):
    args = {"query": Q, "key": Q, "value": Q}
    args[which] = value
    assert_rejects(TypeError, which, na_forward, *args.values(), 3)


def test_dtype_and_emptiness_mismatches_name_the_argument():
    assert_rejects(TypeError, "key", na_forward, Q, Q.double(), Q, 3)
    assert_rejects(TypeError, "value", na_forward, Q, Q, Q.half(), 3)
    empty = torch.randn(0, 8, 2, 16)
    assert_rejects(ValueError, "query", na_forward, empty, empty, empty, 3)


@SETTINGS
@given(value=invalid.non_integers(), name=st.sampled_from(["kernel_size", "stride", "dilation"]))
def test_wrong_type_axis_parameters_are_type_errors(value, name):
    # 0.1: ValueError for kernel_size=3.0; still a ValueError too (ArgumentTypeError) for 0.1 code
    kwargs = {"kernel_size": 3, name: value}
    if name != "kernel_size" and value is None:
        return  # None means the default for stride and dilation
    e = assert_rejects(TypeError, name, normalize_args, (8,), **kwargs)
    assert isinstance(e, ValueError)
    assert_rejects(TypeError, name, na_forward, Q, Q, Q, **kwargs)


@pytest.mark.parametrize("value", [1, 0, "yes", 1.0, [1]])
def test_is_causal_must_be_bools(value):
    assert_rejects(TypeError, "is_causal", na_forward, Q, Q, Q, 3, is_causal=value)


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"kernel_size": 1}, "kernel_size"),
        ({"kernel_size": 9}, "kernel_size"),  # larger than the 8 tokens
        ({"kernel_size": (3, 3)}, "kernel_size"),  # 2 entries for 1 axis
        ({"kernel_size": 3, "stride": 4}, "stride"),
        ({"kernel_size": 3, "stride": 0}, "stride"),
        ({"kernel_size": 3, "dilation": 3}, "dilation"),
        ({"kernel_size": 3, "dilation": 0}, "dilation"),
        ({"kernel_size": 3, "is_causal": (True, False)}, "is_causal"),
        ({"kernel_size": 3, "scale": 0.0}, "scale"),
        ({"kernel_size": 3, "scale": float("nan")}, "scale"),
        ({"kernel_size": 3, "scale": -1.0}, "scale"),
        ({"kernel_size": 3, "q_tile_shape": (4, 4)}, "q_tile_shape"),
        ({"kernel_size": 3, "q_tile_shape": (0,)}, "q_tile_shape"),
        ({"kernel_size": 3, "kv_tile_size": 0}, "kv_tile_size"),
        ({"kernel_size": 3, "backend": "cutlass"}, "backend"),
    ],
)
def test_out_of_range_options_are_value_errors(kwargs, name):
    assert_rejects(ValueError, name, na_forward, Q, Q, Q, **kwargs)


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"scale": "0.5"}, "scale"),  # 0.1: float("0.5") accepted a string
        ({"q_tile_shape": 4}, "q_tile_shape"),
        ({"q_tile_shape": (4.0,)}, "q_tile_shape"),
        ({"kv_tile_size": 16.0}, "kv_tile_size"),
        ({"need_lse": "no"}, "need_lse"),  # 0.1: a truthy string meant True
        ({"backend": 3}, "backend"),
    ],
)
def test_wrong_type_options_are_type_errors(kwargs, name):
    assert_rejects(TypeError, name, na_forward, Q, Q, Q, 3, **kwargs)


def test_public_helpers_validate_too():
    assert_rejects(ValueError, "key", na_reference, Q, Q[:, :7], Q, (3,), (1,), (1,), (False,))
    assert_rejects(ValueError, "key", na_tiled, Q, Q[:, :7], Q, (3,), (1,), (1,), (False,))
    assert_rejects(ValueError, "chunk_size", na_reference, Q, Q, Q, 3, 1, 1, False, chunk_size=0)
    assert_rejects(TypeError, "query", NAInputs, Q.int(), Q, Q, 3)
    assert_rejects(ValueError, "kernel_size", axis_windows, 4, 5)
    assert_rejects(TypeError, "length", axis_windows, 4.0, 3)
    assert_rejects(ValueError, "shape", neighbor_indices, (), (), (), (), ())
    assert_rejects(
        ValueError, "queries", neighbor_indices, (7,), 3, 1, 1, False, queries=torch.tensor([7])
    )
    assert_rejects(
        TypeError, "queries", neighbor_indices, (7,), 3, 1, 1, False, queries=torch.ones(2)
    )


# ----------------------------------------------------------------------- attention_colsum

q4, kv2 = torch.randn(1, 4, 3, 8), torch.randn(1, 2, 5, 8)


@pytest.mark.parametrize("backend", CS_BACKENDS)
@pytest.mark.parametrize(
    ("name", "q", "k", "v"),
    [
        ("q", q4[0], kv2, kv2),  # rank
        ("k", q4, torch.randn(2, 2, 5, 8), kv2),  # batch
        ("k", q4, torch.randn(1, 2, 5, 4), kv2),  # head dim
        ("k", torch.randn(1, 3, 3, 8), kv2, kv2),  # heads do not divide
        ("v", q4, kv2, torch.randn(1, 2, 4, 8)),  # length
        ("v", q4, kv2, torch.randn(1, 1, 5, 8)),  # heads
        ("k", q4, kv2[:, :, :0], kv2[:, :, :0]),  # empty
    ],
    ids=["rank", "batch", "head-dim", "heads", "v-length", "v-heads", "empty"],
)
def test_colsum_shape_mismatches_are_value_errors(backend, name, q, k, v):
    assert_rejects(ValueError, name, attention_colsum, q, k, v, backend=backend)


@pytest.mark.parametrize("backend", CS_BACKENDS)
@SETTINGS
@given(
    which=st.sampled_from(["q", "k", "v"]), pos=st.integers(0, 39), bad=invalid.non_finite_floats()
)
def test_colsum_nan_or_inf_is_a_value_error(backend, which, pos, bad):
    # 0.1: a NaN/inf query, key or value came out as NaN attention and column sums
    args = {"q": q4.clone(), "k": kv2.clone(), "v": kv2.clone()}
    args[which].view(-1)[pos % args[which].numel()] = bad
    assert_rejects(ValueError, which, attention_colsum, *args.values(), backend=backend)


@pytest.mark.parametrize("which", ["q", "k", "v"])
@pytest.mark.parametrize("dtype", [torch.int32, torch.bool])
def test_colsum_integer_and_bool_tensors_are_type_errors(which, dtype):
    args = {"q": q4, "k": kv2, "v": kv2}
    args[which] = args[which].to(dtype)
    assert_rejects(TypeError, which, attention_colsum, *args.values())
    assert_rejects(TypeError, which, attention_colsum_reference, *args.values())


@SETTINGS
@given(value=invalid.non_numeric(), which=st.sampled_from(["q", "k", "v", "attn_mask"]))
def test_colsum_non_tensors_are_type_errors(value, which):
    if which == "attn_mask":
        if value is None:
            return  # no mask
        assert_rejects(TypeError, which, attention_colsum, q4, kv2, kv2, attn_mask=value)
        return
    args = {"q": q4, "k": kv2, "v": kv2}
    args[which] = value
    assert_rejects(TypeError, which, attention_colsum, *args.values())


@pytest.mark.parametrize(
    ("kwargs", "exc", "name"),
    [
        ({"attn_mask": torch.ones(1, 3, 3, 5, dtype=torch.bool)}, ValueError, "attn_mask"),
        ({"attn_mask": torch.ones(1, 1, 5, dtype=torch.bool)}, ValueError, "attn_mask"),
        ({"attn_mask": torch.ones(1, 1, 1, 5, dtype=torch.int64)}, TypeError, "attn_mask"),
        ({"attn_mask": torch.full((1, 1, 1, 5), float("nan"))}, ValueError, "attn_mask"),
        ({"causal": 1}, TypeError, "causal"),
        ({"scale": -1.0}, ValueError, "scale"),
        ({"scale": float("inf")}, ValueError, "scale"),
        ({"scale": "1"}, TypeError, "scale"),
        ({"backend": "cutlass"}, ValueError, "backend"),
        ({"backend": None}, None, None),  # None = auto
    ],
)
def test_colsum_options(kwargs, exc, name):
    if exc is None:
        attention_colsum(q4, kv2, kv2, **kwargs)
        return
    assert_rejects(exc, name, attention_colsum, q4, kv2, kv2, **kwargs)


def test_colsum_dtype_mismatch_names_the_tensor():
    assert_rejects(TypeError, "k", attention_colsum, q4, kv2.double(), kv2)
    assert_rejects(TypeError, "v", attention_colsum, q4, kv2, kv2.half())


def test_large_finite_values_are_not_mistaken_for_inf():
    # the NaN/inf scan is one sum per tensor; a sum that overflows falls back to the exact scan
    big = torch.full(Q.shape, 3e38)
    NAInputs(big, Q, Q, 3)  # finite: accepted
    half = torch.full((1, 4, 3000, 8), 60000.0, dtype=torch.float16)  # a half sum would overflow
    attention_colsum_reference(half[:, :1, :1], half[:, :1], half[:, :1])
    big.view(-1)[5] = float("inf")
    assert_rejects(ValueError, "query", NAInputs, big, Q, Q, 3)
