"""neighborhood: the reference and tiled paths against a brute-force NATTEN-mask oracle."""

import random

import pytest
import torch

from papershelf_kernels._dispatch import has_triton, interpreting
from papershelf_kernels.neighborhood import na_forward, neighbor_indices, normalize_args
from papershelf_kernels.neighborhood.testing import assert_close, oracle_case


@pytest.mark.parametrize("seed", range(12))
def test_reference_and_tiled_match_oracle(seed):
    rng = random.Random(100 + seed)
    n = 1 + seed % 3
    q, k, v, problem, want, want_lse = oracle_case(rng, n, torch.Generator().manual_seed(seed))
    shape, ks, st, di, ca = problem
    for backend in ("reference", "tiled"):
        out, lse = na_forward(q, k, v, ks, st, di, ca, backend=backend)
        assert_close(out, want, 1e-12, msg=backend)
        assert_close(lse, want_lse, 1e-12, msg=backend)
    tile = tuple(rng.randint(1, 4) for _ in range(n))
    out, _ = na_forward(q, k, v, ks, st, di, ca, backend="tiled", q_tile_shape=tile, need_lse=False)
    assert_close(out, want, 1e-12, msg=f"tiled {tile}")


def test_neighbor_indices_are_the_window():
    idx, valid = neighbor_indices((7,), (3,), (1,), (1,), (False,))
    assert idx[0].tolist() == [0, 1, 2] and idx[6].tolist() == [4, 5, 6] and bool(valid.all())
    idx, valid = neighbor_indices((6,), (3,), (1,), (1,), (True,))
    assert idx[1][valid[1]].tolist() == [0, 1]


def test_normalize_args_errors():
    with pytest.raises(ValueError, match="kernel_size"):
        normalize_args((8,), 1)
    with pytest.raises(ValueError, match="stride"):
        normalize_args((8,), 3, stride=4)
    with pytest.raises(ValueError, match="dilation"):
        normalize_args((8,), 3, dilation=3)
    with pytest.raises(ValueError, match="is_causal"):
        normalize_args((8, 8), 3, is_causal=(True,))


def test_auto_never_picks_the_interpreter_and_explains():
    q = torch.randn(1, 8, 1, 4)
    out, _ = na_forward(q, q, q, 3)  # auto on CPU: tiled
    assert out.shape == q.shape
    with pytest.raises(ValueError, match="unknown backend"):
        na_forward(q, q, q, 3, backend="nope")


def test_interpreter_without_numpy_is_explained(monkeypatch):
    import importlib.util

    import papershelf_kernels.neighborhood as nb

    real = importlib.util.find_spec
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "numpy" else real(name, *a)
    )
    q = torch.randn(1, 8, 1, 4)
    with pytest.raises(NotImplementedError, match="needs numpy"):
        nb.na_forward(q, q, q, 3, backend="triton")


def test_interpreter_refuses_bf16(monkeypatch):
    # the interpreter's bf16 tl.dot returns garbage (~1e9 outputs): explicit error instead
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    q = torch.randn(1, 8, 1, 16, dtype=torch.bfloat16)
    with pytest.raises(NotImplementedError, match="bfloat16 under the Triton interpreter"):
        na_forward(q, q, q, 3, backend="triton")


@pytest.mark.parametrize("backend", ["reference", "tiled", "triton"])
def test_need_lse_false_gives_no_lse_for_every_backend(backend):
    # 0.1: only the tiled backend honoured need_lse=False; reference and triton returned an lse
    if backend == "triton" and not (has_triton() and interpreting()):
        pytest.skip("needs triton and TRITON_INTERPRET=1 (set by the nox session)")
    q = torch.randn(1, 16, 1, 16)
    out, lse = na_forward(q, q, q, 3, backend=backend, need_lse=False)
    assert lse is None and out.shape == q.shape
    assert na_forward(q, q, q, 3, backend=backend).lse.shape == (1, 16, 1)
