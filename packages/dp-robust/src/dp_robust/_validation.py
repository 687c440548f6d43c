"""dp-robust's own input checks, built on the shared vocabulary in `_checks` (never edit that file).

Wrong type -> ``TypeError``, wrong value -> ``ValueError``; both name the argument and what was
received (the rule of `_checks`).
"""

from __future__ import annotations

import numbers

import numpy as np

from ._checks import check_array, check_float, check_option, describe

__all__ = [
    "check_phi",
    "check_positive",
    "check_random_state",
    "check_sampler_output",
    "call_sampler",
]


def check_positive(value, name: str) -> float:
    """A finite real number > 0."""
    return check_float(value, name, minimum=0.0, min_inclusive=False)


def check_phi(phi, name: str = "phi"):
    """``"exp"``, ``"power"``, ``"identity"`` or a ``(phi, phi_prime)`` pair of callables."""
    if isinstance(phi, tuple):
        if len(phi) != 2 or not all(callable(f) for f in phi):
            raise TypeError(
                f"{name} must be one of ['exp', 'power', 'identity'] or a (phi, phi_prime) pair "
                f"of callables, got {describe(phi)}"
            )
        return phi
    if not isinstance(phi, str):
        raise TypeError(
            f"{name} must be one of ['exp', 'power', 'identity'] or a (phi, phi_prime) pair of "
            f"callables, got {describe(phi)}"
        )
    return check_option(phi, name, ("exp", "power", "identity"))


def check_random_state(value, name: str = "random_state"):
    """scikit-learn's ``random_state``: None, a non-negative int, a ``RandomState``, or (as the
    samplers accept) a ``numpy.random.Generator``. Returned unchanged."""
    if value is None or isinstance(value, np.random.RandomState | np.random.Generator):
        return value
    if isinstance(value, numbers.Integral) and not isinstance(value, bool | np.bool_):
        if value < 0:
            raise ValueError(f"{name} seed must be >= 0, got {int(value)}")
        return value
    raise TypeError(
        f"{name} must be None, an int, a numpy.random.RandomState or a numpy.random.Generator, "
        f"got {describe(value)}"
    )


def check_sampler_output(draws, name: str, size: int, width: int | None) -> np.ndarray:
    """What a p0 sampler returned for ``size`` draws: a finite (size, width) float array."""
    try:
        arr = check_array(draws, f"{name} output", ndim=(1, 2))
    except TypeError as err:
        raise TypeError(f"{name}(rng, {size}) must return an array of numbers: {err}") from None
    except ValueError as err:
        raise ValueError(f"{name}(rng, {size}) returned a bad array: {err}") from None
    if arr.ndim == 1:
        arr = arr.reshape(-1, 1) if width in (None, 1) else arr
    if arr.ndim != 2 or arr.shape[0] != size or (width is not None and arr.shape[1] != width):
        want = f"({size}, {width})" if width is not None else f"({size}, D)"
        raise ValueError(f"{name}(rng, {size}) must return shape {want}, got shape {arr.shape}")
    return arr


def call_sampler(sampler, name: str, rng, size: int, width: int | None) -> np.ndarray:
    """Call a p0 sampler ``sampler(rng, size)`` and check its output (errors name ``name``)."""
    try:
        draws = sampler(rng, size)
    except TypeError as err:
        raise TypeError(
            f"{name} must be callable as {name}(rng, size) -> (size, D) array; calling it raised "
            f"TypeError: {err}"
        ) from err
    return check_sampler_output(draws, name, size, width)
