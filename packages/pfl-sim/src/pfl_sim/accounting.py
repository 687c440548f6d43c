"""Privacy accounting for T compositions of the Poisson-subsampled Gaussian mechanism.

Neighbouring relation: add/remove one user. Three accountants, all written here (numpy/scipy):

* ``"pld"``: privacy loss distributions (Koskela et al. 2020; Doroshenko et al. 2022) on a grid of
  ``discretization`` (default 1e-4, as dp-accounting), discretised with the "connect-the-dots"
  rule (an upper bound on the true privacy curve), composed by FFT convolution with
  exponentiation by squaring and tail truncation (truncated upper mass counts as infinite loss,
  a pessimistic choice). Both the remove and the add direction are composed; epsilon is the
  larger of the two.
* ``"prv"``: the privacy-random-variable estimate (Gopi et al. 2021): the same composition, with
  each bin's mass at the bin's midpoint (an estimate, not a bound).
* ``"rdp"``: Renyi DP (Mironov et al. 2019) at dp-accounting's default orders, converted with
  dp-accounting's rule (Canonne-Kamath-Steinke, Proposition 12).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import special

from ._checks import check_float, check_int, check_option, check_probability

__all__ = [
    "ACCOUNTANTS",
    "RDP_ORDERS",
    "compute_epsilon",
    "compute_noise_multiplier",
    "compute_rdp",
]

ACCOUNTANTS = ("pld", "rdp", "prv")

#: dp-accounting's default RDP orders (``RdpAccountant()``).
RDP_ORDERS: tuple[float, ...] = tuple(
    [1 + x / 10.0 for x in range(1, 100)] + list(range(11, 64)) + [128, 256, 512, 1024]
)

_LOG_TAIL = -50.0  # single-step tails below exp(-50) are truncated (dp-accounting's bound)
_TAIL_MASS = 1e-15  # composed tails below this are truncated (pessimistically)


# --------------------------------------------------------------------------------------- RDP
def _log_a_int(q: float, sigma: float, alpha: int) -> float:
    """log E_{z~N(0,s^2)}[((1-q) + q exp((2z-1)/(2s^2)))^alpha], binomial expansion."""
    k = np.arange(alpha + 1, dtype=np.float64)
    lc = special.gammaln(alpha + 1) - special.gammaln(k + 1) - special.gammaln(alpha - k + 1)
    terms = lc + k * math.log(q) + (alpha - k) * math.log1p(-q) + (k * k - k) / (2 * sigma**2)
    return float(special.logsumexp(terms))


def _log_a_frac(q: float, sigma: float, alpha: float) -> float:
    """The same for fractional alpha: the two-sided series of Mironov et al. 2019, Sec. 3.3
    (an upper bound), summed in numpy with dp-accounting's stopping rule and 1000-term cap."""
    z0 = sigma**2 * math.log(1 / q - 1) + 0.5
    lq, l1q = math.log(q), math.log1p(-q)
    i = np.arange(1000, dtype=np.float64)
    j = alpha - i
    lc = special.gammaln(alpha + 1) - special.gammaln(i + 1) - special.gammaln(j + 1)
    s0 = lc + i * lq + j * l1q + (i * i - i) / (2 * sigma**2) + special.log_ndtr((z0 - i) / sigma)
    s1 = lc + j * lq + i * l1q + (j * j - j) / (2 * sigma**2) + special.log_ndtr((j - z0) / sigma)
    total = np.logaddexp.accumulate(np.logaddexp(s0, s1))
    stop = np.zeros(i.size, dtype=bool)
    stop[1:] = (s0[1:] < s0[:-1]) & (s1[1:] < s1[:-1]) & (np.maximum(s0, s1)[1:] < total[1:] - 30)
    hit = np.flatnonzero(stop)
    # a non-converged order is excluded (its epsilon is infinite), as in dp-accounting
    return float(total[hit[0]]) if hit.size else np.inf


def compute_rdp(noise_multiplier, *, sampling_prob, orders=RDP_ORDERS) -> np.ndarray:
    """RDP of one step of the Poisson-subsampled Gaussian at each order (add/remove one).

    >>> float(compute_rdp(2.0, sampling_prob=1.0, orders=[3])[0])  # alpha / (2 sigma^2)
    0.375
    """
    sigma = check_float(noise_multiplier, "noise_multiplier", minimum=0.0, min_inclusive=False)
    q = check_probability(sampling_prob, "sampling_prob", allow_zero=False)
    orders = np.atleast_1d(np.asarray(orders, dtype=np.float64))
    if (
        orders.ndim != 1
        or orders.size == 0
        or not np.all(orders > 1)
        or not np.all(np.isfinite(orders))
    ):
        raise ValueError(
            f"orders must be a non-empty 1-d sequence of finite orders > 1, got {orders}"
        )
    out = np.empty(orders.size)
    for n, a in enumerate(orders):
        if q == 1.0:
            out[n] = a / (2 * sigma**2)
        elif float(a).is_integer():
            out[n] = _log_a_int(q, sigma, int(a)) / (a - 1)
        else:
            out[n] = _log_a_frac(q, sigma, float(a)) / (a - 1)
    return out


def _rdp_to_epsilon(orders: np.ndarray, rdp: np.ndarray, delta: float) -> float:
    best = np.inf
    for a, r in zip(orders, rdp):
        if not np.isfinite(r):
            continue
        if r <= 0 or delta**2 + math.expm1(-r) > 0:
            eps = 0.0
        elif a > 1.01:
            eps = r + math.log1p(-1 / a) - math.log(delta * a) / (a - 1)
        else:
            eps = np.inf
        best = min(best, eps)
    return max(0.0, float(best))


# --------------------------------------------------------------------------------------- PLD
@dataclass
class _PMF:
    """A discrete privacy loss distribution: mass ``p[i]`` at loss ``(k0 + i) * h``."""

    k0: int
    p: np.ndarray
    inf_mass: float
    h: float

    @property
    def losses(self) -> np.ndarray:
        return (self.k0 + np.arange(self.p.size)) * self.h


def _x_of_loss(loss: np.ndarray, q: float, sigma: float) -> np.ndarray:
    """The z with log((1-q) + q exp((2z-1)/(2 sigma^2))) = loss (loss > log(1-q))."""
    with np.errstate(divide="ignore", invalid="ignore"):
        if q == 1.0:
            return sigma**2 * loss + 0.5
        inner = np.expm1(loss) + q  # exp(loss) - (1 - q), accurate near loss = 0
        return sigma**2 * (np.log(inner) - math.log(q)) + 0.5


def _truncate(pmf: _PMF) -> _PMF:
    p = np.clip(pmf.p, 0.0, None)
    c = np.cumsum(p)
    lo = int(np.searchsorted(c, _TAIL_MASS, side="right"))
    lo = min(lo, p.size - 1)
    r = np.cumsum(p[::-1])
    hi_drop = int(np.searchsorted(r, _TAIL_MASS, side="right"))
    hi = max(p.size - hi_drop, lo + 1)
    low_mass = float(p[:lo].sum())
    high_mass = float(p[hi:].sum())
    kept = p[lo:hi].copy()
    kept[0] += low_mass  # lower tail moved up onto the first kept loss (pessimistic)
    inf_mass = 1.0 - (1.0 - pmf.inf_mass) * (1.0 - high_mass) if high_mass else pmf.inf_mass
    return _PMF(pmf.k0 + lo, kept, inf_mass, pmf.h)


def _fft_convolve(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    n = a.size + b.size - 1
    if min(a.size, b.size) <= 64:
        return np.convolve(a, b)
    from scipy.fft import irfft, next_fast_len, rfft  # scipy.fft: light, unlike scipy.signal

    size = next_fast_len(n, real=True)
    return irfft(rfft(a, size) * rfft(b, size), size)[:n]


def _convolve(a: _PMF, b: _PMF) -> _PMF:
    p = _fft_convolve(a.p, b.p)
    inf_mass = 1.0 - (1.0 - a.inf_mass) * (1.0 - b.inf_mass)
    return _truncate(_PMF(a.k0 + b.k0, p, inf_mass, a.h))


def _self_compose(pmf: _PMF, steps: int) -> _PMF:
    result = None
    base = pmf
    while steps:
        if steps & 1:
            result = base if result is None else _convolve(result, base)
        steps >>= 1
        if steps:
            base = _convolve(base, base)
    return result


def _single_step(sigma: float, q: float, h: float, direction: str, kind: str) -> _PMF:
    """One step's privacy loss pmf on the grid k*h for the 'remove' or 'add' direction.

    Remove: losses of P = (1-q)N(0,s^2) + qN(1,s^2) against Q = N(0,s^2), as a function of z.
    Add: P = N(0,s^2) against Q = the mixture; the loss is minus the remove loss at the same z.
    """
    zq = -float(special.ndtri(math.exp(_LOG_TAIL)))  # ~ 9.9: z quantile of the truncation

    def loss_of_z(z):
        return np.logaddexp(
            math.log1p(-q) if q < 1 else -np.inf, math.log(q) + (2 * z - 1) / (2 * sigma**2)
        )

    if direction == "remove":
        lo_l, hi_l = float(loss_of_z(-zq * sigma)), float(loss_of_z(1 + zq * sigma))
    else:
        lo_l, hi_l = -float(loss_of_z(zq * sigma)), -float(loss_of_z(-zq * sigma))
    k_lo, k_hi = math.floor(lo_l / h), math.ceil(hi_l / h)
    edges = np.arange(k_lo, k_hi + 1) * h  # bin i is (edges[i], edges[i+1]]

    # P(L > l) and Q(L > l) for each edge, as survival functions (accurate in the upper tail)
    # and as CDFs (accurate in the lower tail).
    if direction == "remove":
        z = _x_of_loss(edges, q, sigma)  # L > l  <=>  Z > z(l)
        z = np.where(edges <= (math.log1p(-q) if q < 1 else -np.inf), -np.inf, z)
        p_sf = (1 - q) * special.ndtr(-z / sigma) + q * special.ndtr((1 - z) / sigma)
        p_cdf = (1 - q) * special.ndtr(z / sigma) + q * special.ndtr((z - 1) / sigma)
        q_sf, q_cdf = special.ndtr(-z / sigma), special.ndtr(z / sigma)
    else:
        z = _x_of_loss(-edges, q, sigma)  # L > l  <=>  Z < z(-l)
        z = np.where(-edges <= (math.log1p(-q) if q < 1 else -np.inf), -np.inf, z)
        p_sf, p_cdf = special.ndtr(z / sigma), special.ndtr(-z / sigma)
        q_sf = (1 - q) * special.ndtr(z / sigma) + q * special.ndtr((z - 1) / sigma)
        q_cdf = (1 - q) * special.ndtr(-z / sigma) + q * special.ndtr((1 - z) / sigma)

    def bins(sf, cdf):
        upper = sf[:-1] - sf[1:]
        lower = cdf[1:] - cdf[:-1]
        return np.clip(np.where(cdf[1:] < 0.5, lower, upper), 0.0, None)

    pb = bins(p_sf, p_cdf)
    n = edges.size  # grid points edges[0..n-1]
    mass = np.zeros(n)
    if kind == "pld":  # connect the dots: keep each bin's P mass and Q mass (= E_P[e^-L])
        qb = bins(q_sf, q_cdf)
        e_lo, e_hi = np.exp(-edges[:-1]), np.exp(-edges[1:])
        a = np.clip((qb - pb * e_hi) / (e_lo - e_hi), 0.0, pb)
        mass[:-1] += a
        mass[1:] += pb - a
    else:  # PRV estimate: the bin's mass at its midpoint (two half-grid points, i.e. split)
        mass[:-1] += 0.5 * pb
        mass[1:] += 0.5 * pb
    mass[0] += float(p_cdf[0])  # lower tail onto the lowest loss (pessimistic)
    inf_mass = float(p_sf[-1])  # upper tail: infinite loss (pessimistic)
    return _truncate(_PMF(k_lo, mass, inf_mass, h))


def _epsilon_for_delta(pmf: _PMF, delta: float) -> float:
    if pmf.inf_mass >= delta:
        return np.inf
    losses, p = pmf.losses, pmf.p
    # delta(eps) = inf + sum_{l > eps} p (1 - e^{eps - l}); evaluate it at every grid loss eps = l_j
    s1 = np.cumsum(p[::-1])[::-1]  # sum_{i >= j} p_i
    shift = losses[-1]
    s2 = np.cumsum((p * np.exp(shift - losses))[::-1])[::-1]  # e^{shift} sum_{i>=j} p_i e^{-l_i}
    # at eps = l_{j-1}: delta = inf + s1[j] - e^{l_{j-1} - shift} s2[j]
    d_at = np.empty(p.size)
    d_at[0] = pmf.inf_mass + s1[0] - np.exp(losses[0] - shift) * s2[0]  # eps just below l_0
    d_at[1:] = pmf.inf_mass + s1[1:] - np.exp(losses[:-1] - shift) * s2[1:]
    above = np.nonzero(d_at > delta)[0]
    if above.size == 0:
        return 0.0
    j = int(above[-1])  # eps lies in [l_{j-1}, l_j)
    num = pmf.inf_mass + s1[j] - delta
    eps = math.log(num / s2[j]) + shift
    return max(0.0, float(eps))


def _pld_epsilon(sigma, q, steps, delta, h, kind):
    eps = 0.0
    for direction in ("remove", "add"):
        pmf = _self_compose(_single_step(sigma, q, h, direction, kind), steps)
        eps = max(eps, _epsilon_for_delta(pmf, delta))
    return eps


# ------------------------------------------------------------------------------- public API
def _check_common(sampling_prob, steps, delta, accountant, discretization):
    q = check_probability(sampling_prob, "sampling_prob", allow_zero=False)
    steps = check_int(steps, "steps", minimum=1)
    delta = check_probability(delta, "delta", allow_zero=False, allow_one=False)
    accountant = check_option(accountant, "accountant", ACCOUNTANTS)
    h = check_float(discretization, "discretization", minimum=0.0, min_inclusive=False)
    if h > 0.1:
        raise ValueError(f"discretization must be <= 0.1, got {h}")
    return q, steps, delta, accountant, h


def _epsilon(sigma, q, steps, delta, accountant, h):
    if accountant == "rdp":
        orders = np.asarray(RDP_ORDERS)
        return _rdp_to_epsilon(orders, steps * compute_rdp(sigma, sampling_prob=q), delta)
    return _pld_epsilon(sigma, q, steps, delta, h, accountant)


def compute_epsilon(
    noise_multiplier,
    *,
    sampling_prob,
    steps,
    delta,
    accountant="pld",
    discretization=1e-4,
) -> float:
    """Epsilon of ``steps`` compositions of the Poisson-subsampled Gaussian mechanism.

    ``noise_multiplier`` is sigma (noise std / L2 sensitivity), ``sampling_prob`` is q (in
    federated learning q = max(cohort, noise_cohort_size) / population), ``delta`` the target
    delta; add/remove-one adjacency. ``accountant`` is ``"pld"`` (default, tight upper bound),
    ``"prv"`` (estimate) or ``"rdp"`` (looser). ``discretization`` is the PLD/PRV loss grid.

    >>> round(compute_epsilon(1.0, sampling_prob=1.0, steps=1, delta=1e-5), 2)  # Gaussian: 4.38
    4.38
    """
    sigma = check_float(noise_multiplier, "noise_multiplier", minimum=0.0, min_inclusive=False)
    q, steps, delta, accountant, h = _check_common(
        sampling_prob, steps, delta, accountant, discretization
    )
    return _epsilon(sigma, q, steps, delta, accountant, h)


def compute_noise_multiplier(
    epsilon,
    *,
    sampling_prob,
    steps,
    delta,
    accountant="pld",
    discretization=1e-4,
    tolerance=1e-3,
) -> float:
    """The smallest sigma (to a relative ``tolerance``, default 0.1%) with epsilon(sigma) <= epsilon.

    The returned sigma always satisfies the budget: ``compute_epsilon(sigma, ...) <= epsilon``.
    """
    eps = check_float(epsilon, "epsilon", minimum=0.0, min_inclusive=False)
    q, steps, delta, accountant, h = _check_common(
        sampling_prob, steps, delta, accountant, discretization
    )
    tol = check_float(tolerance, "tolerance", minimum=0.0, maximum=0.5, min_inclusive=False)

    def eps_of(sigma):
        return _epsilon(sigma, q, steps, delta, accountant, h)

    # bracket: the RDP sigma (cheap) is an upper bound for PLD's; grow / shrink geometrically
    hi = 1.0
    if accountant != "rdp":
        hi = max(
            compute_noise_multiplier(
                eps, sampling_prob=q, steps=steps, delta=delta, accountant="rdp", tolerance=0.05
            ),
            1e-3,
        )
    e_hi = eps_of(hi)
    while e_hi > eps:
        hi *= 2
        if hi > 1e6:
            raise ValueError(f"epsilon={eps} is not reachable with sigma <= 1e6 (delta={delta})")
        e_hi = eps_of(hi)
    lo = hi / 1.25
    e_lo = eps_of(lo)
    while e_lo <= eps:
        hi, e_hi, lo = lo, e_lo, lo / 2
        if lo < 1e-4:
            return hi
        e_lo = eps_of(lo)
    # invariant: eps(lo) > epsilon >= eps(hi). Interpolate log eps in log sigma, then probe just
    # either side of the estimate so that the bracket usually closes in two or three steps.
    while hi / lo > 1 + tol:
        est = math.sqrt(lo * hi)
        if 0 < e_hi < e_lo < math.inf:
            t = (math.log(e_lo) - math.log(eps)) / (math.log(e_lo) - math.log(e_hi))
            est = lo * (hi / lo) ** min(max(t, 0.05), 0.95)
        up = min(est * (1 + tol / 3), hi)
        e_up = eps_of(up)
        if e_up > eps:
            lo, e_lo = up, e_up
            continue
        hi, e_hi = up, e_up
        down = max(est / (1 + tol / 3), lo)
        if hi / down > 1 + tol / 10:
            e_down = eps_of(down)
            if e_down > eps:
                lo, e_lo = down, e_down
            else:
                hi, e_hi = down, e_down
    return hi
