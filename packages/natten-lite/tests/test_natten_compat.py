"""Issue 10, "really a change of import": a NATTEN 0.21 model file runs on natten-lite unchanged.

``natten021_model.py`` is written against NATTEN 0.21.6's API. The test changes only its import
lines (``natten`` -> ``natten_lite``), runs it, and checks every result against dense masked
attention (fp64), so an argument that is accepted but computed wrongly fails too.
"""

import math
import re
from pathlib import Path

import natten_lite
import pytest
import torch
from natten_lite import masks

from papershelf_kernels.neighborhood.testing import assert_close, masked_attention

MODEL = Path(__file__).with_name("natten021_model.py")
IMPORT = re.compile(r"^(import|from) natten(\.functional)?\b")


def switch_imports(source: str) -> str:
    """What a user does: ``natten`` -> ``natten_lite`` on the import lines, nothing else."""
    out = []
    for line in source.splitlines():
        if line == "import natten":
            line = "import natten_lite as natten"
        elif IMPORT.match(line):
            line = line.replace("natten", "natten_lite", 1)
        out.append(line)
    return "\n".join(out) + "\n"


@pytest.fixture(scope="module")
def model():
    source = MODEL.read_text()
    switched = switch_imports(source)
    changed = [
        (a, b) for a, b in zip(source.splitlines(), switched.splitlines(), strict=True) if a != b
    ]
    assert changed and all(IMPORT.match(a) for a, _ in changed), changed
    namespace = {"__name__": "natten021_model"}
    exec(compile(switched, str(MODEL), "exec"), namespace)
    return namespace


def _na_reference(q, k, v, ks, st, di, ca, ak=None, av=None, scale=None):
    """Dense masked attention over [NA keys (+ additional keys)], fp64, with the LSE."""
    B, *shape, H, D = q.shape
    N, Hkv = math.prod(shape), k.shape[-2]
    mask = masks.dense_mask(shape, ks, stride=st, dilation=di, is_causal=ca)
    qf, kf, vf = q.reshape(B, N, H, D), k.reshape(B, N, Hkv, D), v.reshape(B, N, Hkv, -1)
    if ak is not None:
        mask = torch.cat([mask, torch.ones(N, ak.shape[1], dtype=torch.bool)], dim=1)
        kf, vf = torch.cat([kf, ak], 1), torch.cat([vf, av], 1)
    o, lse = masked_attention(qf, kf, vf, mask, scale=scale)
    return o.reshape(B, *shape, H, -1), lse.reshape(B, *shape, H)


def test_model_file_runs_after_changing_the_import(model):
    flags = model["configure"]()
    assert flags == {
        "HAS_LIBNATTEN": True,
        "deterministic": True,
        "kv_parallel_off": True,
        "strict": True,
        "unrestricted": True,
        "default": True,
        "preference": natten_lite.context.MemoryUsagePreference.Default,
        "flex_compile": True,
        "flex_compile_backprop": True,
        "flex_compile_off": True,
    }
    res = model["run"](torch.float64)
    g = torch.Generator().manual_seed(0)

    def t(*shape):
        return torch.randn(*shape, generator=g, dtype=torch.float64)

    q, k, v, ak, av = t(2, 6, 7, 4, 8), t(2, 6, 7, 2, 8), t(2, 6, 7, 2, 8), t(2, 3, 2, 8), t(2, 3, 2, 8)  # fmt: skip
    args = ((3, 4), (1, 2), (2, 1), (False, True))
    want, want_lse = _na_reference(q, k, v, *args, ak, av)
    for backend in ("cutlass-fna", "hopper-fna", "blackwell-fna"):
        out, lse = res[f"na2d[{backend}]"]
        assert_close(out, want, 1e-12, msg=backend)
        assert_close(lse, want_lse, 1e-12, msg=backend)
    # training through every argument: gradients of the 3 calls equal 3x dense-masked SDPA's
    leaves = [x.clone().requires_grad_(True) for x in (q, k, v, ak, av)]
    o, l = _na_reference(*leaves[:3], *args, *leaves[3:])
    grads = torch.autograd.grad(3 * (o.sum() + l.sum()), leaves)
    for got, exp in zip(res["na2d.grads"], grads):
        assert_close(got, exp, 1e-10)

    q1, k1, v1 = t(1, 12, 2, 8), t(1, 12, 2, 8), t(1, 12, 2, 8)
    out, lse = res["na1d.positional"]  # return_lse=True in NATTEN's 22nd position
    want, want_lse = _na_reference(q1, k1, v1, (5,), (2,), (2,), (True,))
    assert_close(out, want, 1e-12)
    assert_close(lse, want_lse, 1e-12)
    assert_close(res["na1d.none_args"], _na_reference(q1, k1, v1, (3,), (1,), (1,), (False,))[0], 1e-12)  # fmt: skip

    q3 = t(1, 4, 5, 4, 1, 8)
    want3 = _na_reference(q3, q3, q3, (2, 3, 2), (1, 1, 2), (1, 1, 1), (True, False, False))[0]
    assert_close(res["na3d"], want3, 1e-12)

    assert_close(res["na2d[default]"], _na_reference(q, k, v, *args)[0], 1e-12)
    assert_close(res["na2d.self"], masked_attention(q, k, v, None)[0], 1e-12)

    qa, ka, va = t(2, 9, 4, 8), t(2, 11, 2, 8), t(2, 11, 2, 8)
    want, want_lse = masked_attention(qa, ka, va, None)
    for backend in ("cutlass-fmha", "hopper-fmha", "blackwell-fmha", "flex-fmha"):
        out, lse = res[f"attention[{backend}]"]
        assert_close(out, want, 1e-12, msg=backend)
        assert_close(lse, want_lse, 1e-12, msg=backend)
    causal = torch.ones(9, 11, dtype=torch.bool).tril()
    assert_close(res["attention.causal"], masked_attention(qa, ka, va, causal)[0], 1e-12)

    qp, kp, vp = t(1, 10, 2, 8), t(1, 12, 2, 8), t(1, 12, 2, 8)
    segments = [((0, 3), (0, 5)), ((3, 10), (5, 12))]
    want = torch.cat([masked_attention(qp[:, a:b], kp[:, c:d], vp[:, c:d], None)[0] for (a, b), (c, d) in segments], 1)  # fmt: skip
    want_lse = torch.cat([masked_attention(qp[:, a:b], kp[:, c:d], vp[:, c:d], None)[1] for (a, b), (c, d) in segments], 1)  # fmt: skip
    assert_close(res["attention.varlen_seqlens"], want, 1e-12)
    out, lse = res["attention.varlen_cumulative"]
    assert_close(out, want, 1e-12)
    assert_close(lse, want_lse, 1e-12)

    o1 = _na_reference(q, k, v, (3, 4), (1, 1), (1, 1), (False, False), ak, av)
    for fix in (True, False):
        merged, merged_lse = res[f"merge[fix={fix}]"]
        assert_close(merged, o1[0].flatten(1, 2), 1e-12)
        assert_close(merged_lse, o1[1].flatten(1, 2), 1e-12)
    assert_close(res["merge.default_flags"][0], o1[0].flatten(1, 2), 1e-12)

    m1, m2, m3 = res["modules"]
    assert m1.scale == 8**-0.5 and m2.scale == 4**-0.5 and m3.scale == 8**-0.5
    assert m2.qkv.bias is None and m1.qkv.bias is not None
    assert all(p.grad is not None for m in (m1, m2, m3) for p in m.parameters())


@pytest.mark.slow  # importing FlexAttention pulls in torch._dynamo (8-15 s without .pyc files)
def test_model_file_flex_backend(model):
    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(2, 6, 7, h, 8, generator=g, dtype=torch.float64) for h in (4, 2, 2))
    want = _na_reference(q, k, v, (3, 4), (1, 2), (2, 1), (False, True))[0]
    assert_close(model["run_flex"](torch.float64), want, 1e-10)


def test_scale_zero_is_the_default_scale():
    """NATTEN computes ``scale or head_dim ** -0.5``: 0.0 is the default, not a zero scale."""
    g = torch.Generator().manual_seed(4)
    q = torch.randn(1, 6, 6, 2, 8, generator=g, dtype=torch.float64)
    k, v = torch.randn_like(q), torch.randn_like(q)
    for backend in (None, "reference", "tiled", "dense"):
        assert_close(
            natten_lite.na2d(q, k, v, 3, scale=0.0, backend=backend),
            natten_lite.na2d(q, k, v, 3, backend=backend),
            1e-14,
            msg=str(backend),
        )
    ak = torch.randn(1, 4, 2, 8, generator=g, dtype=torch.float64)
    assert_close(
        natten_lite.na2d(q, k, v, 3, 1, 1, False, 0.0, ak, ak),
        natten_lite.na2d(q, k, v, 3, additional_keys=ak, additional_values=ak),
        1e-14,
    )
    qf = q.flatten(1, 2)
    assert_close(natten_lite.attention(qf, qf, qf, scale=0.0), natten_lite.attention(qf, qf, qf), 1e-14)  # fmt: skip
    torch.manual_seed(0)
    layer = natten_lite.NeighborhoodAttention2D(16, 2, 3, qk_scale=0.0).double()
    assert layer.scale == 8**-0.5
    x = torch.randn(1, 6, 6, 16, dtype=torch.float64)
    ref = natten_lite.NeighborhoodAttention2D(16, 2, 3).double()
    ref.load_state_dict(layer.state_dict())
    assert_close(layer(x), ref(x), 1e-14)


def _qkv_add(dtype=torch.float64):
    g = torch.Generator().manual_seed(5)
    q = torch.randn(1, 8, 2, 4, generator=g, dtype=dtype)
    ak = torch.randn(1, 3, 2, 4, generator=g, dtype=dtype)
    return q, q.clone(), q.clone(), ak, ak.clone()


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), float("-inf")])
@pytest.mark.parametrize("name", ["query", "key", "value", "additional_keys", "additional_values"])
def test_non_finite_inputs_are_rejected_by_name(name, bad):
    """NaN/inf in additional_keys/values names them (not key/value); inf is not a NaN row."""
    tensors = dict(
        zip(["query", "key", "value", "additional_keys", "additional_values"], _qkv_add())
    )
    tensors[name][0, 2, 1, 3] = bad
    with pytest.raises(ValueError, match=rf"^{name} must be finite"):
        natten_lite.na1d(kernel_size=3, **tensors)


@pytest.mark.parametrize("bad", [float("nan"), float("inf")])
@pytest.mark.parametrize("name", ["query", "key", "value"])
def test_attention_rejects_non_finite_inputs(name, bad):
    q, *_ = _qkv_add()
    tensors = {"query": q, "key": q.clone(), "value": q.clone()}
    tensors[name][0, 2, 1, 3] = bad
    with pytest.raises(ValueError, match=rf"^{name} must be finite"):
        natten_lite.attention(**tensors)


def test_flex_backend_cannot_train_on_cpu():
    q = torch.randn(1, 6, 6, 2, 16, requires_grad=True)
    for backend in ("flex", "flex-fna"):
        with pytest.raises(NotImplementedError, match="no FlexAttention backward on CPU"):
            natten_lite.na2d(q, q, q, 3, backend=backend)
    # default dispatch never picks flex for training on CPU, whatever NATTEN's flags say
    natten_lite.allow_flex_compile(True, backprop=True)
    try:
        out = natten_lite.na2d(q, q, q, 3, torch_compile=True)
        out.sum().backward()
    finally:
        natten_lite.disable_flex_compile()
    assert q.grad is not None and torch.isfinite(q.grad).all()


@pytest.mark.parametrize(
    ("natten_name", "ours"),
    [
        ("cutlass-fna", "tiled"),
        ("hopper-fna", "tiled"),
        ("blackwell-fna", "tiled"),
        ("flex-fna", "flex"),
    ],
)
def test_natten_backend_names_map_to_ours_on_cpu(natten_name, ours):
    from natten_lite.functional import resolve_backend

    assert resolve_backend(natten_name, torch.device("cpu")) == ours
    assert resolve_backend(natten_name, torch.device("cuda")) == (
        "flex" if ours == "flex" else "triton"
    )


def test_unknown_names_in_natten_arguments_are_refused():
    q = torch.randn(1, 8, 1, 4)
    with pytest.raises(ValueError, match="backend"):
        natten_lite.na1d(q, q, q, 3, backend="cutlass-fmha")  # an FMHA name for NA
    with pytest.raises(ValueError, match="kernel_schedule"):
        natten_lite.na1d(q, q, q, 3, kernel_schedule="persistent")
    with pytest.raises(ValueError, match="attention_kwargs"):
        natten_lite.na1d(q, q, q, 3, attention_kwargs={"backend_name": "x"})
    with pytest.raises(ValueError, match="attention_kwargs"):
        natten_lite.na1d(q, q, q, 3, attention_kwargs={"scale": 1.0})
    with pytest.raises(ValueError, match="backend"):
        natten_lite.attention(q, q, q, backend="cutlass-fna")
    with pytest.raises(ValueError, match="backward_kv_splits"):
        natten_lite.na1d(q, q, q, 3, backward_kv_splits=(0,))
