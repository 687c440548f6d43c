"""Simulators: multivariate Hawkes processes (exponential kernel: Ogata thinning; Gaussian
kernel: branching representation) and
inhomogeneous Poisson processes (Lewis-Shedler thinning).

Is Score Matching Suitable for Estimating Point Processes? - https://arxiv.org/abs/2410.04037
(synthetic experiments, Sec. 6.1).
"""

from __future__ import annotations

import numpy as np

from ._data import check_positive


def _rng(rng) -> np.random.Generator:
    return rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)


def _check_T(T) -> float:
    if not np.isscalar(T):
        raise TypeError("T must be a scalar")
    T = float(check_positive(T, "T"))
    return T


def simulate_hawkes(
    mu,
    A,
    beta,
    T,
    kernel: str = "exp",
    rng=None,
    *,
    sigma: float | None = None,
    max_events: int = 1_000_000,
) -> tuple[np.ndarray, np.ndarray]:
    """One sequence of a multivariate Hawkes process on [0, T] by Ogata's thinning.

    Intensity ``lambda_k(t) = mu_k + sum_{t_j < t} A[k, k_j] * beta * exp(-beta (t - t_j))``:
    the kernel integrates to ``A[k, l]`` (branching matrix), so a univariate process is stationary
    when ``A < 1`` with rate ``mu / (1 - A)``. (With the other common parameterisation
    ``alpha * exp(-beta s)`` this is ``alpha = A * beta``.)

    Args:
        mu: (K,) or scalar base rates > 0.
        A: (K, K) or scalar non-negative excitation (branching) matrix; ``A[k, l]`` is the mean
            number of type-k children of one type-l event.
        beta: decay rate > 0.
        T: horizon > 0.
        kernel: ``"exp"`` (Ogata thinning) or ``"gauss"``: kernel
            ``A[k, l] exp(-(s - beta)^2 / (2 sigma^2)) / (sqrt(2 pi) sigma)`` for s > 0, i.e. ``beta`` is
            the kernel's centre (mean delay) and ``sigma`` its width; simulated exactly by the
            branching (cluster) representation, branching matrix ``A * Phi(beta / sigma)``.
        rng: ``numpy.random.Generator``, int seed or None.
        sigma: width of the Gaussian kernel (required for ``kernel="gauss"``).
        max_events: guard against explosive parameters (spectral radius of A >= 1).

    Returns:
        ``(times float64 (N,), marks int64 (N,))``.

    >>> t, k = simulate_hawkes(0.5, 0.8, 2.0, 50.0, rng=0)
    >>> bool(np.all(np.diff(t) > 0)) and t.max() <= 50.0 and set(k.tolist()) <= {0}
    True
    """
    if kernel not in ("exp", "gauss"):
        raise ValueError(f"kernel must be 'exp' or 'gauss', got {kernel!r}")
    mu = np.atleast_1d(check_positive(mu, "mu"))
    if mu.ndim != 1:
        raise ValueError(f"mu must be a scalar or 1-D, got shape {mu.shape}")
    K = mu.shape[0]
    A = np.asarray(A, dtype=np.float64)
    if A.ndim == 0:
        A = A.reshape(1, 1)
    A = check_positive(A, "A", shape=(K, K), allow_zero=True)
    beta = float(check_positive(beta, "beta", shape=()))
    T = _check_T(T)
    if not isinstance(max_events, int | np.integer) or max_events < 1:
        raise ValueError(f"max_events must be a positive int, got {max_events!r}")
    rng = _rng(rng)
    if kernel == "gauss":
        if sigma is None:
            raise ValueError("sigma is required for kernel='gauss'")
        sigma = float(check_positive(sigma, "sigma", shape=()))
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


def simulate_poisson(rate_fn, T, rng=None, *, rate_max=None) -> tuple[np.ndarray, np.ndarray]:
    """One sequence of an inhomogeneous Poisson process on [0, T] by Lewis-Shedler thinning.

    Args:
        rate_fn: a float (homogeneous) or a vectorised callable ``rate(t: (n,)) -> (n,)`` >= 0.
        T: horizon > 0.
        rng: ``numpy.random.Generator``, int seed or None.
        rate_max: an upper bound on ``rate_fn`` over [0, T]; if None, 1.2x the maximum on a
            4097-point grid (raises if a candidate point then exceeds it).

    Returns:
        ``(times float64 (N,), marks int64 (N,) of zeros)``.

    >>> t, _ = simulate_poisson(lambda t: 1.0 + np.sin(t) ** 2, 10.0, rng=0)
    >>> bool(np.all((t >= 0) & (t <= 10)))
    True
    """
    T = _check_T(T)
    rng = _rng(rng)
    if not callable(rate_fn):
        lam = float(check_positive(rate_fn, "rate_fn", shape=()))
        n = rng.poisson(lam * T)
        return np.sort(rng.uniform(0.0, T, size=n)), np.zeros(n, dtype=np.int64)
    if rate_max is None:
        grid = np.asarray(rate_fn(np.linspace(0.0, T, 4097)), dtype=np.float64)
        if grid.shape != (4097,):
            raise ValueError(
                "rate_fn must be vectorised: rate_fn(t) with t of shape (n,) must return shape (n,)"
            )
        rate_max = 1.2 * float(grid.max())
    rate_max = float(check_positive(rate_max, "rate_max", shape=()))
    n = rng.poisson(rate_max * T)
    cand = np.sort(rng.uniform(0.0, T, size=n))
    lam = np.asarray(rate_fn(cand), dtype=np.float64).reshape(n)
    if not np.all(np.isfinite(lam)) or np.any(lam < 0):
        raise ValueError("rate_fn returned a negative or non-finite value")
    if np.any(lam > rate_max):
        raise ValueError(f"rate_fn exceeds rate_max={rate_max} on [0, T]; pass a larger rate_max")
    keep = rng.uniform(size=n) * rate_max < lam
    times = cand[keep]
    return times, np.zeros(times.shape[0], dtype=np.int64)


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
