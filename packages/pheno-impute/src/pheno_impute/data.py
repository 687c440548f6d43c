"""Synthetic cohorts with known ground truth (no patient data ships with the package)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from ._checks import check_float, check_int, check_probability, check_rng, describe
from ._validation import check_table

__all__ = ["Cohort", "Holdout", "holdout", "synthetic_cohort"]


@dataclass(frozen=True)
class Cohort:
    """A synthetic cohort.

    ``X`` (n, n_phenotypes + n_features): the observed table, NaN = missing, phenotype columns
    first; ``phenotypes`` (n, n_phenotypes) the complete 0/1 truth; ``features``
    (n, n_features) the complete biological features; ``modalities`` name -> block size in
    column order; ``latent`` (n, n_latent) the patient factors that drive the phenotypes.
    """

    X: np.ndarray
    phenotypes: np.ndarray
    features: np.ndarray
    n_phenotypes: int
    modalities: dict
    latent: np.ndarray


@dataclass(frozen=True)
class Holdout:
    """``X`` the table with the held-out phenotype entries set to NaN; ``test_mask``
    (n, n_phenotypes) the held-out (previously observed) entries; ``train_mask`` the phenotype
    entries still observed in ``X``."""

    X: np.ndarray
    test_mask: np.ndarray
    train_mask: np.ndarray


def synthetic_cohort(
    n_patients: int,
    n_phenotypes: int,
    *,
    modalities: Mapping[str, int] | None = None,
    n_latent: int = 8,
    bio_signal: float = 1.0,
    modality_missing: float = 0.3,
    entry_missing: float = 0.2,
    phenotype_missing: float = 0.5,
    rng=None,
) -> Cohort:
    """Latent patient factors u ~ N(0, I) drive the phenotypes (logistic, prevalences 3-30%)
    and, with weight ``bio_signal`` in [0, 1], the biological features:
    ``x = tanh(w W_k) + 0.3 noise`` with ``w = bio_signal u + sqrt(1 - bio_signal^2) v`` and
    ``v`` an independent factor irrelevant to the phenotypes (``bio_signal = 0``: biology with
    structure but pure noise for the phenotypes). Each modality is missing for a patient with
    probability ``modality_missing``, each remaining feature entry with ``entry_missing``, each
    phenotype entry with ``phenotype_missing``. Default modalities {"prot": 300, "metab": 50}.
    """
    n = check_int(n_patients, "n_patients", minimum=1)
    m = check_int(n_phenotypes, "n_phenotypes", minimum=1)
    if modalities is None:
        modalities = {"prot": 300, "metab": 50}
    if not isinstance(modalities, Mapping):
        raise TypeError(f"modalities must be a dict name -> size, got {describe(modalities)}")
    mods = {str(k): check_int(v, f"modalities[{k!r}]", minimum=1) for k, v in modalities.items()}
    n_latent = check_int(n_latent, "n_latent", minimum=1)
    s = check_float(bio_signal, "bio_signal", minimum=0.0, maximum=1.0)
    p_mod = check_probability(modality_missing, "modality_missing")
    p_entry = check_probability(entry_missing, "entry_missing", allow_one=False)
    p_phe = check_probability(phenotype_missing, "phenotype_missing", allow_one=False)
    gen = check_rng(rng)

    u = gen.standard_normal((n, n_latent))
    v = gen.standard_normal((n, n_latent))
    prevalence = gen.uniform(0.03, 0.3, m)
    loadings = gen.standard_normal((n_latent, m)) * (1.5 / np.sqrt(n_latent))
    logits = np.log(prevalence / (1 - prevalence)) + u @ loadings
    phenotypes = (gen.random((n, m)) < 1 / (1 + np.exp(-logits))).astype(np.float64)

    w = s * u + np.sqrt(1.0 - s * s) * v
    blocks, table = [], [np.where(gen.random((n, m)) < p_phe, np.nan, phenotypes)]
    for size in mods.values():
        W = gen.standard_normal((n_latent, size)) * (2.0 / np.sqrt(n_latent))
        x = np.tanh(w @ W) + 0.3 * gen.standard_normal((n, size))
        blocks.append(x)
        obs = gen.random((n, size)) >= p_entry
        obs &= (gen.random(n) >= p_mod)[:, None]
        table.append(np.where(obs, x, np.nan))
    features = np.hstack(blocks) if blocks else np.zeros((n, 0))
    return Cohort(np.hstack(table), phenotypes, features, m, mods, u)


def holdout(X, *, n_phenotypes: int, fraction: float = 0.2, rng=None) -> Holdout:
    """Hide a random ``fraction`` of the observed phenotype entries of ``X`` (set them to NaN)
    for evaluation; features are untouched."""
    X = check_table(X, "X")
    m = check_int(n_phenotypes, "n_phenotypes", minimum=1, maximum=X.shape[1])
    fraction = check_probability(fraction, "fraction", allow_zero=False, allow_one=False)
    gen = check_rng(rng)
    observed = ~np.isnan(X[:, :m])
    test = observed & (gen.random(observed.shape) < fraction)
    out = X.copy()
    out[:, :m][test] = np.nan
    return Holdout(out, test, observed & ~test)
