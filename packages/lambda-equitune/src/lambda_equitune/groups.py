"""Finite groups acting on tensors.

Every group lists its ``elements`` (plain ints ``0 .. order - 1``; element ``0`` is the identity)
and offers ``act(x, g)`` (a left action: ``act(act(x, h), g) == act(x, compose(g, h))``),
``inverse(g)``, ``compose(g, h)`` and ``identity``. The image groups act on the last two dimensions
of a tensor (``[..., H, W]``); ``Rot90`` and ``D4`` need ``H == W``.

Conventions (``torch`` names):

- ``Rot90``: element ``k`` is ``torch.rot90(x, k, dims=(-2, -1))`` (k quarter turns, counter-clockwise
  as displayed with row 0 on top).
- ``HFlip``: element ``1`` mirrors left-right, ``torch.flip(x, (-1,))``.
- ``VFlip``: element ``1`` mirrors top-bottom, ``torch.flip(x, (-2,))``.
- ``Rot180Flip``: element ``1`` is ``torch.flip(x, (-2, -1))``: what the authors' released CLIP code
  calls "flip". It flips *both* axes, so it is the 180° rotation, not a mirror image.
- ``D4``: element ``i = 4 s + k`` is ``rot90(hflip^s(x), k)`` (s in {0, 1}, k in 0..3).
- ``TokenSwap(pairs)``: exchanges token ids pairwise (``a <-> b`` for each chosen pair) in integer
  tensors of any shape; element bit ``j`` set means pair ``j`` is swapped (the verb/direction swaps
  of the paper's SCAN and fairness experiments).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

import torch

from ._checks import check_int, check_tensor, describe

__all__ = [
    "D4",
    "Group",
    "HFlip",
    "Rot180Flip",
    "Rot90",
    "TokenSwap",
    "Trivial",
    "VFlip",
]


@runtime_checkable
class Group(Protocol):
    """What the wrappers need from a finite group."""

    elements: tuple[int, ...]

    def act(self, x: torch.Tensor, g: int) -> torch.Tensor: ...

    def inverse(self, g: int) -> int: ...


class _FiniteGroup:
    """Shared machinery: element checks, ``order``, ``identity``, ``compose`` from a table."""

    name = "group"
    order = 1

    @property
    def elements(self) -> tuple[int, ...]:
        return tuple(range(self.order))

    @property
    def identity(self) -> int:
        return 0

    def __len__(self) -> int:
        return self.order

    def __iter__(self):
        return iter(self.elements)

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and repr(self) == repr(other)

    def __hash__(self) -> int:
        return hash(repr(self))

    def _check_element(self, g: Any, name: str = "g") -> int:
        return check_int(g, name, minimum=0, maximum=self.order - 1)

    def _check_x(self, x: Any, name: str = "x") -> torch.Tensor:
        check_tensor(x, name, dtype="any", allow_empty=True, finite=False)
        if x.ndim < 2:
            raise ValueError(
                f"{name} must have at least 2 dimensions (..., H, W), got shape {tuple(x.shape)}"
            )
        return x

    def _check_square(self, x: torch.Tensor, name: str = "x") -> None:
        if x.shape[-1] != x.shape[-2]:
            raise ValueError(
                f"{name} must be square in its last two dimensions for {type(self).__name__} "
                f"(H == W), got shape {tuple(x.shape)}"
            )

    def inverse(self, g: int) -> int:
        g = self._check_element(g)
        for h in self.elements:
            if self._compose(g, h) == 0:
                return h
        raise AssertionError("unreachable: every element of a group has an inverse")

    def compose(self, g: int, h: int) -> int:
        """The element ``g h`` (first ``h``, then ``g``)."""
        return self._compose(self._check_element(g, "g"), self._check_element(h, "h"))

    def _compose(self, g: int, h: int) -> int:  # pragma: no cover - overridden
        raise NotImplementedError

    def act_output(self, y: torch.Tensor, g: int) -> torch.Tensor:
        """The same action on an output (for equivariant, e.g. dense, outputs)."""
        return self.act(y, g)


class Trivial(_FiniteGroup):
    """The one-element group: the wrappers reduce to the plain model."""

    name = "trivial"
    order = 1

    def act(self, x: torch.Tensor, g: int) -> torch.Tensor:
        check_tensor(x, "x", dtype="any", allow_empty=True, finite=False)
        self._check_element(g)
        return x

    def _compose(self, g: int, h: int) -> int:
        return 0


class Rot90(_FiniteGroup):
    """C4: rotations by multiples of 90° of the last two (square) dimensions."""

    name = "rot90"
    order = 4

    def act(self, x: torch.Tensor, g: int) -> torch.Tensor:
        x = self._check_x(x)
        self._check_square(x)
        g = self._check_element(g)
        return torch.rot90(x, g, dims=(-2, -1)) if g else x

    def _compose(self, g: int, h: int) -> int:
        return (g + h) % 4


class _Flip(_FiniteGroup):
    order = 2
    dims: tuple[int, ...] = ()

    def act(self, x: torch.Tensor, g: int) -> torch.Tensor:
        x = self._check_x(x)
        g = self._check_element(g)
        return torch.flip(x, self.dims) if g else x

    def _compose(self, g: int, h: int) -> int:
        return g ^ h


class HFlip(_Flip):
    """Horizontal (left-right) mirror: ``torch.flip(x, (-1,))``."""

    name = "hflip"
    dims = (-1,)


class VFlip(_Flip):
    """Vertical (top-bottom) mirror: ``torch.flip(x, (-2,))``."""

    name = "vflip"
    dims = (-2,)


class Rot180Flip(_Flip):
    """The released CLIP code's "flip": ``torch.flip(x, (-2, -1))``, i.e. a 180° rotation."""

    name = "rot180flip"
    dims = (-2, -1)


class D4(_FiniteGroup):
    """The dihedral group of the square (8 elements): element ``4 s + k`` = ``rot90^k ∘ hflip^s``."""

    name = "d4"
    order = 8

    def act(self, x: torch.Tensor, g: int) -> torch.Tensor:
        x = self._check_x(x)
        self._check_square(x)
        g = self._check_element(g)
        s, k = divmod(g, 4)
        if s:
            x = torch.flip(x, (-1,))
        return torch.rot90(x, k, dims=(-2, -1)) if k else x

    def _compose(self, g: int, h: int) -> int:
        # (R^a F^s)(R^b F^t) = R^(a + (-1)^s b) F^(s + t), since F R = R^-1 F.
        s, a = divmod(g, 4)
        t, b = divmod(h, 4)
        k = (a + (-b if s else b)) % 4
        return 4 * ((s + t) % 2) + k


class TokenSwap(_FiniteGroup):
    """Pairwise exchanges of token ids, e.g. ``TokenSwap([(id_jump, id_run)])``.

    ``pairs`` are disjoint ``(a, b)`` pairs of non-negative ids; the group is ``(Z_2)^len(pairs)``
    and element ``g`` swaps every pair ``j`` whose bit ``j`` is set. ``act`` works on integer
    tensors of any shape (token ids); other ids are left unchanged.
    """

    name = "tokenswap"

    def __init__(self, pairs: Sequence[tuple[int, int]]) -> None:
        if isinstance(pairs, str | bytes) or not isinstance(pairs, Sequence):
            raise TypeError(f"pairs must be a sequence of (a, b) id pairs, got {describe(pairs)}")
        if len(pairs) == 0:
            raise ValueError("pairs must not be empty, got 0 pairs")
        if len(pairs) > 16:
            raise ValueError(f"pairs must hold at most 16 pairs (2**16 elements), got {len(pairs)}")
        clean: list[tuple[int, int]] = []
        seen: set[int] = set()
        for i, p in enumerate(pairs):
            if not isinstance(p, Sequence) or isinstance(p, str | bytes) or len(p) != 2:
                raise TypeError(f"pairs[{i}] must be an (a, b) pair of ids, got {describe(p)}")
            a = check_int(p[0], f"pairs[{i}][0]", minimum=0)
            b = check_int(p[1], f"pairs[{i}][1]", minimum=0)
            if a == b or a in seen or b in seen:
                raise ValueError(f"pairs must be disjoint pairs of distinct ids, got {p!r} at {i}")
            seen.update((a, b))
            clean.append((a, b))
        self.pairs = tuple(clean)
        self.order = 2 ** len(clean)

    def __repr__(self) -> str:
        return f"TokenSwap({list(self.pairs)!r})"

    def act(self, x: torch.Tensor, g: int) -> torch.Tensor:
        check_tensor(x, "x", dtype="integer", allow_empty=True)
        g = self._check_element(g)
        out = x.clone()
        for j, (a, b) in enumerate(self.pairs):
            if (g >> j) & 1:
                out[x == a] = b
                out[x == b] = a
        return out

    def _compose(self, g: int, h: int) -> int:
        return g ^ h


def check_group(group: Any, name: str = "group") -> Any:
    """A group for the wrappers: ``elements`` (non-empty), ``act`` and ``inverse``."""
    for attr in ("elements", "act", "inverse"):
        if not hasattr(group, attr):
            raise TypeError(
                f"{name} must be a group with elements, act(x, g) and inverse(g) "
                f"(e.g. lambda_equitune.groups.Rot90()), got {describe(group)}"
            )
    if not callable(group.act) or not callable(group.inverse):
        raise TypeError(f"{name}.act and {name}.inverse must be callable, got {describe(group)}")
    if len(tuple(group.elements)) == 0:
        raise ValueError(f"{name} must have at least one element, got none")
    return group
