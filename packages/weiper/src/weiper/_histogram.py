"""Per-row histograms, moving-average smoothing and the symmetric KL divergence (numpy only)."""

from __future__ import annotations

import numpy as np

from ._checks import check_array, check_float, check_int

__all__ = ["histogram_rows", "symmetric_kl", "uniform_smooth"]

# rows are binned in blocks of about this many entries (bounded memory, cache friendly)
_BLOCK = 1 << 17


def _edges(V: np.ndarray, lo, hi, n_bins: int):
    """numpy.histogram's outer edges and bin edges for ``range=(lo, hi)`` and ``bins=n_bins``."""
    first, last = lo, hi
    if first == last:  # numpy widens an empty range by 0.5 on each side
        first, last = first - 0.5, last + 0.5
    bin_type = np.result_type(first, last, V)
    if np.issubdtype(bin_type, np.integer) or bin_type == np.bool_:
        bin_type = np.result_type(bin_type, float)
    edges = np.linspace(first, last, n_bins + 1, endpoint=True, dtype=bin_type)
    if np.any(edges[:-1] >= edges[1:]):
        raise ValueError(
            f"n_bins is too large for the range [{lo}, {hi}]: got {n_bins}, the bins would "
            "not have a positive width"
        )
    return first, last, edges


def _bin_index(x: np.ndarray, first, last, edges: np.ndarray, n_bins: int) -> np.ndarray:
    """The bin of every value of ``x`` (in the edges' dtype, inside [first, last]) as
    numpy.histogram assigns it: [e_i, e_{i+1}), the last bin closed on the right."""
    t = x - first
    t /= last - first
    t *= n_bins
    idx = t.astype(np.intp)
    np.minimum(idx, n_bins - 1, out=idx)  # x == last
    # the arithmetic can be one ulp off at an edge: compare with the edges themselves
    idx -= x < edges[idx]
    idx += (x >= edges[1:][idx]) & (idx != n_bins - 1)
    return idx


def histogram_rows(V, lo, hi, n_bins):
    """Histogram of each row of ``V`` [n, m] over ``n_bins`` equal bins spanning [lo, hi].

    Row i of the result [n, n_bins] equals
    ``numpy.histogram(V[i], bins=n_bins, range=(lo, hi))[0] / m``: the same edges and bin
    rule (the last bin includes ``hi``), values outside [lo, hi] dropped, counts divided by the
    row length m (so a row sums to 1 when all its values lie inside, to less otherwise). All
    rows are binned together, in blocks, with ``bincount``. A 1-d ``V`` is one row (result
    [n_bins]).
    """
    arr = check_array(V, "V", ndim=(1, 2), dtype="numeric")
    check_float(lo, "lo")
    check_float(hi, "hi")
    n_bins = check_int(n_bins, "n_bins", minimum=1)
    if lo > hi:
        raise ValueError(f"hi must be >= lo, got lo={lo} and hi={hi}")
    one_row = arr.ndim == 1
    rows = arr[None, :] if one_row else arr
    n, m = rows.shape
    first, last, edges = _edges(rows, lo, hi, n_bins)
    counts = np.zeros(n * n_bins, dtype=np.int64)
    step = max(1, _BLOCK // m)
    for start in range(0, n, step):
        block = rows[start : start + step]
        offsets = np.arange(start, start + block.shape[0])[:, None] * n_bins
        if block.min() >= first and block.max() <= last:
            idx = _bin_index(block.astype(edges.dtype, copy=False), first, last, edges, n_bins)
            idx += offsets
            flat = idx.ravel()
        else:
            keep = (block >= first) & (block <= last)
            x = block[keep].astype(edges.dtype, copy=False)
            flat = _bin_index(x, first, last, edges, n_bins)
            flat += np.broadcast_to(offsets, block.shape)[keep]
        counts += np.bincount(flat, minlength=n * n_bins)
    out = counts.reshape(n, n_bins) / m
    return out[0] if one_row else out


def uniform_smooth(P, width):
    """Moving average of width ``width`` along the last axis of ``P``, same length, edges
    replicated: ``out[..., i] = mean_{j < width} P[..., clip(i - (width - 1) // 2 + j)]``
    (torch's ``Conv1d(padding="same", padding_mode="replicate")`` with a uniform kernel, as in
    the authors' code). ``width=1`` returns a copy of ``P``."""
    arr = check_array(P, "P", ndim=(1, 2))
    width = check_int(width, "width", minimum=1)
    n = arr.shape[-1]
    left = (width - 1) // 2
    pos = np.clip(np.arange(-left, n - left + width - 1), 0, n - 1)
    padded = arr[..., pos]
    c = np.cumsum(padded, axis=-1)
    c = np.concatenate([np.zeros((*arr.shape[:-1], 1)), c], axis=-1)
    return (c[..., width:] - c[..., :-width]) / width


def _distribution(x: np.ndarray, eps: float, name: str) -> np.ndarray:
    if np.any(x < 0):
        raise ValueError(f"{name} must be non-negative, got a minimum of {x.min()}")
    x = x + eps
    total = x.sum(axis=-1, keepdims=True)
    if np.any(total <= 0):
        raise ValueError(f"{name} must have a positive sum along its last axis (or eps > 0)")
    return x / total


def symmetric_kl(p, Q, *, eps=0.0):
    """KL(p || q) + KL(q || p) along the last axis, after adding ``eps`` to every bin of both
    and renormalising each to sum 1 (the WeiPer+KLD distance). ``p`` and ``Q`` are [B] or
    [n, B] and broadcast (a reference [B] against n rows [n, B] gives [n]). Bins where both
    are 0 contribute 0; a bin where only one is 0 makes the divergence +inf (use ``eps > 0``).
    """
    p_arr = check_array(p, "p", ndim=(1, 2))
    q_arr = check_array(Q, "Q", ndim=(1, 2))
    eps = check_float(eps, "eps", minimum=0.0)
    if p_arr.shape[-1] != q_arr.shape[-1]:
        raise ValueError(
            f"Q must have as many bins as p ({p_arr.shape[-1]}), got shape {q_arr.shape}"
        )
    if p_arr.ndim == 2 and q_arr.ndim == 2 and p_arr.shape[0] not in (1, q_arr.shape[0]):
        raise ValueError(f"Q has {q_arr.shape[0]} rows but p has {p_arr.shape[0]}")
    pp = _distribution(p_arr, eps, "p")
    qq = _distribution(q_arr, eps, "Q")
    with np.errstate(divide="ignore", invalid="ignore"):
        log_ratio = np.log(pp) - np.log(qq)
        terms = (pp - qq) * log_ratio  # p log(p/q) + q log(q/p), bin by bin
    terms = np.where((pp == 0) & (qq == 0), 0.0, terms)
    return terms.sum(axis=-1)
