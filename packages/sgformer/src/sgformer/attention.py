"""Simple global attention (SGFormer, Eq. 3): linear in N, no softmax, never forms N x N."""

from __future__ import annotations

import math

import torch
from torch import Tensor, nn

from ._checks import check_bool, check_int, check_option, check_tensor
from ._validation import as_float_tensor

__all__ = [
    "NORMALIZATIONS",
    "SimpleGlobalAttention",
    "dense_reference_attention",
    "simple_global_attention",
    "softmax_attention",
]

NORMALIZATIONS = ("frobenius", "row")
_EPS = 1e-12


def _check_qkv(q, k, v):
    q = as_float_tensor(q, "q", ndim=3)
    k = as_float_tensor(k, "k", ndim=3)
    v = as_float_tensor(v, "v", ndim=3)
    if k.shape != q.shape:
        raise ValueError(f"k must have the shape of q {tuple(q.shape)}, got {tuple(k.shape)}")
    if v.shape[:2] != q.shape[:2]:
        raise ValueError(
            f"v must have shape (N, H, d) = ({q.shape[0]}, {q.shape[1]}, d) like q, "
            f"got {tuple(v.shape)}"
        )
    dtype = torch.promote_types(torch.promote_types(q.dtype, k.dtype), v.dtype)
    return q.to(dtype), k.to(dtype), v.to(dtype)


def _normalize(t: Tensor, mode: str, mask: Tensor | None) -> Tensor:
    """t: [B, N, H, m]; mask: [B, N] bool or None (padded rows are zeroed)."""
    if mask is not None:
        t = t * mask[:, :, None, None].to(t.dtype)
    if mode == "frobenius":
        norm = torch.linalg.vector_norm(t, dim=(1, 2, 3), keepdim=True)
    else:
        norm = torch.linalg.vector_norm(t, dim=-1, keepdim=True)
    return t / norm.clamp_min(_EPS)


def _batched_attention(q: Tensor, k: Tensor, v: Tensor, mode: str, mask: Tensor | None) -> Tensor:
    """q, k: [B, N, H, m], v: [B, N, H, d] -> [B, N, H, d]; each graph b uses only its valid
    nodes and its own node count. Cost O(B N H m d)."""
    B, N = q.shape[:2]
    qt = _normalize(q, mode, mask)
    kt = _normalize(k, mode, mask)
    if mask is None:
        n = torch.full((B,), float(N), dtype=q.dtype, device=q.device)
    else:
        v = v * mask[:, :, None, None].to(v.dtype)
        n = mask.sum(dim=1).to(q.dtype).clamp_min(1.0)
    # divide the small [B, H, m, *] summaries by N rather than the [B, N, H, *] results
    kv = torch.einsum("blhm,blhd->bhmd", kt, v) / n[:, None, None, None]  # [B, H, m, d]
    num = torch.einsum("bnhm,bhmd->bnhd", qt, kv) + v
    ksum = kt.sum(dim=1) / n[:, None, None]  # [B, H, m]
    den = 1.0 + torch.einsum("bnhm,bhm->bnh", qt, ksum)
    out = num / den.unsqueeze(-1)
    if mask is not None:
        out = out * mask[:, :, None, None].to(out.dtype)
    return out


def simple_global_attention(q, k, v, *, normalize: str = "frobenius") -> Tensor:
    """SGFormer's simple global attention, per head h:

        (V + Q~ (K~^T V) / N) / (1 + Q~ (K~^T 1) / N)

    evaluated right to left, so time is O(N H m d) and memory O(N H (m + d)); the N x N matrix
    ``D^{-1}(I + Q~ K~^T / N)`` (rows summing to 1) is never formed.

    Parameters
    ----------
    q, k
        Queries and keys, [N, H, m].
    v
        Values, [N, H, d].
    normalize
        ``"frobenius"`` (the paper's code): Q and K are each divided by the Frobenius norm of the
        whole [N, H, m] tensor. ``"row"``: each q[n, h] and k[n, h] by its own Euclidean norm,
        as torch-geometric >= 2.7's ``SGFormerAttention`` does.

    Returns
    -------
    Tensor [N, H, d].
    """
    check_option(normalize, "normalize", NORMALIZATIONS)
    q, k, v = _check_qkv(q, k, v)
    return _batched_attention(q[None], k[None], v[None], normalize, None)[0]


def dense_reference_attention(q, k, v, *, normalize: str = "frobenius") -> tuple[Tensor, Tensor]:
    """The O(N^2) reference: returns ``(output [N, H, d], A [H, N, N])`` with
    ``A_h = D_h^{-1}(I + Q~_h K~_h^T / N)``. For tests and inspection at small N only."""
    check_option(normalize, "normalize", NORMALIZATIONS)
    q, k, v = _check_qkv(q, k, v)
    N = q.shape[0]
    qt = _normalize(q[None], normalize, None)[0]
    kt = _normalize(k[None], normalize, None)[0]
    raw = (
        torch.eye(N, dtype=q.dtype, device=q.device)[None]
        + torch.einsum("nhm,lhm->hnl", qt, kt) / N
    )
    A = raw / raw.sum(dim=-1, keepdim=True)
    return torch.einsum("hnl,lhd->nhd", A, v), A


def softmax_attention(q, k, v) -> Tensor:
    """Standard quadratic softmax attention (the baseline SGFormer replaces), [N, H, *]."""
    q, k, v = _check_qkv(q, k, v)
    scores = torch.einsum("nhm,lhm->hnl", q, k) / math.sqrt(q.shape[-1])
    return torch.einsum("hnl,lhd->nhd", scores.softmax(dim=-1), v)


class SimpleGlobalAttention(nn.Module):
    """One simple-global-attention layer: linear Q, K, V maps to ``heads`` heads of width
    ``out_dim``, :func:`simple_global_attention`, head outputs averaged (as in the paper's code).

    ``forward(x, mask=None)``: x [N, in_dim] -> [N, out_dim]; or x [B, N, in_dim] with a bool
    mask [B, N] of valid nodes -> [B, N, out_dim], each graph attending only to its own valid
    nodes with its own node count (padded rows come back as zeros).
    """

    def __init__(
        self,
        in_dim: int,
        out_dim: int,
        *,
        heads: int = 1,
        normalize: str = "frobenius",
        bias: bool = True,
    ) -> None:
        super().__init__()
        self.in_dim = check_int(in_dim, "in_dim", minimum=1)
        self.out_dim = check_int(out_dim, "out_dim", minimum=1)
        self.heads = check_int(heads, "heads", minimum=1)
        self.normalize = check_option(normalize, "normalize", NORMALIZATIONS)
        check_bool(bias, "bias")
        inner = self.out_dim * self.heads
        self.Wq = nn.Linear(self.in_dim, inner, bias=bias)
        self.Wk = nn.Linear(self.in_dim, inner, bias=bias)
        self.Wv = nn.Linear(self.in_dim, inner, bias=bias)

    def reset_parameters(self) -> None:
        for lin in (self.Wq, self.Wk, self.Wv):
            lin.reset_parameters()

    def forward(self, x: Tensor, mask: Tensor | None = None) -> Tensor:
        if not isinstance(x, torch.Tensor):
            x = as_float_tensor(x, "x", ndim=(2, 3)).to(self.Wq.weight.dtype)
        x = check_tensor(x, "x", ndim=(2, 3))
        if x.shape[-1] != self.in_dim:
            raise ValueError(f"x must have {self.in_dim} features, got shape {tuple(x.shape)}")
        single = x.ndim == 2
        if single:
            if mask is not None:
                raise ValueError("mask is only for batched x [B, N, in_dim]; x is [N, in_dim]")
            x = x[None]
        elif mask is not None:
            mask = check_tensor(mask, "mask", ndim=2, dtype="bool")
            if tuple(mask.shape) != tuple(x.shape[:2]):
                raise ValueError(
                    f"mask must have shape (B, N) = {tuple(x.shape[:2])}, got {tuple(mask.shape)}"
                )
        B, N, _ = x.shape
        q = self.Wq(x).view(B, N, self.heads, self.out_dim)
        k = self.Wk(x).view(B, N, self.heads, self.out_dim)
        v = self.Wv(x).view(B, N, self.heads, self.out_dim)
        out = _batched_attention(q, k, v, self.normalize, mask).mean(dim=2)
        return out[0] if single else out

    def extra_repr(self) -> str:
        return (
            f"in_dim={self.in_dim}, out_dim={self.out_dim}, heads={self.heads}, "
            f"normalize={self.normalize!r}"
        )
