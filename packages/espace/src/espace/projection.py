"""Projection matrices from calibration statistics, and the compression arithmetic."""

from __future__ import annotations

import math
from typing import Any

import torch

from ._checks import check_float, check_generator, check_int, check_option
from ._validation import as_float_tensor

__all__ = ["projection_from_stats", "random_projection", "rank_for_compression"]

SORTS = ("eigen", "abs")


def projection_from_stats(C: Any, rank: int, *, sort: str = "eigen") -> torch.Tensor:
    """Orthonormal ``P`` (K, rank): the top ``rank`` eigenvectors of ``(C + Cᵀ)/2``.

    ``sort="eigen"`` keeps the largest eigenvalues, ``sort="abs"`` the largest |eigenvalue| (the
    symmetrised GO / NL products are not positive semi-definite). The eigendecomposition runs in
    float64 on the CPU; the result has ``C``'s dtype and device. Each column's sign is fixed so
    that its largest-magnitude entry is positive (a deterministic choice; ``PPᵀ`` does not depend
    on it).
    """
    C = as_float_tensor(C, "C", ndim=2)
    if C.shape[0] != C.shape[1]:
        raise ValueError(f"C must be a square (K, K) matrix, got shape {tuple(C.shape)}")
    K = C.shape[0]
    rank = check_int(rank, "rank", minimum=1, maximum=K)
    sort = check_option(sort, "sort", SORTS)
    c64 = C.detach().to(device="cpu", dtype=torch.float64)
    values, vectors = torch.linalg.eigh((c64 + c64.T) / 2)
    key = values.abs() if sort == "abs" else values
    # stable descending order: ties keep eigh's order
    order = torch.argsort(-key, stable=True)[:rank]
    P = vectors[:, order]
    idx = P.abs().argmax(dim=0)
    signs = torch.sign(P[idx, torch.arange(rank)])
    signs[signs == 0] = 1.0
    P = P * signs
    return P.to(device=C.device, dtype=C.dtype)


def random_projection(
    K: int, rank: int, *, dtype: torch.dtype = torch.float32, generator=None
) -> torch.Tensor:
    """A uniformly random orthonormal (K, rank) matrix (QR of a Gaussian matrix): the baseline."""
    K = check_int(K, "K", minimum=1)
    rank = check_int(rank, "rank", minimum=1, maximum=K)
    generator = check_generator(generator)
    if not isinstance(dtype, torch.dtype) or not dtype.is_floating_point:
        raise TypeError(f"dtype must be a floating torch.dtype, got {dtype!r}")
    g = torch.randn(K, rank, dtype=torch.float64, generator=generator)
    q, r = torch.linalg.qr(g)
    signs = torch.sign(torch.diagonal(r))
    signs[signs == 0] = 1.0
    q = q * signs  # Haar-distributed
    return q.to(dtype)


def rank_for_compression(N: int, K: int, ratio: float) -> int:
    """The projection rank ``L = ⌊(1 - ratio)·N·K / (N + K)⌋`` that removes the fraction
    ``ratio`` of an (N, K) layer's N·K weights (the inference form stores L·(N + K)).

    ``ratio`` in [0, 1); a ratio that leaves no rank (L < 1) is a ValueError.
    """
    N = check_int(N, "N", minimum=1)
    K = check_int(K, "K", minimum=1)
    ratio = check_float(ratio, "ratio", minimum=0.0, maximum=1.0, max_inclusive=False)
    L = math.floor((1 - ratio) * N * K / (N + K))
    if L < 1:
        raise ValueError(
            f"ratio={ratio} leaves no rank for a ({N}, {K}) layer "
            f"((1 - ratio)·N·K/(N + K) = {(1 - ratio) * N * K / (N + K):.3g} < 1)"
        )
    return L
