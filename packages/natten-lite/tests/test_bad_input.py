"""Bad input of every kind raises TypeError (wrong type) or ValueError (wrong value) naming the
argument: the public API fed hypothesis-drawn wrong types, shapes, dtypes, NaN/inf, empty inputs,
mismatched lengths and out-of-range options."""

import natten_lite
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from natten_lite import masks, sim

from papershelf_harness import strategies as invalid
from papershelf_harness.testing import assert_rejects

FAST = settings(max_examples=15, deadline=None)
NA = {1: natten_lite.na1d, 2: natten_lite.na2d, 3: natten_lite.na3d}
SHAPES = {1: (6,), 2: (5, 4), 3: (3, 4, 3)}
NAMES = ("query", "key", "value", "additional_keys", "additional_values")
VALID_NAMES = {"non", "coop", "pp", "auto", "tiled", "dense", "flex", "triton"}


def _inputs(n: int, dtype=torch.float64) -> dict:
    g = torch.Generator().manual_seed(n)
    q = torch.randn(1, *SHAPES[n], 2, 4, generator=g, dtype=dtype)
    ak = torch.randn(1, 3, 2, 4, generator=g, dtype=dtype)
    return dict(zip(NAMES, (q, q.clone(), q.clone(), ak, ak.clone())))


@FAST
@given(n=st.sampled_from([1, 2, 3]), name=st.sampled_from(NAMES), bad=invalid.non_numeric())
def test_non_tensor_inputs(n, name, bad):
    kwargs = _inputs(n)
    kwargs[name] = bad
    if bad is None and name.startswith("additional"):
        return  # None is the default there (checked in test_validation: both or neither)
    assert_rejects(TypeError, name, NA[n], kernel_size=2, **kwargs)


@FAST
@given(n=st.sampled_from([1, 2, 3]), name=st.sampled_from(NAMES), rank=st.integers(0, 7))
def test_wrong_rank(n, name, rank):
    want = 4 if name.startswith("additional") else n + 3
    if rank == want:
        return
    kwargs = _inputs(n)
    kwargs[name] = torch.ones((2,) * rank, dtype=torch.float64)
    assert_rejects(ValueError, name, NA[n], kernel_size=2, **kwargs)


@FAST
@given(
    name=st.sampled_from(NAMES[:3]),
    dtype=st.sampled_from([torch.int64, torch.int32, torch.bool, torch.complex64, torch.uint8]),
)
def test_wrong_dtype(name, dtype):
    kwargs = _inputs(2)
    kwargs[name] = torch.zeros(kwargs[name].shape, dtype=dtype)
    assert_rejects(TypeError, name, natten_lite.na2d, kernel_size=2, **kwargs)


@FAST
@given(
    n=st.sampled_from([1, 2, 3]),
    name=st.sampled_from(NAMES),
    bad=invalid.non_finite_floats(),
    where=st.integers(0, 10**6),
    backend=st.sampled_from([None, "reference", "tiled", "dense", "cutlass-fna"]),
)
def test_non_finite_inputs(n, name, bad, where, backend):
    kwargs = _inputs(n)
    flat = kwargs[name].view(-1)
    flat[where % flat.numel()] = bad
    assert_rejects(ValueError, name, NA[n], kernel_size=2, backend=backend, **kwargs)


@FAST
@given(
    name=st.sampled_from(NAMES[:3]), bad=invalid.non_finite_floats(), where=st.integers(0, 10**6)
)
def test_non_finite_attention_and_module_inputs(name, bad, where):
    kwargs = {k: v.flatten(1, 2) for k, v in list(_inputs(2).items())[:3]}
    kwargs[name].view(-1)[where % kwargs[name].numel()] = bad
    assert_rejects(ValueError, name, natten_lite.attention, **kwargs)
    x = torch.randn(1, 5, 4, 8)
    x.view(-1)[where % x.numel()] = bad
    layer = natten_lite.NeighborhoodAttention2D(8, 2, 3)
    assert_rejects(ValueError, "x", layer, x)


@FAST
@given(n=st.sampled_from([1, 2, 3]), name=st.sampled_from(NAMES), axis=st.integers(0, 5))
def test_empty_inputs(n, name, axis):
    kwargs = _inputs(n)
    shape = list(kwargs[name].shape)
    shape[axis % len(shape)] = 0
    kwargs[name] = torch.ones(shape, dtype=torch.float64)
    assert_rejects(ValueError, name, NA[n], kernel_size=2, **kwargs)


@FAST
@given(
    n=st.sampled_from([1, 2, 3]),
    name=st.sampled_from(NAMES[1:]),
    axis=st.integers(0, 5),
    delta=st.integers(1, 3),
)
def test_mismatched_shapes(n, name, axis, delta):
    kwargs = _inputs(n)
    shape = list(kwargs[name].shape)
    axis %= len(shape)
    if name.startswith("additional") and axis == 1:
        axis = 0  # M is free, the rest must match
    if name == "value" and axis == len(shape) - 1:
        return  # Dv may differ from D
    if name == "additional_values" and axis == len(shape) - 1:
        return  # ... as long as it matches value's (checked below)
    shape[axis] += delta
    kwargs[name] = torch.ones(shape, dtype=torch.float64)
    assert_rejects(ValueError, name, NA[n], kernel_size=2, **kwargs)


@FAST
@given(n=st.sampled_from([1, 2, 3]), bad=invalid.non_integers())
def test_per_axis_options_of_the_wrong_type(n, bad):
    if bad is None:
        return  # stride/dilation None is NATTEN's default; kernel_size None is covered below
    kw = _inputs(n)
    for name in ("kernel_size", "stride", "dilation"):
        args = {"kernel_size": 2, name: bad}
        assert_rejects(TypeError, name, NA[n], **kw, **args)
        assert_rejects(TypeError, f"{name}[0]", NA[n], **kw, **{**args, name: (bad,) * n})
    assert_rejects(TypeError, "kernel_size", NA[n], **kw, kernel_size=None)
    if not isinstance(bad, bool):
        assert_rejects(TypeError, "is_causal", NA[n], **kw, kernel_size=2, is_causal=bad)


@FAST
@given(n=st.sampled_from([1, 2, 3]), bad=invalid.negative_or_zero_ints(maximum=1))
def test_per_axis_options_out_of_range(n, bad):
    kw = _inputs(n)
    assert_rejects(ValueError, "kernel_size", NA[n], **kw, kernel_size=bad)
    if bad < 1:
        assert_rejects(ValueError, "stride", NA[n], **kw, kernel_size=2, stride=bad)
        assert_rejects(ValueError, "dilation", NA[n], **kw, kernel_size=2, dilation=bad)
    assert_rejects(ValueError, "stride", NA[n], **kw, kernel_size=2, stride=3)  # s > k
    assert_rejects(ValueError, "kernel_size", NA[n], **kw, kernel_size=7)  # k > L
    assert_rejects(ValueError, "dilation", NA[n], **kw, kernel_size=2, dilation=4)  # k*d > L
    assert_rejects(ValueError, "kernel_size", NA[n], **kw, kernel_size=(2,) * (n + 1))


@FAST
@given(
    option=st.sampled_from(
        ["backend", "kernel_schedule", "q_tile_shape", "backward_kv_splits", "attention_kwargs"]
    ),
    bad=st.one_of(st.text(min_size=1, max_size=6), st.integers(-3, 3), st.floats()).filter(
        lambda b: b not in VALID_NAMES
    ),
)
def test_unknown_or_wrong_options(option, bad):
    kw = _inputs(2)
    if option == "attention_kwargs":
        bad = {str(bad): 1}
    exc = (TypeError, ValueError)
    assert_rejects(exc, option, natten_lite.na2d, **kw, kernel_size=2, **{option: bad})


@FAST
@given(bad=st.one_of(invalid.non_numeric(), invalid.non_finite_floats()))
def test_bad_scale(bad):
    kw = _inputs(1)
    if bad is None:
        return  # the default
    exc = ValueError if isinstance(bad, float) else TypeError
    assert_rejects(exc, "scale", natten_lite.na1d, **kw, kernel_size=2, scale=bad)
    qf = kw["query"]
    assert_rejects(exc, "scale", natten_lite.attention, qf, qf, qf, scale=bad)


@FAST
@given(
    embed=invalid.non_integers(),
    drop=invalid.bad_probabilities(),
    heads=invalid.negative_or_zero_ints(),
)
def test_module_arguments(embed, drop, heads):
    layer = natten_lite.NeighborhoodAttention1D
    if embed is not None:
        assert_rejects(TypeError, "embed_dim", layer, embed, 2, 3)
    assert_rejects(ValueError, "num_heads", layer, 8, heads, 3)
    assert_rejects(ValueError, "proj_drop", layer, 8, 2, 3, proj_drop=drop)
    assert_rejects(TypeError, "qkv_bias", layer, 8, 2, 3, qkv_bias="yes")
    assert_rejects(TypeError, "qk_scale", layer, 8, 2, 3, qk_scale="1")


@FAST
@given(
    t=st.integers(1, 3), bad=invalid.non_finite_floats(), which=st.sampled_from(["outputs", "lse"])
)
def test_merge_attentions_bad_inputs(t, bad, which):
    o = [torch.randn(1, 4, 2, 3, dtype=torch.float64) for _ in range(t + 1)]
    lse = [torch.randn(1, 4, 2, dtype=torch.float64) for _ in range(t + 1)]
    if which == "outputs":
        o[t][0, 1, 0, 2] = bad
        assert_rejects(ValueError, f"outputs[{t}]", natten_lite.merge_attentions, o, lse)
    elif bad != float("-inf"):  # -inf is a legitimate LSE (that part attends nothing)
        lse[t][0, 1, 0] = bad
        assert_rejects(ValueError, f"lse_tensors[{t}]", natten_lite.merge_attentions, o, lse)
    assert_rejects(ValueError, "lse_tensors", natten_lite.merge_attentions, o, lse[:-1])
    assert_rejects(TypeError, "outputs", natten_lite.merge_attentions, o[0], lse)


@FAST
@given(bad=invalid.non_numeric(), n=st.integers(1, 3))
def test_masks_and_simulator(bad, n):
    assert_rejects(TypeError, "shape", masks.window_bounds, bad, 2)
    shape = (6,) * n
    assert_rejects(ValueError, "shape", masks.dense_mask, (), 2)
    assert_rejects(ValueError, "kernel_size", masks.window_bounds, shape, 7)
    assert_rejects(ValueError, "i", masks.window_1d, 9, 6, 3)
    assert_rejects(TypeError, "flatten", sim.tile_work, shape, 2, flatten="yes")
    assert_rejects(ValueError, "q_tile_shape", sim.tile_work, shape, 2, q_tile_shape=(2,) * (n + 1))
    assert_rejects(ValueError, "pref", natten_lite.set_memory_usage_preference, "fast")
    assert_rejects(TypeError, "mode", natten_lite.use_deterministic_algorithms, 1)
