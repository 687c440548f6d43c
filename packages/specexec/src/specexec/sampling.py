"""Target-side sampling rules shared by every generator: temperature, nucleus (top-p), greedy.

SpecExec (Svirschevski et al., NeurIPS 2024, https://arxiv.org/abs/2406.02532), Sec. 3: every
token that leaves a verification pass is one independent draw from the target's *warped*
distribution, so the warp below defines exactly which distribution the generators reproduce.
It matches Hugging Face's ``TemperatureLogitsWarper`` followed by ``TopPLogitsWarper``: divide
the logits by the temperature, then keep the smallest set of most probable tokens whose mass
reaches ``top_p`` (at least one token). ``temperature=0`` is greedy decoding (the arg-max, first
index on ties).
"""

from __future__ import annotations

import numpy as np

from ._checks import check_array, check_float, check_probability


def check_sampling_args(temperature, top_p) -> tuple[float, float]:
    """``temperature`` >= 0 (exactly 0 = greedy) and ``top_p`` in (0, 1], as floats.

    A negative temperature would invert the distribution and ``top_p = 0`` keeps nothing: both
    are a ``ValueError`` naming the argument (a bool or a string is a ``TypeError``).
    """
    temperature = check_float(temperature, "temperature", minimum=0.0)
    top_p = check_probability(top_p, "top_p", allow_zero=False)
    return temperature, top_p


def warp_probs(logits, *, temperature: float = 1.0, top_p: float = 1.0) -> np.ndarray:
    """Probabilities of the warped distribution a generator samples from.

    Args:
        logits: (..., V) logits or log-probabilities (any additive constant per row is fine);
            ``-inf`` marks impossible tokens, every row needs at least one finite entry.
        temperature: exactly 0 = greedy (one-hot arg-max), otherwise > 0: logits are divided
            by it.
        top_p: nucleus mass in (0, 1]; 1 keeps every token.

    Returns:
        (..., V) float64 probabilities, each row summing to 1.

    >>> warp_probs(np.log([0.5, 0.3, 0.2]), top_p=0.7).round(3).tolist()
    [0.625, 0.375, 0.0]
    >>> warp_probs([1.0, 3.0, 2.0], temperature=0).tolist()
    [0.0, 1.0, 0.0]
    """
    temperature, top_p = check_sampling_args(temperature, top_p)
    x = check_array(logits, "logits", finite=False)
    if x.ndim == 0:
        raise ValueError("logits must have a last (vocabulary) axis, got a scalar")
    if np.isnan(x).any() or (x == np.inf).any():
        raise ValueError("logits must not contain NaN or +inf (-inf marks impossible tokens)")
    if not np.isfinite(x).any(axis=-1).all():
        raise ValueError("logits has a row with every entry -inf (no possible token)")
    return _warp_probs(x, temperature, top_p)


def _warp_probs(x: np.ndarray, temperature: float, top_p: float) -> np.ndarray:
    """:func:`warp_probs` on checked float64 input."""
    if temperature == 0:
        out = np.zeros_like(x)
        np.put_along_axis(out, x.argmax(axis=-1)[..., None], 1.0, axis=-1)
        return out
    z = x / temperature
    z = z - z.max(axis=-1, keepdims=True)
    p = np.exp(z)
    p /= p.sum(axis=-1, keepdims=True)
    if top_p < 1.0:
        order = np.argsort(-p, axis=-1, kind="stable")  # descending, ties by index
        sorted_p = np.take_along_axis(p, order, axis=-1)
        mass_before = np.cumsum(sorted_p, axis=-1) - sorted_p
        keep_sorted = mass_before < top_p  # the first token is always kept
        keep = np.zeros_like(keep_sorted)
        np.put_along_axis(keep, order, keep_sorted, axis=-1)
        p = np.where(keep, p, 0.0)
        p /= p.sum(axis=-1, keepdims=True)
    return p


def sample_index(probs: np.ndarray, rng: np.random.Generator) -> int:
    """One draw from a (V,) vector of (possibly unnormalised) probabilities by inverse CDF
    (exactly one ``rng.random()`` call)."""
    cdf = np.cumsum(probs)
    i = int(cdf.searchsorted(rng.random() * cdf[-1], side="right"))
    i = min(i, probs.shape[0] - 1)
    while probs[i] <= 0:  # only reachable through rounding at the very end of the CDF
        i -= 1
    return i


def row_to_numpy(row) -> np.ndarray:
    """A row (or array) of numpy or torch as float64 numpy (torch is never imported)."""
    if hasattr(row, "detach"):
        row = row.detach().float().cpu().numpy()
    return np.asarray(row, dtype=np.float64)


def draw(logits_row, temperature: float, top_p: float, rng: np.random.Generator) -> int:
    """One token from the warped distribution of a (V,) logits row; greedy uses no randomness.

    Raises ``ValueError`` if the row has NaN or no token with positive probability.
    """
    x = row_to_numpy(logits_row)
    m = x.max()
    if np.isnan(m) or m == np.inf:
        raise ValueError("logits contain NaN or +inf")
    if m == -np.inf:
        raise ValueError("logits give every token probability 0")
    if temperature == 0:
        return int(np.argmax(x))
    w = np.exp((x - m) / temperature)  # unnormalised warped probabilities
    if top_p < 1.0:  # nucleus, as warp_probs: keep tokens whose preceding mass is < top_p
        order = np.argsort(-w, kind="stable")
        cdf = np.cumsum(w[order])
        k = int((cdf - w[order]).searchsorted(top_p * cdf[-1], side="left"))
        k = max(k, 1)
        i = int(cdf[:k].searchsorted(rng.random() * cdf[k - 1], side="right"))
        return int(order[min(i, k - 1)])
    return sample_index(w, rng)
