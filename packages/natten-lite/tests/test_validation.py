"""NATTEN's argument rules and the backends' refusals, case by case (hypothesis: test_bad_input.py)."""

import natten_lite
import pytest
import torch

from papershelf_harness.testing import assert_rejects

q2 = torch.randn(1, 8, 8, 2, 4)


@pytest.mark.parametrize(
    ("kwargs", "exc", "name"),
    [
        ({"kernel_size": 1}, ValueError, "kernel_size"),
        ({"kernel_size": (3,)}, ValueError, "kernel_size"),
        ({"kernel_size": 3.0}, TypeError, "kernel_size"),
        ({"kernel_size": (3, 2.0)}, TypeError, "kernel_size[1]"),
        ({"kernel_size": 3, "stride": 4}, ValueError, "stride"),
        ({"kernel_size": 3, "stride": 0}, ValueError, "stride"),
        ({"kernel_size": 3, "dilation": 3}, ValueError, "dilation"),
        ({"kernel_size": 9}, ValueError, "kernel_size"),
        ({"kernel_size": 3, "is_causal": 1}, TypeError, "is_causal"),
        ({"kernel_size": 3, "is_causal": (True,)}, ValueError, "is_causal"),
        ({"kernel_size": 3, "backend": "cuda"}, ValueError, "backend"),
        ({"kernel_size": 3, "q_tile_shape": (0, 4)}, ValueError, "q_tile_shape[0]"),
        ({"kernel_size": 3, "kv_tile_shape": (4,)}, ValueError, "kv_tile_shape"),
        ({"kernel_size": 3, "backward_q_tile_shape": 8}, TypeError, "backward_q_tile_shape"),
        (
            {"kernel_size": 3, "backward_use_pt_reduction": None},
            TypeError,
            "backward_use_pt_reduction",
        ),
        ({"kernel_size": 3, "run_persistent_kernel": 1}, TypeError, "run_persistent_kernel"),
        ({"kernel_size": 3, "torch_compile": "yes"}, TypeError, "torch_compile"),
        ({"kernel_size": 3, "return_lse": 1}, TypeError, "return_lse"),
        ({"kernel_size": 3, "scale": "0.5"}, TypeError, "scale"),
        ({"kernel_size": 3, "scale": float("nan")}, ValueError, "scale"),
        (
            {"kernel_size": 3, "attention_kwargs": [("backend", None)]},
            TypeError,
            "attention_kwargs",
        ),
        (
            {"kernel_size": 3, "attention_kwargs": {"q_tile_size": 0}},
            ValueError,
            "attention_kwargs",
        ),
    ],
)
def test_bad_arguments(kwargs, exc, name):
    assert_rejects(exc, name, natten_lite.na2d, q2, q2, q2, **kwargs)


def test_bad_tensors():
    assert_rejects(ValueError, "query", natten_lite.na2d, torch.randn(1, 8, 2, 4), q2, q2, 3)
    assert_rejects(TypeError, "query", natten_lite.na1d, [1, 2], q2, q2, 3)
    ints = torch.ones(1, 8, 2, 4, dtype=torch.int64)
    assert_rejects(TypeError, "query", natten_lite.na1d, ints, q2[:, 0], q2[:, 0], 3)
    assert_rejects(ValueError, "key", natten_lite.na2d, q2, torch.randn(1, 8, 7, 2, 4), q2, 3)
    assert_rejects(ValueError, "key", natten_lite.na2d, torch.randn(1, 8, 8, 3, 4), q2, q2, 3)
    assert_rejects(ValueError, "key", natten_lite.na2d, q2, torch.randn(1, 8, 8, 2, 5), q2, 3)
    assert_rejects(ValueError, "value", natten_lite.na2d, q2, q2, torch.randn(1, 8, 8, 1, 4), 3)
    empty = torch.randn(0, 8, 2, 4)
    assert_rejects(ValueError, "query", natten_lite.na1d, empty, empty, empty, 3)
    assert_rejects(TypeError, "key", natten_lite.na2d, q2, q2.double(), q2, 3)


def test_bad_additional_kv():
    ak = torch.randn(1, 3, 2, 4)
    assert_rejects(ValueError, "additional_values", natten_lite.na2d, q2, q2, q2, 3, additional_keys=ak)  # fmt: skip
    assert_rejects(
        ValueError, "additional_values", natten_lite.na2d, q2, q2, q2, 3,
        additional_keys=ak, additional_values=torch.randn(1, 4, 2, 4),
    )  # fmt: skip
    assert_rejects(
        ValueError, "additional_keys", natten_lite.na2d, q2, q2, q2, 3,
        additional_keys=torch.randn(1, 3, 1, 4), additional_values=ak,
    )  # fmt: skip
    assert_rejects(
        TypeError, "additional_keys", natten_lite.na2d, q2, q2, q2, 3,
        additional_keys=ak.double(), additional_values=ak,
    )  # fmt: skip


def test_dense_refuses_large_problems_and_triton_reasons():
    big = torch.randn(1, 200, 200, 1, 4)
    with pytest.raises(NotImplementedError, match="dense"):
        natten_lite.na2d(big, big, big, 3, backend="dense")
    fp64 = q2.double()
    with pytest.raises(NotImplementedError, match="triton"):
        natten_lite.na2d(fp64, fp64, fp64, 3, backend="triton")


def test_merge_and_module_errors():
    o, l = torch.zeros(1, 4, 2, 3), torch.zeros(1, 4, 2)
    assert_rejects(ValueError, "outputs", natten_lite.merge_attentions, [o], [l])
    assert_rejects(
        ValueError, "lse_tensors[1]", natten_lite.merge_attentions, [o, o], [l, l[:, :2]]
    )
    assert_rejects(ValueError, "lse_tensors", natten_lite.merge_attentions, [o, o], [l])
    assert_rejects(TypeError, "use_autograd_fix", natten_lite.merge_attentions, [o, o], [l, l], True, None)  # fmt: skip
    assert_rejects(ValueError, "num_heads", natten_lite.NeighborhoodAttention2D, 10, 3, 3)
    assert_rejects(ValueError, "stride", natten_lite.NeighborhoodAttention2D, 8, 2, 3, stride=4)
    layer = natten_lite.NeighborhoodAttention2D(8, 2, 3)
    assert_rejects(ValueError, "x", layer, torch.randn(1, 8, 8))
    assert_rejects(ValueError, "x", layer, torch.randn(1, 8, 8, 6))
    assert_rejects(ValueError, "kernel_size", layer, torch.randn(1, 2, 8, 8))  # k > input


def test_varlen_errors():
    q = torch.randn(1, 10, 2, 4)
    lens = torch.tensor([3, 7], dtype=torch.int32)
    attn = natten_lite.attention
    assert_rejects(ValueError, "seqlens_KV", attn, q, q, q, seqlens_Q=lens)
    assert_rejects(TypeError, "seqlens_Q", attn, q, q, q, seqlens_Q=lens.float(), seqlens_KV=lens)
    assert_rejects(ValueError, "seqlens_Q", attn, q, q, q, seqlens_Q=lens + 1, seqlens_KV=lens)
    q2b = torch.randn(2, 10, 2, 4)
    assert_rejects(ValueError, "query", attn, q2b, q2b, q2b, seqlens_Q=lens, seqlens_KV=lens)
    cu = torch.tensor([0, 3, 10], dtype=torch.int32)
    assert_rejects(ValueError, "max_seqlen_Q", attn, q, q, q, False, None, None, None, cu, cu, 5, 7)
    assert_rejects(ValueError, "cumulative_seqlen_Q", attn, q, q, q, False, None, None, None, cu + 1, cu, 7, 7)  # fmt: skip
    assert_rejects(ValueError, "cumulative_seqlen_Q", attn, q, q, q, cumulative_seqlen_KV=cu)


def test_triton_interpreter_bf16_is_refused_not_wrong(monkeypatch):
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    q = torch.randn(1, 8, 1, 16, dtype=torch.bfloat16)
    with pytest.raises(NotImplementedError, match="bfloat16"):
        natten_lite.na1d(q, q, q, 3, backend="triton")
