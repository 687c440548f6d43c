"""Simulators: multivariate Hawkes processes (exponential kernel: Ogata thinning; Gaussian
kernel: branching representation) and
inhomogeneous Poisson processes (Lewis-Shedler thinning).

Is Score Matching Suitable for Estimating Point Processes? - https://arxiv.org/abs/2410.04037
(synthetic experiments, Sec. 6.1).
"""

from __future__ import annotations

import numpy as np

from ._checks import check_callable, check_int, check_option, check_rng, describe
from ._data import check_excitation, check_positive_number, check_rates


def simulate_hawkes(
    mu,
    A,
    beta,
    T,
    *,
    kernel: str = "exp",
    rng=None,
    sigma: float | None = None,
    max_events: int = 1_000_000,
) -> tuple[np.ndarray, np.ndarray]:
    """One sequence of a multivariate Hawkes process on [0, T] by Ogata's thinning.

    Intensity ``lambda_k(t) = mu_k + sum_{t_j < t} A[k, k_j] * beta * exp(-beta (t - t_j))``:
    the kernel integrates to ``A[k, l]`` (branching matrix), so a univariate process is stationary
    when ``A < 1`` with rate ``mu / (1 - A)``. (With the other common parameterisation
    ``alpha * exp(-beta s)`` this is ``alpha = A * beta``.)

    Args:
        mu: (K,) or scalar finite base rates > 0.
        A: (K, K) (a number when K = 1) finite non-negative excitation (branching) matrix;
            ``A[k, l]`` is the mean number of type-k children of one type-l event.
        beta: finite decay rate > 0 (the kernel's centre for ``kernel="gauss"``).
        T: finite horizon > 0.
        kernel: ``"exp"`` (Ogata thinning) or ``"gauss"``: kernel
            ``A[k, l] exp(-(s - beta)^2 / (2 sigma^2)) / (sqrt(2 pi) sigma)`` for s > 0, i.e. ``beta`` is
            the kernel's centre (mean delay) and ``sigma`` its width; simulated exactly by the
            branching (cluster) representation, branching matrix ``A * Phi(beta / sigma)``.
        rng: ``numpy.random.Generator``, int seed >= 0 or None.
        sigma: width > 0 of the Gaussian kernel (required for ``kernel="gauss"``).
        max_events: int >= 1, guard against explosive parameters (spectral radius of A >= 1).

    Returns:
        ``(times float64 (N,), marks int64 (N,))``.

    >>> t, k = simulate_hawkes(0.5, 0.8, 2.0, 50.0, rng=0)
    >>> bool(np.all(np.diff(t) > 0)) and t.max() <= 50.0 and set(k.tolist()) <= {0}
    True
    """
    kernel = check_option(kernel, "kernel", ("exp", "gauss"))
    mu = check_rates(mu, "mu")
    K = mu.shape[0]
    A = check_excitation(A, K, "A", k_from=f"K = {K} from mu")
    beta = check_positive_number(beta, "beta")
    T = check_positive_number(T, "T")
    max_events = check_int(max_events, "max_events", minimum=1)
    if sigma is not None:
        sigma = check_positive_number(sigma, "sigma")
    rng = check_rng(rng)
    if kernel == "gauss":
        if sigma is None:
            raise ValueError("sigma (the kernel width) is required for kernel='gauss', got None")
        return _hawkes_branching(mu, A, beta, sigma, T, rng, max_events)
    times: list[float] = []
    marks: list[int] = []
    excite = np.zeros(K)  # (K,) sum_j A[k, k_j] beta exp(-beta (t - t_j)) at time t
    mu_sum = mu.sum()
    t = 0.0
    while True:
        bound = mu_sum + excite.sum()  # the intensity only decays until the next event
        w = rng.exponential(1.0 / bound)
        t += w
        if t > T:
            break
        excite = excite * np.exp(-beta * w)
        lam = mu + excite  # (K,)
        u = rng.uniform() * bound
        if u < lam.sum():
            k = min(int(np.searchsorted(np.cumsum(lam), u, side="right")), K - 1)
            times.append(t)
            marks.append(k)
            excite = excite + beta * A[:, k]
            if len(times) > max_events:
                raise RuntimeError(
                    f"more than max_events={max_events} events: is the process explosive?"
                )
    return np.asarray(times, dtype=np.float64), np.asarray(marks, dtype=np.int64)


def simulate_poisson(rate_fn, T, *, rng=None, rate_max=None) -> tuple[np.ndarray, np.ndarray]:
    """One sequence of an inhomogeneous Poisson process on [0, T] by Lewis-Shedler thinning.

    Args:
        rate_fn: a finite rate > 0 (homogeneous) or a vectorised callable
            ``rate(t: (n,)) -> (n,)`` >= 0.
        T: finite horizon > 0.
        rng: ``numpy.random.Generator``, int seed >= 0 or None.
        rate_max: a finite upper bound > 0 on ``rate_fn`` over [0, T]; if None, 1.2x the maximum
            on a 4097-point grid (raises if a candidate point then exceeds it).

    Returns:
        ``(times float64 (N,), marks int64 (N,) of zeros)``.

    >>> t, _ = simulate_poisson(lambda t: 1.0 + np.sin(t) ** 2, 10.0, rng=0)
    >>> bool(np.all((t >= 0) & (t <= 10)))
    True
    """
    T = check_positive_number(T, "T")
    if rate_max is not None:
        rate_max = check_positive_number(rate_max, "rate_max")
    rng = check_rng(rng)
    if not callable(rate_fn):
        if isinstance(rate_fn, bool | np.bool_) or not isinstance(rate_fn, int | float | np.number):
            raise TypeError(f"rate_fn must be a number > 0 or a callable, got {describe(rate_fn)}")
        lam = check_positive_number(rate_fn, "rate_fn")
        n = rng.poisson(lam * T)
        return np.sort(rng.uniform(0.0, T, size=n)), np.zeros(n, dtype=np.int64)
    if rate_max is None:
        grid = _rates_of(rate_fn, np.linspace(0.0, T, 4097))
        if grid.max() == 0:
            raise ValueError(
                "rate_fn is 0 on the whole 4097-point grid of [0, T]; pass rate_max if it is "
                "positive elsewhere"
            )
        rate_max = 1.2 * float(grid.max())
    n = rng.poisson(rate_max * T)
    cand = np.sort(rng.uniform(0.0, T, size=n))
    lam = _rates_of(rate_fn, cand)
    if np.any(lam > rate_max):
        raise ValueError(f"rate_fn exceeds rate_max={rate_max} on [0, T]; pass a larger rate_max")
    keep = rng.uniform(size=n) * rate_max < lam
    times = cand[keep]
    return times, np.zeros(times.shape[0], dtype=np.int64)


def _rates_of(rate_fn, t: np.ndarray) -> np.ndarray:
    """``rate_fn(t)`` checked: shape (n,), finite, >= 0."""
    out = check_callable(rate_fn, "rate_fn")(t)
    try:
        lam = np.asarray(out, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(
            f"rate_fn(t) must return an array of numbers, got {describe(out)}"
        ) from None
    if lam.shape != t.shape:
        raise ValueError(
            f"rate_fn must be vectorised: rate_fn(t) with t of shape {t.shape} must return that "
            f"shape, got {lam.shape}"
        )
    if not np.all(np.isfinite(lam)) or np.any(lam < 0):
        raise ValueError("rate_fn returned a negative or non-finite value")
    return lam


def _hawkes_branching(mu, A, centre, sigma, T, rng, max_events):
    """Gaussian-kernel Hawkes by its cluster representation: immigrants, then generations."""
    from scipy.special import ndtr
    from scipy.stats import truncnorm

    K = mu.shape[0]
    mass = float(ndtr(centre / sigma))  # kernel mass on s > 0
    counts = rng.poisson(mu * T)  # (K,) immigrants per mark
    gen_t = rng.uniform(0.0, T, size=counts.sum())
    gen_k = np.repeat(np.arange(K), counts)
    all_t, all_k = [gen_t], [gen_k]
    total = gen_t.size
    lower = -centre / sigma  # standardised truncation at delay 0
    while gen_t.size:
        n_child = rng.poisson(A[:, gen_k].T * mass)  # (n_parents, K) children per mark
        parents = np.repeat(np.arange(gen_t.size), n_child.sum(1))
        kids_k = np.concatenate([np.repeat(np.arange(K), row) for row in n_child]).astype(np.int64)
        delays = truncnorm.rvs(
            lower, np.inf, loc=centre, scale=sigma, size=parents.size, random_state=rng
        )
        kids_t = gen_t[parents] + delays
        keep = kids_t <= T
        gen_t, gen_k = kids_t[keep], kids_k[keep]
        total += gen_t.size
        if total > max_events:
            raise RuntimeError(
                f"more than max_events={max_events} events: is the process explosive?"
            )
        all_t.append(gen_t)
        all_k.append(gen_k)
    t, k = np.concatenate(all_t), np.concatenate(all_k)
    order = np.argsort(t, kind="stable")
    return t[order].astype(np.float64), k[order].astype(np.int64)
