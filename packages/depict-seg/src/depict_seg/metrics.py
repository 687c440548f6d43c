"""Diagnostics of the paper: coding rates, orthogonality, mIoU and parameter noise."""

from __future__ import annotations

import copy

import numpy as np
import torch

from ._checks import check_float, check_generator, check_int
from ._validation import as_labels, as_matrix, check_module

__all__ = [
    "coding_rate",
    "mean_iou",
    "orthogonality_gap",
    "perturb_params",
    "subspace_coding_rates",
]


def _rate(z, eps, is_torch):
    # z [..., N, d] -> 1/2 logdet(I + d / (N eps^2) z^T z)
    n, d = z.shape[-2], z.shape[-1]
    alpha = d / (n * eps**2)
    if is_torch:  # float64 inside (differentiable), the input's dtype out
        z64 = z.to(torch.float64)
        gram = z64.transpose(-1, -2) @ z64
        eye = torch.eye(d, dtype=torch.float64, device=z.device)
        return (0.5 * torch.linalg.slogdet(eye + alpha * gram).logabsdet).to(z.dtype)
    gram = np.swapaxes(z, -1, -2) @ z
    out = 0.5 * np.linalg.slogdet(np.eye(d) + alpha * gram)[1]
    return float(out) if np.ndim(out) == 0 else out


def coding_rate(Z, *, eps=0.5):
    """Coding rate ``R(Z) = 1/2 logdet(I + d / (N eps^2) Z^T Z)`` of ``N`` tokens of width ``d``.

    ``Z``: [N, d] or a batch [B, N, d] (a torch tensor, differentiable, or an array-like, then
    float64 numpy). Returns a 0-d tensor / [B] tensor for torch input (computed in float64, in
    the input's dtype), a float / [B] array else.
    """
    eps = check_float(eps, "eps", minimum=0.0, min_inclusive=False)
    z, is_torch = as_matrix(Z, "Z", ndim=(2, 3))
    return _rate(z, eps, is_torch)


def subspace_coding_rates(Z, U, *, heads, eps=0.5):
    """Per-head coding rates ``R(Z U_k^T)`` of tokens ``Z`` [N, d] (or [B, N, d]) in the ``heads``
    subspaces of ``U`` [heads * d_h, d] (an MSSA ``proj``, head-major): shape [heads] (or
    [B, heads]), each computed with width ``d_h`` (CRATE's compression term)."""
    eps = check_float(eps, "eps", minimum=0.0, min_inclusive=False)
    z, z_torch = as_matrix(Z, "Z", ndim=(2, 3))
    u, u_torch = as_matrix(U, "U", ndim=2)
    if z_torch != u_torch:
        raise TypeError("Z and U must both be torch tensors or both be arrays")
    heads = check_int(heads, "heads", minimum=1)
    if u.shape[1] != z.shape[-1]:
        raise ValueError(
            f"U must have {z.shape[-1]} columns (the width of Z), got {tuple(u.shape)}"
        )
    if u.shape[0] % heads:
        raise ValueError(f"heads must divide the {u.shape[0]} rows of U, got {heads}")
    d_h = u.shape[0] // heads
    rates = [_rate(z @ u[k * d_h : (k + 1) * d_h].T, eps, z_torch) for k in range(heads)]
    if z_torch:
        return torch.stack(rates, dim=-1)
    return np.stack([np.asarray(r, dtype=np.float64) for r in rates], axis=-1)


def orthogonality_gap(M):
    """``||M_hat M_hat^T - I||_F`` with the rows of ``M`` [K, d] scaled to unit norm.

    Zero for orthonormal rows (e.g. DEPICT's final class embeddings in the ideal case). Returns
    a float (a torch tensor or an array-like may be given; rows must be non-zero)."""
    m, is_torch = as_matrix(M, "M", ndim=2)
    if is_torch:
        m = m.detach().to(torch.float64).cpu().numpy()
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    if np.any(norms == 0):
        raise ValueError(f"M must have non-zero rows, got {int((norms == 0).sum())} zero row(s)")
    m_hat = m / norms
    return float(np.linalg.norm(m_hat @ m_hat.T - np.eye(m.shape[0])))


def mean_iou(pred, target, n_cls, *, ignore_index=255):
    """Mean intersection-over-union of label maps ``pred`` and ``target`` (same shape).

    Pixels whose target is ``ignore_index`` (``None``: none) are left out; the intersections and
    unions are summed over all given pixels (dataset-level mIoU, as mmsegmentation), and the mean
    is over the classes present in ``pred`` or ``target`` (union > 0). Returns a float in [0, 1].
    """
    n_cls = check_int(n_cls, "n_cls", minimum=1)
    if ignore_index is not None:
        ignore_index = check_int(ignore_index, "ignore_index")
    p = as_labels(pred, "pred")
    t = as_labels(target, "target")
    if p.shape != t.shape:
        raise ValueError(f"pred and target must have the same shape, got {p.shape} and {t.shape}")
    valid = np.ones(t.shape, bool) if ignore_index is None else t != ignore_index
    if (p < 0).any() or (p >= n_cls).any():
        raise ValueError(f"pred must hold labels in [0, {n_cls}), got [{p.min()}, {p.max()}]")
    tv = t[valid]
    if tv.size == 0:
        raise ValueError("target must have at least one pixel that is not ignore_index")
    if (tv < 0).any() or (tv >= n_cls).any():
        raise ValueError(
            f"target must hold labels in [0, {n_cls}) or ignore_index={ignore_index}, "
            f"got [{tv.min()}, {tv.max()}]"
        )
    pv = p[valid]
    inter = np.bincount(tv[pv == tv], minlength=n_cls)
    union = np.bincount(pv, minlength=n_cls) + np.bincount(tv, minlength=n_cls) - inter
    present = union > 0
    return float(np.mean(inter[present] / union[present]))


def perturb_params(module, sigma, *, generator=None):
    """A deep copy of ``module`` with ``N(0, sigma^2)`` noise added to every parameter (the
    paper's robustness study); ``module`` itself is unchanged."""
    module = check_module(module, "module")
    sigma = check_float(sigma, "sigma", minimum=0.0)
    generator = check_generator(generator)
    noisy = copy.deepcopy(module)
    gdev = generator.device if generator is not None else torch.device("cpu")
    with torch.no_grad():
        for p in noisy.parameters():
            dtype = p.dtype if p.dtype.is_floating_point else torch.float32
            noise = torch.randn(p.shape, generator=generator, device=gdev, dtype=dtype)
            p.add_((sigma * noise).to(device=p.device, dtype=p.dtype))
    return noisy
