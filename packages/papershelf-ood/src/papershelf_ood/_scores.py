"""Logit-based OOD scores, higher = more in-distribution (pytorch-ood's outlier scores are
the negatives of these)."""

from __future__ import annotations

import numpy as np

from ._checks import check_array, check_float

__all__ = ["energy", "max_logit", "msp"]


def _logits(logits) -> np.ndarray:
    return check_array(logits, "logits", ndim=2)


def _temperature(temperature) -> float:
    return check_float(temperature, "temperature", minimum=0.0, min_inclusive=False)


def msp(logits, *, temperature=1.0) -> np.ndarray:
    """Maximum softmax probability of each row of ``logits`` [n, C] (after dividing by
    ``temperature``): ``max_c softmax(l / T)_c``, shape [n], in [1/C, 1]."""
    z = _logits(logits) / _temperature(temperature)
    z = z - z.max(axis=1, keepdims=True)
    return 1.0 / np.exp(z).sum(axis=1)


def energy(logits, *, temperature=1.0) -> np.ndarray:
    """Negative free energy ``T * logsumexp(l / T)`` of each row of ``logits`` [n, C], shape [n]
    (Liu et al. 2020; pytorch-ood's ``EnergyBased`` returns minus this)."""
    t = _temperature(temperature)
    z = _logits(logits) / t
    m = z.max(axis=1)
    return t * (m + np.log(np.exp(z - m[:, None]).sum(axis=1)))


def max_logit(logits) -> np.ndarray:
    """Largest logit of each row of ``logits`` [n, C], shape [n] (Hendrycks et al. 2022)."""
    return _logits(logits).max(axis=1)
