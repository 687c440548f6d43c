"""Central Gaussian differential privacy for federated averaging (clipping, noise, adaptive C)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from ._checks import (
    check_bool,
    check_float,
    check_generator,
    check_int,
    check_option,
    check_probability,
    describe,
)
from .accounting import ACCOUNTANTS, compute_epsilon, compute_noise_multiplier

__all__ = ["CentralGaussian", "PrivateAggregate"]


@dataclass(frozen=True)
class PrivateAggregate:
    """The result of one round of :meth:`CentralGaussian.aggregate`.

    ``mean``: the noisy mean update (clipped sum + noise, divided by the cohort size m);
    ``clip_bound``: the bound used this round; ``next_clip_bound``: the bound for the next round
    (equal to ``clip_bound`` without adaptive clipping); ``clipped_fraction``: the fraction of the
    cohort whose update was clipped (a non-private diagnostic); ``noise_std``: the standard
    deviation of the noise in ``mean`` per coordinate; ``signal_to_noise``: the L2 norm of the
    clipped sum over the L2 norm of the noise added to it (``inf`` without noise).
    """

    mean: object
    clip_bound: float
    next_clip_bound: float
    clipped_fraction: float
    noise_std: float
    signal_to_noise: float


@dataclass(frozen=True, kw_only=True)
class CentralGaussian:
    """The central Gaussian mechanism of pfl-research, applied once per round to the cohort.

    Each user's model update (all parameters as one vector) is clipped to L2 norm
    ``<= clip_bound`` (C); the clipped updates are summed, ``N(0, (sigma * C * m / C_noise)^2)``
    is added once per coordinate, and the sum is divided by the cohort size m. ``sigma`` is
    ``noise_multiplier``; ``C_noise`` is ``noise_cohort_size`` (default: the cohort size): the
    noise is scaled down by ``m / C_noise`` so that the signal-to-noise ratio is that of a cohort
    of ``C_noise`` users, and the privacy is accounted with ``q = max(m, C_noise) / population``.
    ``noise_cohort_size < m`` raises ``ValueError``.

    With ``adaptive=True`` the clipping bound follows the ``target_quantile`` of the update norms
    (Andrew et al. 2021): each user also reports the bit ``||delta|| <= C``; the server adds
    ``N(0, indicator_noise_std^2)`` (in units of the noise cohort, default ``0.1 * C_noise``) to
    their count and sets ``C <- C * exp(-clip_lr * (fraction_unclipped - target_quantile))``.
    The bit's privacy cost comes out of the same budget: the update's noise multiplier becomes
    ``(sigma^-2 - (2 * indicator_noise_std)^-2)^-1/2`` (Andrew et al., Theorem 1), so that
    ``noise_multiplier`` remains the total mechanism's sigma for the accountant.
    """

    clip_bound: float
    noise_multiplier: float
    noise_cohort_size: int | None = None
    adaptive: bool = False
    target_quantile: float = 0.5
    clip_lr: float = 0.2
    indicator_noise_std: float | None = None

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        set_(
            self,
            "clip_bound",
            check_float(self.clip_bound, "clip_bound", minimum=0.0, min_inclusive=False),
        )
        set_(
            self,
            "noise_multiplier",
            check_float(self.noise_multiplier, "noise_multiplier", minimum=0.0),
        )
        if self.noise_cohort_size is not None:
            set_(
                self,
                "noise_cohort_size",
                check_int(self.noise_cohort_size, "noise_cohort_size", minimum=1),
            )
        set_(self, "adaptive", check_bool(self.adaptive, "adaptive"))
        set_(
            self,
            "target_quantile",
            check_probability(self.target_quantile, "target_quantile"),
        )
        set_(self, "clip_lr", check_float(self.clip_lr, "clip_lr", minimum=0.0))
        if self.indicator_noise_std is not None:
            set_(
                self,
                "indicator_noise_std",
                check_float(
                    self.indicator_noise_std,
                    "indicator_noise_std",
                    minimum=0.0,
                    min_inclusive=False,
                ),
            )

    # --------------------------------------------------------------------- derived numbers
    def _check_cohort(self, cohort_size) -> int:
        m = check_int(cohort_size, "cohort_size", minimum=1)
        if self.noise_cohort_size is not None and self.noise_cohort_size < m:
            raise ValueError(
                f"noise_cohort_size must be >= the cohort size {m}, got {self.noise_cohort_size}"
            )
        return m

    def noise_scale(self, cohort_size) -> float:
        """``m / noise_cohort_size`` (1 without a noise cohort): the factor on the noise std."""
        m = self._check_cohort(cohort_size)
        return 1.0 if self.noise_cohort_size is None else m / self.noise_cohort_size

    def sampling_prob(self, cohort_size, population) -> float:
        """The accountant's q: ``max(cohort_size, noise_cohort_size) / population``."""
        m = self._check_cohort(cohort_size)
        n = check_int(population, "population", minimum=1)
        big = max(m, self.noise_cohort_size or m)
        if big > n:
            raise ValueError(
                f"population must be >= max(cohort_size, noise_cohort_size) = {big}, got {n}"
            )
        return big / n

    def indicator_std(self, cohort_size) -> float:
        """The indicator-count noise std in noise-cohort units (default 0.1 * C_noise)."""
        m = self._check_cohort(cohort_size)
        if self.indicator_noise_std is not None:
            return self.indicator_noise_std
        return 0.1 * max(m, self.noise_cohort_size or m)

    def delta_noise_multiplier(self, cohort_size) -> float:
        """The noise multiplier on the update itself (``noise_multiplier`` without adaptive)."""
        sigma = self.noise_multiplier
        if not self.adaptive or sigma == 0.0:
            return sigma
        sb = self.indicator_std(cohort_size)
        if 2 * sb <= sigma:
            raise ValueError(
                "indicator_noise_std must be > noise_multiplier / 2 for adaptive clipping "
                f"(Andrew et al.), got {sb} with noise_multiplier {sigma}"
            )
        return (sigma**-2 - (2 * sb) ** -2) ** -0.5

    def epsilon(self, *, delta, cohort_size, population, rounds, accountant="pld") -> float:
        """The epsilon this mechanism spends over ``rounds`` rounds (Poisson-sampling analysis)."""
        q = self.sampling_prob(cohort_size, population)
        if self.noise_multiplier == 0.0:
            return math.inf
        return compute_epsilon(
            self.noise_multiplier, sampling_prob=q, steps=rounds, delta=delta, accountant=accountant
        )

    @classmethod
    def from_budget(
        cls,
        epsilon,
        *,
        delta,
        cohort_size,
        population=None,
        rounds=None,
        clip_bound,
        noise_cohort_size=None,
        accountant="pld",
        sampling_prob=None,
        steps=None,
        **options,
    ) -> CentralGaussian:
        """The mechanism with the smallest sigma (to 0.1%) that spends at most ``epsilon``.

        ``q = max(cohort_size, noise_cohort_size) / population`` (or give ``sampling_prob``
        directly) and ``rounds`` compositions (``steps`` is accepted as a synonym); ``options``
        are the adaptive-clipping fields (``adaptive``, ``target_quantile``, ...).
        """
        check_option(accountant, "accountant", ACCOUNTANTS)
        probe = cls(
            clip_bound=clip_bound,
            noise_multiplier=1.0,
            noise_cohort_size=noise_cohort_size,
            **options,
        )
        if (population is None) == (sampling_prob is None):
            raise TypeError("from_budget needs exactly one of population or sampling_prob")
        if (rounds is None) == (steps is None):
            raise TypeError("from_budget needs exactly one of rounds or steps")
        if population is not None:
            q = probe.sampling_prob(cohort_size, population)
        else:
            probe._check_cohort(cohort_size)
            q = sampling_prob
        sigma = compute_noise_multiplier(
            epsilon,
            sampling_prob=q,
            steps=rounds if rounds is not None else steps,
            delta=delta,
            accountant=accountant,
        )
        return cls(
            clip_bound=clip_bound,
            noise_multiplier=sigma,
            noise_cohort_size=noise_cohort_size,
            **options,
        )

    # ------------------------------------------------------------------------ aggregation
    def _finish(self, clipped_sum, n_unclipped, m, clip_bound, generator):
        """Noise the clipped sum (and the indicator count), divide by m, adapt C."""
        import torch

        scale = self.noise_scale(m)
        std_sum = self.delta_noise_multiplier(m) * clip_bound * scale
        if std_sum > 0:
            noise = torch.randn(clipped_sum.shape, generator=generator, dtype=clipped_sum.dtype).to(
                clipped_sum.device
            )
            noise.mul_(std_sum)
            noise_norm = float(noise.norm())
            snr = float(clipped_sum.norm()) / noise_norm if noise_norm > 0 else math.inf
            mean = (clipped_sum + noise) / m
        else:
            snr = math.inf
            mean = clipped_sum / m
        next_c = clip_bound
        if self.adaptive:
            count = float(n_unclipped)
            sb = self.indicator_std(m) * scale
            if sb > 0 and self.noise_multiplier > 0:
                count += sb * float(torch.randn((), generator=generator, dtype=torch.float64))
            next_c = clip_bound * math.exp(-self.clip_lr * (count / m - self.target_quantile))
        return mean, next_c, std_sum / m, snr

    def aggregate(self, deltas, *, clip_bound=None, generator=None) -> PrivateAggregate:
        """One round on the cohort's updates: ``deltas`` is an (m, d) tensor or array (one row
        per user). ``clip_bound`` overrides the bound (the adaptive state); ``generator`` a
        ``torch.Generator`` for the noise. Returns a :class:`PrivateAggregate`.
        """
        import torch

        from ._checks import check_array, check_tensor

        if isinstance(deltas, torch.Tensor):
            d = check_tensor(deltas, "deltas", ndim=2)
        else:
            d = torch.as_tensor(check_array(deltas, "deltas", ndim=2))
        c = (
            self.clip_bound
            if clip_bound is None
            else check_float(clip_bound, "clip_bound", minimum=0.0, min_inclusive=False)
        )
        generator = check_generator(generator, "generator")
        m = d.shape[0]
        self._check_cohort(m)
        norms = torch.linalg.vector_norm(d, dim=1)
        factors = torch.clamp(c / torch.clamp(norms, min=torch.finfo(d.dtype).tiny), max=1.0)
        clipped_sum = (d * factors[:, None]).sum(0)
        n_unclipped = int((norms <= c).sum())
        mean, next_c, noise_std, snr = self._finish(clipped_sum, n_unclipped, m, c, generator)
        return PrivateAggregate(
            mean=mean,
            clip_bound=c,
            next_clip_bound=next_c,
            clipped_fraction=1.0 - n_unclipped / m,
            noise_std=noise_std,
            signal_to_noise=snr,
        )


def _check_privacy(privacy):
    if privacy is not None and not isinstance(privacy, CentralGaussian):
        raise TypeError(f"privacy must be None or a CentralGaussian, got {describe(privacy)}")
    return privacy
