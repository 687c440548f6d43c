"""A model file written against NATTEN 0.21's public API (not imported by pytest: no test_ prefix).

tests/test_natten_compat.py reads this source, changes only its import lines from ``natten`` to
``natten_lite`` (what a user does to switch), and runs it. Every call below is spelled as NATTEN
0.21.6 documents it (names, positions, defaults): ``natten/functional.py``, ``natten/modules.py``,
``natten/attn_merge.py``, ``natten/context.py`` and ``natten/__init__.py`` of SHI-Labs/NATTEN.
``run(dtype)`` returns the tensors the test compares with dense masked attention.
"""

import natten
import natten.functional
import torch
from natten import (
    NeighborhoodAttention1D,
    NeighborhoodAttention2D,
    NeighborhoodAttention3D,
    attention,
    merge_attentions,
    na1d,
    na2d,
    na3d,
)
from natten.functional import na2d as functional_na2d

FUSED_BACKENDS = ("cutlass-fna", "hopper-fna", "blackwell-fna")
FMHA_BACKENDS = ("cutlass-fmha", "hopper-fmha", "blackwell-fmha", "flex-fmha")


def configure():
    """The top-level switches a training script flips (NATTEN's context.py)."""
    flags = {"HAS_LIBNATTEN": bool(natten.HAS_LIBNATTEN)}
    natten.use_deterministic_algorithms(True)
    flags["deterministic"] = natten.are_deterministic_algorithms_enabled()
    natten.use_deterministic_algorithms(False)
    natten.use_kv_parallelism_in_fused_na(False)
    flags["kv_parallel_off"] = not natten.is_kv_parallelism_in_fused_na_enabled()
    natten.use_kv_parallelism_in_fused_na(True)
    natten.set_memory_usage_preference("strict")
    flags["strict"] = natten.is_memory_usage_strict()
    natten.set_memory_usage_preference("unrestricted")
    flags["unrestricted"] = natten.is_memory_usage_unrestricted()
    natten.set_memory_usage_preference("default")
    flags["default"] = natten.is_memory_usage_default()
    flags["preference"] = natten.get_memory_usage_preference()
    natten.allow_flex_compile(True, backprop=False)
    natten.allow_flex_compile_backprop(True)
    flags["flex_compile"] = natten.is_flex_compile_allowed()
    flags["flex_compile_backprop"] = natten.is_flex_compile_backprop_allowed()
    natten.disable_flex_compile_backprop()
    natten.disable_flex_compile()
    flags["flex_compile_off"] = not natten.is_flex_compile_allowed()
    return flags


def run(dtype=torch.float64, seed=0):
    g = torch.Generator().manual_seed(seed)

    def t(*shape, grad=True):
        return torch.randn(*shape, generator=g, dtype=dtype).requires_grad_(grad)

    res = {}
    # -- 2-D: every keyword of na2d, each NATTEN fused backend name, training
    q, k, v = t(2, 6, 7, 4, 8), t(2, 6, 7, 2, 8), t(2, 6, 7, 2, 8)
    ak, av = t(2, 3, 2, 8), t(2, 3, 2, 8)
    for backend in FUSED_BACKENDS:
        out, lse = na2d(
            query=q,
            key=k,
            value=v,
            kernel_size=(3, 4),
            stride=(1, 2),
            dilation=(2, 1),
            is_causal=(False, True),
            scale=0.0,  # NATTEN: 0.0 (falsy) means the default head_dim ** -0.5
            additional_keys=ak,
            additional_values=av,
            attention_kwargs={
                "backend": "cutlass-fmha",
                "q_tile_size": 64,
                "kv_tile_size": 64,
                "backward_q_tile_size": 64,
                "backward_kv_tile_size": 64,
                "backward_kv_splits": 1,
                "backward_use_pt_reduction": False,
                "run_persistent_kernel": True,
                "kernel_schedule": None,
                "torch_compile": False,
            },
            backend=backend,
            q_tile_shape=(2, 4),
            kv_tile_shape=(4, 4),
            backward_q_tile_shape=(2, 4),
            backward_kv_tile_shape=(4, 4),
            backward_kv_splits=(1, 2),
            backward_use_pt_reduction=True,
            run_persistent_kernel=False,
            kernel_schedule="coop",
            torch_compile=False,
            return_lse=True,
        )
        (out.sum() + lse.sum()).backward()
        res[f"na2d[{backend}]"] = (out.detach(), lse.detach())
    res["na2d.grads"] = tuple(x.grad.clone() for x in (q, k, v, ak, av))

    # -- 1-D: every argument by position, in NATTEN's order
    q1, k1, v1 = t(1, 12, 2, 8), t(1, 12, 2, 8), t(1, 12, 2, 8)
    out, lse = na1d(
        q1, k1, v1, 5, 2, 2, True, None, None, None, None, "cutlass-fna",
        (4,), (4,), (4,), (4,), (1,), False, True, "pp", False, True,
    )  # fmt: skip
    out.sum().backward()
    res["na1d.positional"] = (out.detach(), lse.detach())
    # NATTEN accepts None for stride/dilation/is_causal (the defaults)
    res["na1d.none_args"] = na1d(q1, k1, v1, 3, None, None, None).detach()

    # -- 3-D with kernel_schedule "non" and the Blackwell name
    q3 = t(1, 4, 5, 4, 1, 8)
    out = na3d(
        q3, q3, q3, (2, 3, 2), stride=(1, 1, 2), dilation=1, is_causal=(True, False, False),
        backend="blackwell-fna", kernel_schedule="non", run_persistent_kernel=True,
    )  # fmt: skip
    out.sum().backward()
    res["na3d"] = out.detach()

    with torch.no_grad():
        res["na2d[default]"] = natten.functional.na2d(
            q, k, v, (3, 4), (1, 2), (2, 1), (False, True)
        )
        # kernel_size equal to the input on every axis: NATTEN's self-attention fast path
        res["na2d.self"] = na2d(
            q, k, v, (6, 7), attention_kwargs={"backend": "flex-fmha"}, backend="cutlass-fna"
        )

    # -- attention(): every backend name and argument, plus varlen (sequence-packed)
    qa, ka, va = t(2, 9, 4, 8), t(2, 11, 2, 8), t(2, 11, 2, 8)
    for backend in FMHA_BACKENDS:
        out, lse = attention(
            qa, ka, va, is_causal=False, scale=0.0, backend=backend, q_tile_size=64,
            kv_tile_size=64, backward_q_tile_size=64, backward_kv_tile_size=64,
            backward_kv_splits=2, backward_use_pt_reduction=True, run_persistent_kernel=False,
            kernel_schedule="coop", torch_compile=False, return_lse=True,
        )  # fmt: skip
        res[f"attention[{backend}]"] = (out.detach(), lse.detach())
    out = attention(qa, ka, va, True, None)  # is_causal and scale by position
    out.sum().backward()
    res["attention.causal"] = out.detach()
    qp, kp, vp = t(1, 10, 2, 8), t(1, 12, 2, 8), t(1, 12, 2, 8)
    seqlens_q = torch.tensor([3, 7], dtype=torch.int32)
    seqlens_kv = torch.tensor([5, 7], dtype=torch.int32)
    res["attention.varlen_seqlens"] = attention(
        qp, kp, vp, seqlens_Q=seqlens_q, seqlens_KV=seqlens_kv, backend="cutlass-fmha"
    ).detach()
    cu_q = torch.tensor([0, 3, 10], dtype=torch.int32)
    cu_kv = torch.tensor([0, 5, 12], dtype=torch.int32)
    out, lse = attention(
        qp, kp, vp, False, None, None, None, cu_q, cu_kv, 7, 7, "blackwell-fmha", return_lse=True
    )
    out.sum().backward()
    res["attention.varlen_cumulative"] = (out.detach(), lse.detach())

    # -- merge_attentions with NATTEN's switches
    o1, l1 = na2d(q, k, v, (3, 4), return_lse=True)
    o2, l2 = attention(q.flatten(1, 2), ak, av, return_lse=True)
    for fix in (True, False):
        merged, merged_lse = merge_attentions(
            [o1.flatten(1, 2), o2],
            [l1.flatten(1, 2), l2],
            torch_compile=False,
            use_autograd_fix=fix,
        )
        res[f"merge[fix={fix}]"] = (merged.detach(), merged_lse.detach())
    merged.sum().backward()
    res["merge.default_flags"] = merge_attentions([o1.flatten(1, 2), o2], [l1.flatten(1, 2), l2])

    # -- the modules, by keyword and by position (qk_scale=0.0 is the default scale, as in NATTEN)
    torch.manual_seed(seed)
    m1 = NeighborhoodAttention1D(16, 2, 3, 1, 2, True, True, None, 0.0).to(dtype)
    m2 = NeighborhoodAttention2D(
        embed_dim=16, num_heads=4, kernel_size=(3, 4), stride=(1, 2), dilation=(2, 1),
        is_causal=(False, True), qkv_bias=False, qk_scale=0.0, proj_drop=0.0,
    ).to(dtype)  # fmt: skip
    m3 = NeighborhoodAttention3D(8, 1, (2, 3, 2), is_causal=(True, False, False)).to(dtype)
    y = m1(t(2, 10, 16, grad=False))
    y2 = m2(t(2, 6, 7, 16, grad=False))
    y3 = m3(t(1, 4, 5, 4, 8, grad=False))
    (y.sum() + y2.sum() + y3.sum()).backward()
    res["modules"] = (m1, m2, m3)
    return res


def run_flex(dtype=torch.float64, seed=0):
    """The Flex backend for inference (what NATTEN runs on CPU), natten.functional spelling."""
    g = torch.Generator().manual_seed(seed)
    q, k, v = (torch.randn(2, 6, 7, h, 8, generator=g, dtype=dtype) for h in (4, 2, 2))
    with torch.no_grad():
        return functional_na2d(
            q.requires_grad_(), k, v, (3, 4), (1, 2), (2, 1), (False, True),
            backend="flex-fna", q_tile_shape=(2, 4), kv_tile_shape=(2, 4), torch_compile=False,
        )  # fmt: skip
