"""Hypothesis strategies of bad inputs, for each package's bad-input test (needs hypothesis).

Typical use::

    from hypothesis import given
    from papershelf_harness.strategies import non_numeric, non_finite_arrays
    from papershelf_harness.testing import assert_rejects

    @given(x=non_finite_arrays(shape=(20,)))
    def test_nan_or_inf_x(x):
        assert_rejects(ValueError, "x", rearrange_corr.rearranged_r, x, y)
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

__all__ = [
    "bad_probabilities",
    "negative_or_zero_ints",
    "non_finite_arrays",
    "non_finite_floats",
    "non_integers",
    "non_numeric",
    "not_rngs",
    "wrong_ndim_arrays",
]


def non_numeric(*, none: bool = True) -> st.SearchStrategy:
    """Values that are no number or numeric array: str, dict, object, complex, bytes, and None
    unless ``none=False`` (where None is a valid value of the argument)."""
    return st.one_of(
        st.text(max_size=5),
        *([st.none()] if none else []),
        st.dictionaries(st.text(max_size=2), st.integers(), max_size=2),
        st.builds(object),
        st.complex_numbers(allow_nan=False, allow_infinity=False).filter(lambda z: z.imag != 0),
        st.binary(max_size=3),
    )


def non_finite_floats() -> st.SearchStrategy[float]:
    return st.sampled_from([float("nan"), float("inf"), float("-inf")])


def non_integers(*, none: bool = True) -> st.SearchStrategy:
    """Values an integer option must refuse with TypeError: floats (even 3.0), bools, str, and
    None unless ``none=False``."""
    return st.one_of(
        st.floats(allow_nan=True, allow_infinity=True),
        st.booleans(),
        st.text(max_size=3),
        *([st.none()] if none else []),
    )


def negative_or_zero_ints(maximum: int = 0) -> st.SearchStrategy[int]:
    return st.integers(min_value=-(10**6), max_value=maximum)


def bad_probabilities() -> st.SearchStrategy[float]:
    """Out of [0, 1] or not finite."""
    return st.one_of(
        st.floats(max_value=-1e-9, allow_nan=False, allow_infinity=True),
        st.floats(min_value=1 + 1e-9, allow_nan=False, allow_infinity=True),
        non_finite_floats(),
    )


def not_rngs() -> st.SearchStrategy:
    """What ``rng=`` must refuse: str, float, bool, negative int, list of str, object."""
    return st.one_of(
        st.text(min_size=1, max_size=4),
        st.floats(),
        st.booleans(),
        st.integers(max_value=-1),
        st.builds(object),
    )


@st.composite
def non_finite_arrays(draw, shape: tuple[int, ...], *, base: float = 0.0) -> np.ndarray:
    """A float array of ``shape`` with at least one NaN or +-inf at a random place."""
    arr = np.full(shape, base, dtype=float) + draw(
        st.lists(
            st.floats(-10, 10, allow_nan=False),
            min_size=int(np.prod(shape)),
            max_size=int(np.prod(shape)),
        ).map(lambda v: np.asarray(v, dtype=float).reshape(shape))
    )
    flat = arr.reshape(-1)
    idx = draw(st.integers(0, flat.size - 1))
    flat[idx] = draw(non_finite_floats())
    return arr


@st.composite
def wrong_ndim_arrays(draw, ok_ndims: tuple[int, ...], *, max_side: int = 3) -> np.ndarray:
    """A finite float array whose ndim is NOT in ``ok_ndims`` (0 to 4 dimensions)."""
    ndim = draw(st.sampled_from([d for d in range(5) if d not in ok_ndims]))
    shape = tuple(draw(st.integers(1, max_side)) for _ in range(ndim))
    return np.ones(shape)
