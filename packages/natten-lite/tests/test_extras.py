"""Modules, helpers, the tile simulator (brief check 5) and memory (check 6)."""

import subprocess
import sys

import natten_lite
import pytest
import torch
from natten_lite import masks
from natten_lite.sim import tile_work

from papershelf_kernels.neighborhood.testing import assert_close


def test_module_matches_functional_composition():
    torch.manual_seed(0)
    layer = natten_lite.NeighborhoodAttention2D(
        16, 4, (3, 5), dilation=(2, 1), is_causal=(False, True)
    )
    x = torch.randn(2, 7, 9, 16, dtype=torch.float64)
    layer = layer.double()
    q, k, v = layer.qkv(x).reshape(2, 7, 9, 3, 4, 4).unbind(-3)
    mid = natten_lite.na2d(
        q, k, v, (3, 5), dilation=(2, 1), is_causal=(False, True), backend="reference"
    )
    want = layer.proj(mid.reshape(2, 7, 9, 16))
    assert_close(layer(x), want, 1e-12)
    y = layer(x)
    y.sum().backward()
    assert layer.qkv.weight.grad is not None
    assert natten_lite.functional.na2d is natten_lite.na2d


def test_window_bounds_pure_python():
    b = masks.window_bounds(
        (10, 6), (3, 4), stride=(1, 2), dilation=(2, 1), is_causal=(True, False)
    )
    assert list(b[0][5]) == [1, 3, 5]  # causal, group 1: keys 1, 3, 5
    assert list(b[0][0]) == [0]
    assert [list(r) for r in b[1][:2]] == [[0, 1, 2, 3], [0, 1, 2, 3]]
    with pytest.raises(ValueError, match="kernel_size"):
        masks.window_bounds((4,), 5)


@pytest.mark.parametrize(
    ("shape", "kernel", "stride", "tile", "flatten", "bound"),
    [
        ((256, 256), 80, 16, (16, 8), False, 10.24),  # FLUX-like, GNA: 10.2x
        ((30, 48, 80), (18, 24, 24), (16, 8, 8), (2, 8, 8), False, 11.11),  # Hunyuan-like: 11.1x
        ((32768,), 2048, 256, (128,), False, 16.0),  # 1-D 32K: 16x
        ((256, 256), 80, 1, (16, 8), False, 7.51),  # s=1: multi-dim tiles
        ((256, 256), 80, 1, 128, True, 3.20),  # s=1: flattened 128-token blocks
    ],
)
def test_tile_simulator_speed_of_light(shape, kernel, stride, tile, flatten, bound):
    r = tile_work(shape, kernel, stride=stride, q_tile_shape=tile, flatten=flatten)
    assert round(r.speedup_bound, 2) == bound
    assert r.visited_work >= r.min_work


def test_tile_simulator_against_brute_force():
    # count touched (q tile, kv tile) pairs from the dense mask directly
    shape, k, s, d = (10, 7), (3, 4), (2, 1), (2, 1)
    tq = tk = (2, 3)
    m = masks.dense_mask(shape, k, stride=s, dilation=d).view(*shape, *shape)
    pairs = set()
    for qi in range(10):
        for qj in range(7):
            for ki in range(10):
                for kj in range(7):
                    if m[qi, qj, ki, kj]:
                        # tiles live in dilation-group coordinates (dilation 2 on axis 0)
                        qt = (qi % 2, (qi // 2) // 2, qj // 3)
                        kt = (ki % 2, (ki // 2) // 2, kj // 3)
                        pairs.add((qt, kt))
    r = tile_work(shape, k, stride=s, dilation=d, q_tile_shape=tq, kv_tile_shape=tk)
    assert r.visited_pairs >= len(pairs)
    assert r.min_work == int(m.sum())


@pytest.mark.slow  # a subprocess importing torch; reproduce.py measures this claim too
def test_reference_memory_is_linear_in_tokens():
    code = """
import resource, torch
from papershelf_kernels.neighborhood import na_reference
torch.set_num_threads(1)
q = torch.randn(1, 128, 128, 2, 8)
with torch.no_grad():
    na_reference(q[:, :8], q[:, :8], q[:, :8], (7, 7), (1, 1), (1, 1), (False, False))
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    out, lse = na_reference(q, q, q, (7, 7), (1, 1), (1, 1), (False, False))
print((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base) / 1024)
"""
    mb = float(
        subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True
        ).stdout.split()[-1]
    )
    assert mb < 200, (
        f"reference used {mb:.0f} MB extra on 128x128, k=7 (dense bool mask alone: 256 MB)"
    )
