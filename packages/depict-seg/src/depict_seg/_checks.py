"""papershelf's shared input checks: one vocabulary, one rule, in every package.

This file is vendored: every package carries a byte-identical copy at ``src/<pkg>/_checks.py``
(``python tools/sync_checks.py`` writes them; ``tools/check_packages.py`` fails on a copy that
differs from ``tools/template/src/__import_name__/_checks.py``). Edit the template, then sync.

The rule: a value of the wrong *type* raises ``TypeError``, a value of the right type but a wrong
*value* (shape, range, NaN, emptiness, unknown option) raises ``ValueError``. Both messages start
with the argument's name and say what was received. Every check takes the value first, its name
second, and options keyword-only; each returns the value in canonical form (a float64 array, a
Python ``int``, a ``numpy.random.Generator``, ...). Nothing is clamped, dropped or coerced to NaN.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

__all__ = [
    "check_array",
    "check_bool",
    "check_callable",
    "check_float",
    "check_generator",
    "check_int",
    "check_option",
    "check_probability",
    "check_rng",
    "check_same_length",
    "check_tensor",
    "describe",
]

_KINDS = {
    "float": "biuf",  # any real numeric (bool allowed), returned as float64
    "numeric": "iuf",  # integer or float, dtype kept
    "int": "iu",  # integer dtype (bool refused), dtype kept
    "bool": "b",
    "any": None,
}


def describe(value: Any) -> str:
    """A short description of what was received, for error messages."""
    if isinstance(value, np.ndarray):
        return f"array of shape {value.shape} and dtype {value.dtype}"
    module = type(value).__module__
    if module.startswith("torch") and hasattr(value, "shape") and hasattr(value, "dtype"):
        return f"tensor of shape {tuple(value.shape)} and dtype {value.dtype}"
    text = repr(value)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{type(value).__name__} {text}"


def _ndim_ok(ndim: int | Sequence[int] | None, actual: int) -> bool:
    if ndim is None:
        return True
    if isinstance(ndim, int):
        return actual == ndim
    return actual in tuple(ndim)


def _ndim_text(ndim: int | Sequence[int]) -> str:
    if isinstance(ndim, int):
        return f"{ndim}-d"
    opts = tuple(ndim)
    return " or ".join(f"{d}-d" for d in opts)


def _shape_ok(shape: Sequence[int | None], actual: tuple[int, ...]) -> bool:
    return len(shape) == len(actual) and all(s is None or s == a for s, a in zip(shape, actual))


def _shape_text(shape: Sequence[int | None]) -> str:
    return "(" + ", ".join("any" if s is None else str(s) for s in shape) + ")"


def check_array(
    value: Any,
    name: str,
    *,
    ndim: int | Sequence[int] | None = None,
    dtype: str = "float",
    shape: Sequence[int | None] | None = None,
    allow_empty: bool = False,
    finite: bool = True,
) -> np.ndarray:
    """Return ``value`` as a numpy array after checking its type, dtype, shape and values.

    Parameters
    ----------
    value
        Anything ``numpy.asarray`` accepts. ``None``, strings, objects, complex numbers and
        ragged sequences raise ``TypeError``.
    name
        The argument's name, used in the messages.
    ndim
        Required number of dimensions (an int or a sequence of allowed ints).
    dtype
        ``"float"`` (any real numeric, returned as float64), ``"numeric"`` (integer or float,
        dtype kept), ``"int"`` (integer dtype; an integral float array is accepted and
        converted), ``"bool"``, or ``"any"`` (numeric or bool, dtype kept).
    shape
        Required shape; ``None`` entries match any length, e.g. ``(None, 3)``.
    allow_empty
        Whether an array with no elements is accepted.
    finite
        Whether NaN and +-inf are refused (``ValueError``).
    """
    if dtype not in _KINDS:
        raise ValueError(f"dtype must be one of {sorted(_KINDS)}, got {dtype!r}")
    if value is None or isinstance(value, str | bytes):
        raise TypeError(f"{name} must be an array of numbers, got {describe(value)}")
    if type(value).__module__.startswith("torch") and hasattr(value, "detach"):
        raise TypeError(f"{name} must be a numpy array or sequence, got {describe(value)}")
    try:
        arr = np.asarray(value)
    except (ValueError, TypeError) as e:  # ragged nested sequences
        raise TypeError(f"{name} must be a rectangular array of numbers ({e})") from None
    kinds = _KINDS[dtype]
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"{name} must hold real numbers, got {describe(arr)}")
    if dtype == "int" and arr.dtype.kind == "f":
        if arr.size and not (np.all(np.isfinite(arr)) and np.all(arr == np.round(arr))):
            raise TypeError(f"{name} must hold integers, got non-integral {describe(arr)}")
        arr = arr.astype(np.int64)
    elif kinds is not None and arr.dtype.kind not in kinds:
        want = {
            "float": "real numbers",
            "numeric": "numbers",
            "int": "integers",
            "bool": "booleans",
        }
        raise TypeError(f"{name} must hold {want[dtype]}, got {describe(arr)}")
    if ndim is not None and not _ndim_ok(ndim, arr.ndim):
        raise ValueError(f"{name} must be {_ndim_text(ndim)}, got shape {arr.shape}")
    if shape is not None and not _shape_ok(shape, arr.shape):
        raise ValueError(f"{name} must have shape {_shape_text(shape)}, got shape {arr.shape}")
    if arr.size == 0 and not allow_empty:
        raise ValueError(f"{name} must not be empty, got shape {arr.shape}")
    if dtype == "float":
        arr = arr.astype(np.float64, copy=False)
    if finite and arr.dtype.kind == "f" and not np.all(np.isfinite(arr)):
        bad = int(np.size(arr) - np.count_nonzero(np.isfinite(arr)))
        raise ValueError(f"{name} must be finite, got {bad} NaN or infinite value(s)")
    return arr


_TORCH_KINDS = ("floating", "integer", "bool", "any")


def check_tensor(
    value: Any,
    name: str,
    *,
    ndim: int | Sequence[int] | None = None,
    dtype: str = "floating",
    shape: Sequence[int | None] | None = None,
    allow_empty: bool = False,
    finite: bool = True,
) -> Any:
    """Check a ``torch.Tensor`` (returned unchanged). Same options as :func:`check_array`, with
    ``dtype`` one of ``"floating"``, ``"integer"``, ``"bool"``, ``"any"`` (complex is refused)."""
    if dtype not in _TORCH_KINDS:
        raise ValueError(f"dtype must be one of {list(_TORCH_KINDS)}, got {dtype!r}")
    if not (type(value).__module__.startswith("torch") and hasattr(value, "is_floating_point")):
        raise TypeError(f"{name} must be a torch.Tensor, got {describe(value)}")
    import torch

    if not isinstance(value, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, got {describe(value)}")
    is_float = value.is_floating_point()
    is_bool = value.dtype == torch.bool
    if value.is_complex():
        raise TypeError(f"{name} must be a real tensor, got {describe(value)}")
    ok = {
        "floating": is_float,
        "integer": not is_float and not is_bool,
        "bool": is_bool,
        "any": True,
    }[dtype]
    if not ok:
        raise TypeError(f"{name} must be a {dtype} tensor, got {describe(value)}")
    actual = tuple(value.shape)
    if ndim is not None and not _ndim_ok(ndim, value.ndim):
        raise ValueError(f"{name} must be {_ndim_text(ndim)}, got shape {actual}")
    if shape is not None and not _shape_ok(shape, actual):
        raise ValueError(f"{name} must have shape {_shape_text(shape)}, got shape {actual}")
    if value.numel() == 0 and not allow_empty:
        raise ValueError(f"{name} must not be empty, got shape {actual}")
    if finite and is_float and value.numel() and not bool(torch.isfinite(value).all()):
        bad = int((~torch.isfinite(value)).sum())
        raise ValueError(f"{name} must be finite, got {bad} NaN or infinite value(s)")
    return value


def _is_int(value: Any) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool | np.bool_)


def check_int(
    value: Any, name: str, *, minimum: int | None = None, maximum: int | None = None
) -> int:
    """A Python or numpy integer (not bool, not float) within ``[minimum, maximum]``."""
    if not _is_int(value):
        raise TypeError(f"{name} must be an integer, got {describe(value)}")
    value = int(value)
    if minimum is not None and value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    if maximum is not None and value > maximum:
        raise ValueError(f"{name} must be <= {maximum}, got {value}")
    return value


def check_float(
    value: Any,
    name: str,
    *,
    minimum: float | None = None,
    maximum: float | None = None,
    min_inclusive: bool = True,
    max_inclusive: bool = True,
    finite: bool = True,
) -> float:
    """A real number (int, float or numpy scalar; not bool, not str) within the given bounds."""
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if not isinstance(value, numbers.Real) or isinstance(value, bool | np.bool_):
        raise TypeError(f"{name} must be a real number, got {describe(value)}")
    value = float(value)
    if value != value:
        raise ValueError(f"{name} must be a number, got nan")
    if finite and value in (float("inf"), float("-inf")):
        raise ValueError(f"{name} must be finite, got {value}")
    if minimum is not None and (value < minimum or (not min_inclusive and value == minimum)):
        op = ">=" if min_inclusive else ">"
        raise ValueError(f"{name} must be {op} {minimum}, got {value}")
    if maximum is not None and (value > maximum or (not max_inclusive and value == maximum)):
        op = "<=" if max_inclusive else "<"
        raise ValueError(f"{name} must be {op} {maximum}, got {value}")
    return value


def check_probability(
    value: Any, name: str, *, allow_zero: bool = True, allow_one: bool = True
) -> float:
    """A probability in [0, 1]; ``allow_zero``/``allow_one`` make an end of the interval open."""
    return check_float(
        value, name, minimum=0.0, maximum=1.0, min_inclusive=allow_zero, max_inclusive=allow_one
    )


def check_bool(value: Any, name: str) -> bool:
    """``True`` or ``False`` (a numpy bool too); 0/1, strings and None are refused."""
    if not isinstance(value, bool | np.bool_):
        raise TypeError(f"{name} must be True or False, got {describe(value)}")
    return bool(value)


def check_option(value: Any, name: str, options: Iterable[Any]) -> Any:
    """One of ``options``. A value of another type than the options raises ``TypeError``."""
    opts = tuple(options)
    if opts and all(isinstance(o, str) for o in opts) and not isinstance(value, str):
        raise TypeError(f"{name} must be one of {list(opts)}, got {describe(value)}")
    try:
        ok = value in opts
    except TypeError:  # unhashable/uncomparable
        ok = False
    if not ok:
        raise ValueError(f"{name} must be one of {list(opts)}, got {value!r}")
    return value


def check_callable(value: Any, name: str) -> Any:
    if not callable(value):
        raise TypeError(f"{name} must be callable, got {describe(value)}")
    return value


def check_rng(rng: Any, name: str = "rng") -> np.random.Generator:
    """SPEC 7: ``None`` (fresh entropy), a non-negative int seed, a ``SeedSequence``, a
    ``BitGenerator`` or a ``Generator`` (used as is) -> a ``numpy.random.Generator``."""
    if rng is None or isinstance(rng, np.random.Generator):
        return np.random.default_rng(rng)
    if isinstance(rng, np.random.SeedSequence | np.random.BitGenerator):
        return np.random.default_rng(rng)
    if _is_int(rng):
        if rng < 0:
            raise ValueError(f"{name} seed must be >= 0, got {int(rng)}")
        return np.random.default_rng(int(rng))
    if isinstance(rng, np.random.RandomState):
        raise TypeError(
            f"{name} must be None, an int seed or a numpy.random.Generator; got the legacy "
            "RandomState (use numpy.random.default_rng)"
        )
    raise TypeError(
        f"{name} must be None, an int seed or a numpy.random.Generator, got {describe(rng)}"
    )


def check_generator(generator: Any, name: str = "generator") -> Any:
    """``None`` or a ``torch.Generator`` (torch code's randomness argument)."""
    if generator is None:
        return None
    if type(generator).__module__.startswith("torch"):
        import torch

        if isinstance(generator, torch.Generator):
            return generator
    raise TypeError(f"{name} must be None or a torch.Generator, got {describe(generator)}")


def check_same_length(**arrays: Any) -> int:
    """All keyword arrays have the same length along axis 0; returns it.

    ``check_same_length(x=x, y=y)`` raises ``ValueError: y has 4 rows but x has 5; ...``.
    """
    if not arrays:
        raise TypeError("check_same_length needs at least one named array")
    items = [
        (k, len(v) if not hasattr(v, "shape") else (v.shape[0] if v.shape else 0))
        for k, v in arrays.items()
    ]
    first, n0 = items[0]
    for k, n in items[1:]:
        if n != n0:
            raise ValueError(f"{k} has {n} rows but {first} has {n0}; they must match")
    return n0
