"""Bad input raises a clear error naming the argument (NATTEN's rules)."""

import natten_lite
import pytest
import torch

q2 = torch.randn(1, 8, 8, 2, 4)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"kernel_size": 1}, "kernel_size"),
        ({"kernel_size": (3,)}, "kernel_size"),
        ({"kernel_size": 3.0}, "kernel_size"),
        ({"kernel_size": 3, "stride": 4}, "stride"),
        ({"kernel_size": 3, "stride": 0}, "stride"),
        ({"kernel_size": 3, "dilation": 3}, "dilation"),
        ({"kernel_size": 9}, "kernel_size"),
        ({"kernel_size": 3, "is_causal": 1}, "is_causal"),
        ({"kernel_size": 3, "backend": "cuda"}, "backend"),
        ({"kernel_size": 3, "q_tile_shape": (0, 4)}, "q_tile_shape"),
    ],
)
def test_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        natten_lite.na2d(q2, q2, q2, **kwargs)


def test_bad_tensors():
    with pytest.raises(ValueError, match="rank"):
        natten_lite.na2d(torch.randn(1, 8, 2, 4), q2, q2, 3)
    with pytest.raises(TypeError, match="query"):
        natten_lite.na1d([1, 2], q2, q2, 3)
    with pytest.raises(TypeError, match="float"):
        natten_lite.na1d(torch.ones(1, 8, 2, 4, dtype=torch.int64), q2[:, 0], q2[:, 0], 3)
    with pytest.raises(ValueError, match="layout"):
        natten_lite.na2d(q2, torch.randn(1, 8, 7, 2, 4), q2, 3)
    with pytest.raises(ValueError, match="divide"):
        natten_lite.na2d(torch.randn(1, 8, 8, 3, 4), q2, q2, 3)
    with pytest.raises(ValueError, match="head dims"):
        natten_lite.na2d(q2, torch.randn(1, 8, 8, 2, 5), q2, 3)
    with pytest.raises(ValueError, match="empty"):
        natten_lite.na1d(
            torch.randn(0, 8, 2, 4), torch.randn(0, 8, 2, 4), torch.randn(0, 8, 2, 4), 3
        )
    bad = q2.clone()
    bad[0, 1, 1, 0, 0] = float("nan")
    with pytest.raises(ValueError, match="NaN"):
        natten_lite.na2d(bad, q2, q2, 3)
    with pytest.raises(TypeError, match="dtypes"):
        natten_lite.na2d(q2, q2.double(), q2, 3)


def test_bad_additional_kv():
    ak = torch.randn(1, 3, 2, 4)
    with pytest.raises(ValueError, match="together"):
        natten_lite.na2d(q2, q2, q2, 3, additional_keys=ak)
    with pytest.raises(ValueError, match="additional_keys"):
        natten_lite.na2d(
            q2, q2, q2, 3, additional_keys=ak, additional_values=torch.randn(1, 4, 2, 4)
        )


def test_dense_refuses_large_problems_and_triton_reasons():
    big = torch.randn(1, 200, 200, 1, 4)
    with pytest.raises(NotImplementedError, match="dense"):
        natten_lite.na2d(big, big, big, 3, backend="dense")
    fp64 = q2.double()
    with pytest.raises(NotImplementedError, match="triton"):
        natten_lite.na2d(fp64, fp64, fp64, 3, backend="triton")


def test_merge_and_module_errors():
    o, l = torch.zeros(1, 4, 2, 3), torch.zeros(1, 4, 2)
    with pytest.raises(ValueError, match="two"):
        natten_lite.merge_attentions([o], [l])
    with pytest.raises(ValueError, match="lse_tensors"):
        natten_lite.merge_attentions([o, o], [l, l[:, :2]])
    with pytest.raises(ValueError, match="num_heads"):
        natten_lite.NeighborhoodAttention2D(10, 3, 3)
    with pytest.raises(ValueError, match="stride"):
        natten_lite.NeighborhoodAttention2D(8, 2, 3, stride=4)
    layer = natten_lite.NeighborhoodAttention2D(8, 2, 3)
    with pytest.raises(ValueError, match="rank"):
        layer(torch.randn(1, 8, 8))
    with pytest.raises(ValueError, match="channels"):
        layer(torch.randn(1, 8, 8, 6))


def test_triton_interpreter_bf16_is_refused_not_wrong(monkeypatch):
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    q = torch.randn(1, 8, 1, 16, dtype=torch.bfloat16)
    with pytest.raises(NotImplementedError, match="bfloat16"):
        natten_lite.na1d(q, q, q, 3, backend="triton")
