"""Linear PDEs with closed-form solutions, collocation points, and their split systems."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import torch

from ._checks import check_callable, check_generator, check_int, check_option, describe
from ._validation import check_alpha, check_coeff, check_terms

__all__ = [
    "LinearPDE",
    "Points",
    "SplitSystem",
    "biharmonic",
    "euler_bernoulli_beam",
    "heat_1d",
    "poisson",
    "sample_points",
    "split_system",
]

PI = math.pi


def _check_fn(value: Any, name: str) -> Callable:
    """A callable [n, dim] -> [n], or a number (a constant function)."""
    if callable(value):
        return value
    c = check_coeff(value, name)
    return _Const(c)


class _Const:
    """A constant function of x (picklable, with a readable repr)."""

    def __init__(self, c: float) -> None:
        self.c = float(c)

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        return torch.full((x.shape[0],), self.c, dtype=x.dtype)

    def __repr__(self) -> str:
        return f"const({self.c})"


def _check_faces(value: Any, name: str, *, dim: int) -> tuple[tuple[int, int], ...] | None:
    if value is None:
        return None
    if not isinstance(value, Sequence) or isinstance(value, str):
        raise TypeError(f"{name} must be a sequence of (axis, side) pairs, got {describe(value)}")
    if len(value) == 0:
        raise ValueError(f"{name} must name at least one face, got an empty sequence")
    out = []
    for i, face in enumerate(value):
        if not isinstance(face, tuple | list) or len(face) != 2:
            raise TypeError(f"{name}[{i}] must be an (axis, side) pair, got {describe(face)}")
        axis = check_int(face[0], f"{name}[{i}] axis", minimum=0, maximum=dim - 1)
        side = check_int(face[1], f"{name}[{i}] side", minimum=0, maximum=1)
        out.append((axis, side))
    return tuple(out)


class LinearPDE:
    """L u = sum_alpha c_alpha(x) d^alpha u = f on the unit cube [0, 1]^dim, with boundary
    conditions B u = g.

    ``terms`` is ``{alpha: coeff}`` (alpha a dim-tuple of non-negative integers, coeff a number or
    a callable torch [n, dim] -> [n]); ``f``, ``exact`` and each bc's ``g`` are callables
    [n, dim] -> [n] (a number means a constant). ``bcs`` is a list of ``(terms, g)`` pairs, each
    imposed on the whole boundary, or ``(terms, g, faces)`` triples imposed on the listed faces
    only (``faces``: (axis, side) pairs, side 0 or 1; e.g. the initial time t = 0 of a column t).
    ``.bcs`` is the list of ``(terms, g)`` pairs and ``.bc_faces`` the faces of each (None: all).
    """

    def __init__(
        self,
        terms: Mapping,
        f: Any,
        *,
        dim: int,
        bcs: Sequence,
        exact: Callable | None = None,
    ) -> None:
        self.dim = check_int(dim, "dim", minimum=1)
        self.terms = check_terms(terms, "terms", dim=self.dim)
        self.f = _check_fn(f, "f")
        if exact is not None:
            check_callable(exact, "exact")
        self.exact = exact
        if isinstance(bcs, str | bytes) or not isinstance(bcs, Sequence):
            raise TypeError(f"bcs must be a list of (terms, g) pairs, got {describe(bcs)}")
        self.bcs: list[tuple[dict, Callable]] = []
        self.bc_faces: list[tuple[tuple[int, int], ...] | None] = []
        for j, bc in enumerate(bcs):
            if not isinstance(bc, tuple | list) or len(bc) not in (2, 3):
                raise TypeError(
                    f"bcs[{j}] must be a (terms, g) or (terms, g, faces) tuple, got {describe(bc)}"
                )
            bterms = check_terms(bc[0], f"bcs[{j}] terms", dim=self.dim)
            g = _check_fn(bc[1], f"bcs[{j}] g")
            faces = _check_faces(bc[2] if len(bc) == 3 else None, f"bcs[{j}] faces", dim=self.dim)
            self.bcs.append((bterms, g))
            self.bc_faces.append(faces)
        self.order = max(sum(a) for a in self.terms)
        self.name = "custom"
        self._splitter: Callable[[int], SplitSystem] | None = None

    def __repr__(self) -> str:
        return f"LinearPDE({self.name}, dim={self.dim}, order={self.order}, {len(self.bcs)} bc(s))"


# --------------------------------------------------------------------------------------------
# split systems


@dataclass(frozen=True)
class SplitSystem:
    """A PDE written as a system of equations in scalar unknowns (one network each).

    ``variables``: the unknowns' names, the first is the solution u. ``equations``: interior
    equations ``(terms, rhs)`` with ``terms`` = ``{(variable, alpha): coeff}`` meaning
    sum coeff * d^alpha variable = rhs(x). ``bcs``: ``(terms, g, faces)`` in the same form, on the
    boundary (``faces`` None = all faces). Each equation and bc is one (1/2n) mean-square term of
    the loss. ``order``: the highest derivative order in the system.
    """

    dim: int
    variables: tuple[str, ...]
    equations: tuple
    bcs: tuple

    def __post_init__(self) -> None:
        check_int(self.dim, "dim", minimum=1)
        if not isinstance(self.variables, tuple) or not self.variables:
            raise ValueError(
                f"variables must be a non-empty tuple of names, got {self.variables!r}"
            )
        if len(set(self.variables)) != len(self.variables):
            raise ValueError(f"variables must be distinct, got {self.variables!r}")
        for kind, items, has_faces in (
            ("equations", self.equations, False),
            ("bcs", self.bcs, True),
        ):
            for j, item in enumerate(items):
                n = 3 if has_faces else 2
                if not isinstance(item, tuple) or len(item) != n:
                    raise TypeError(
                        f"{kind}[{j}] must be a tuple of length {n}, got {describe(item)}"
                    )
                if not isinstance(item[0], Mapping) or not item[0]:
                    raise ValueError(f"{kind}[{j}] terms must be a non-empty dict")
                for key in item[0]:
                    if not (isinstance(key, tuple) and len(key) == 2 and key[0] in self.variables):
                        raise ValueError(
                            f"{kind}[{j}] term keys must be (variable, alpha) with a variable "
                            f"of {self.variables}, got {key!r}"
                        )
                    check_alpha(key[1], f"{kind}[{j}] alpha", dim=self.dim)

    @property
    def order(self) -> int:
        return max(sum(k[1]) for eq in (*self.equations, *self.bcs) for k in eq[0])


def _e(d: int, *idx: int) -> tuple[int, ...]:
    """The multi-index with one count per listed axis."""
    a = [0] * d
    for i in idx:
        a[i] += 1
    return tuple(a)


def _unsplit(pde: LinearPDE) -> SplitSystem:
    """The original PDE as a one-variable system (the PINN)."""
    eq = ({("u", a): c for a, c in pde.terms.items()}, pde.f)
    bcs = tuple(
        ({("u", a): c for a, c in t.items()}, g, faces)
        for (t, g), faces in zip(pde.bcs, pde.bc_faces)
    )
    return SplitSystem(pde.dim, ("u",), (eq,), bcs)


def split_system(pde: LinearPDE, level: int) -> SplitSystem:
    """The variable-splitting system of a built-in PDE at splitting level 1 (first-order system)
    or 2 (second-order system); level >= order gives the PDE itself."""
    if not isinstance(pde, LinearPDE):
        raise TypeError(f"pde must be a LinearPDE, got {describe(pde)}")
    level = check_int(level, "level", minimum=1)
    if level >= pde.order:
        return _unsplit(pde)
    if pde._splitter is None:
        raise ValueError(
            f"pde ({pde.name}) has no built-in splitting at level {level}; pass "
            "system=SplitSystem(...) to VSPINN"
        )
    return pde._splitter(level)


def _grad_match(d: int, target: str, source: str, axis: int) -> tuple:
    """target - d_axis source = 0."""
    return ({(target, (0,) * d): 1.0, (source, _e(d, axis)): -1.0}, 0.0)


def _zero(x: torch.Tensor) -> torch.Tensor:
    return torch.zeros(x.shape[0], dtype=x.dtype)


# --------------------------------------------------------------------------------------------
# built-ins


class _SinProduct:
    """scale * prod_i sin(pi x_i)."""

    def __init__(self, scale: float = 1.0) -> None:
        self.scale = scale

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        return self.scale * torch.sin(PI * x).prod(dim=1)


def poisson(d: int = 1) -> LinearPDE:
    """-Laplace u = f on [0, 1]^d, u = 0 on the boundary, u = prod_i sin(pi x_i)."""
    d = check_int(d, "d", minimum=1)
    terms = {_e(d, i, i): -1.0 for i in range(d)}
    pde = LinearPDE(
        terms, _SinProduct(d * PI**2), dim=d, bcs=[({(0,) * d: 1.0}, _zero)], exact=_SinProduct()
    )
    pde.name = f"poisson({d})"

    def split(level: int) -> SplitSystem:  # level 1: q = grad u, -div q = f
        q = tuple(f"q{i}" for i in range(d))
        eqs = [_grad_match(d, q[i], "u", i) for i in range(d)]
        eqs.append(({(q[i], _e(d, i)): -1.0 for i in range(d)}, pde.f))
        return SplitSystem(d, ("u", *q), tuple(eqs), (({("u", (0,) * d): 1.0}, _zero, None),))

    pde._splitter = split
    return pde


def biharmonic(d: int = 1) -> LinearPDE:
    """Laplace^2 u = f on [0, 1]^d, u = Laplace u = 0 on the boundary (simply supported),
    u = prod_i sin(pi x_i)."""
    d = check_int(d, "d", minimum=1)
    terms: dict[tuple[int, ...], float] = {}
    for i in range(d):
        for j in range(d):
            a = _e(d, i, i, j, j)
            terms[a] = terms.get(a, 0.0) + 1.0
    lap = {_e(d, i, i): 1.0 for i in range(d)}
    zero_idx = (0,) * d
    pde = LinearPDE(
        terms,
        _SinProduct((d * PI**2) ** 2),
        dim=d,
        bcs=[({zero_idx: 1.0}, _zero), (lap, _zero)],
        exact=_SinProduct(),
    )
    pde.name = f"biharmonic({d})"

    def split(level: int) -> SplitSystem:
        if level == 2:  # v = Laplace u, Laplace v = f
            eqs = (
                ({("v", zero_idx): 1.0, **{("u", a): -1.0 for a in lap}}, 0.0),
                ({("v", a): 1.0 for a in lap}, pde.f),
            )
            bcs = (({("u", zero_idx): 1.0}, _zero, None), ({("v", zero_idx): 1.0}, _zero, None))
            return SplitSystem(d, ("u", "v"), eqs, bcs)
        # level 1: q = grad u, w = div q, z = grad w, div z = f
        q = tuple(f"q{i}" for i in range(d))
        z = tuple(f"z{i}" for i in range(d))
        eqs = [_grad_match(d, q[i], "u", i) for i in range(d)]
        eqs.append(({("w", zero_idx): 1.0, **{(q[i], _e(d, i)): -1.0 for i in range(d)}}, 0.0))
        eqs += [_grad_match(d, z[i], "w", i) for i in range(d)]
        eqs.append(({(z[i], _e(d, i)): 1.0 for i in range(d)}, pde.f))
        bcs = (({("u", zero_idx): 1.0}, _zero, None), ({("w", zero_idx): 1.0}, _zero, None))
        return SplitSystem(d, ("u", *q, "w", *z), tuple(eqs), bcs)

    pde._splitter = split
    return pde


class _HeatExact:
    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        return torch.exp(-(PI**2) * x[:, 1]) * torch.sin(PI * x[:, 0])


class _BeamExact:
    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        return torch.sin(PI * x[:, 0]) * torch.cos(PI**2 * x[:, 1])


_X_FACES = ((0, 0), (0, 1))
_T0 = ((1, 0),)


def heat_1d() -> LinearPDE:
    """u_t - u_xx = 0 on (x, t) in [0, 1]^2 (columns x, t), u = e^{-pi^2 t} sin(pi x) imposed at
    x = 0, x = 1 and t = 0."""
    exact = _HeatExact()
    pde = LinearPDE(
        {(0, 1): 1.0, (2, 0): -1.0},
        0.0,
        dim=2,
        bcs=[({(0, 0): 1.0}, exact, _X_FACES + _T0)],
        exact=exact,
    )
    pde.name = "heat_1d"

    def split(level: int) -> SplitSystem:  # level 1: q = u_x, u_t - q_x = 0
        eqs = (_grad_match(2, "q", "u", 0), ({("u", (0, 1)): 1.0, ("q", (1, 0)): -1.0}, 0.0))
        return SplitSystem(2, ("u", "q"), eqs, (({("u", (0, 0)): 1.0}, exact, _X_FACES + _T0),))

    pde._splitter = split
    return pde


def euler_bernoulli_beam() -> LinearPDE:
    """u_tt + u_xxxx = 0 on (x, t) in [0, 1]^2 (columns x, t), u = sin(pi x) cos(pi^2 t):
    u = u_xx = 0 at x = 0, 1 (simply supported), u = sin(pi x) and u_t = 0 at t = 0."""
    exact = _BeamExact()
    pde = LinearPDE(
        {(0, 2): 1.0, (4, 0): 1.0},
        0.0,
        dim=2,
        bcs=[
            ({(0, 0): 1.0}, exact, _X_FACES + _T0),
            ({(2, 0): 1.0}, _zero, _X_FACES),
            ({(0, 1): 1.0}, _zero, _T0),
        ],
        exact=exact,
    )
    pde.name = "euler_bernoulli_beam"

    def split(level: int) -> SplitSystem:
        u0 = ({("u", (0, 0)): 1.0}, exact, _X_FACES + _T0)
        if level == 2:  # v = u_xx, u_tt + v_xx = 0
            eqs = (
                ({("v", (0, 0)): 1.0, ("u", (2, 0)): -1.0}, 0.0),
                ({("u", (0, 2)): 1.0, ("v", (2, 0)): 1.0}, 0.0),
            )
            bcs = (u0, ({("v", (0, 0)): 1.0}, _zero, _X_FACES), ({("u", (0, 1)): 1.0}, _zero, _T0))
            return SplitSystem(2, ("u", "v"), eqs, bcs)
        # level 1: s = u_t, q = u_x, w = q_x, z = w_x, s_t + z_x = 0
        eqs = (
            _grad_match(2, "s", "u", 1),
            _grad_match(2, "q", "u", 0),
            _grad_match(2, "w", "q", 0),
            _grad_match(2, "z", "w", 0),
            ({("s", (0, 1)): 1.0, ("z", (1, 0)): 1.0}, 0.0),
        )
        bcs = (u0, ({("w", (0, 0)): 1.0}, _zero, _X_FACES), ({("s", (0, 0)): 1.0}, _zero, _T0))
        return SplitSystem(2, ("u", "s", "q", "w", "z"), eqs, bcs)

    pde._splitter = split
    return pde


# --------------------------------------------------------------------------------------------
# collocation points


class Points(NamedTuple):
    interior: torch.Tensor  # [n1, dim]
    boundary: torch.Tensor  # [n2, dim]


def _per_axis(n: int, k: int) -> int:
    """The smallest q with q^k >= n."""
    q = max(1, round(n ** (1.0 / k)))
    while q**k < n:
        q += 1
    while q > 1 and (q - 1) ** k >= n:
        q -= 1
    return q


def _grid(q: int, k: int, dtype, *, centred: bool) -> torch.Tensor:
    t = (
        (torch.arange(q, dtype=dtype) + 0.5) / q
        if centred
        else torch.arange(1, q + 1, dtype=dtype) / (q + 1)
    )
    if k == 1:
        return t[:, None]
    mesh = torch.meshgrid(*([t] * k), indexing="ij")
    return torch.stack([g.reshape(-1) for g in mesh], dim=1)


def _face_points(inner: torch.Tensor, axis: int, side: int, d: int) -> torch.Tensor:
    n = inner.shape[0]
    cols = []
    j = 0
    for i in range(d):
        if i == axis:
            cols.append(torch.full((n,), float(side), dtype=inner.dtype))
        else:
            cols.append(inner[:, j])
            j += 1
    return torch.stack(cols, dim=1)


def sample_points(
    pde: LinearPDE,
    *,
    n_interior: int,
    n_boundary: int,
    sampler: str = "grid",
    generator: torch.Generator | None = None,
) -> Points:
    """Collocation points ``(interior [n1, dim], boundary [n2, dim])`` on [0, 1]^dim (float64).

    ``sampler="grid"``: in 1-D, ``n_interior`` equally spaced interior points i/(n+1); in d-D a
    tensor grid of q^d >= n_interior interior points (q per axis, q the smallest such). Boundary:
    in 1-D always {0, 1}; in d-D each of the 2d faces gets a cell-centred grid of at least
    ceil(n_boundary / 2d) points. ``sampler="uniform"``: uniform random interior points and, in
    d-D, boundary points on a uniformly chosen face (``generator`` seeds both).
    """
    if not isinstance(pde, LinearPDE):
        raise TypeError(f"pde must be a LinearPDE, got {describe(pde)}")
    n1 = check_int(n_interior, "n_interior", minimum=1)
    n2 = check_int(n_boundary, "n_boundary", minimum=1)
    sampler = check_option(sampler, "sampler", ("grid", "uniform"))
    generator = check_generator(generator)
    d, dtype = pde.dim, torch.float64
    if d == 1:
        boundary = torch.tensor([[0.0], [1.0]], dtype=dtype)
        if sampler == "grid":
            interior = _grid(n1, 1, dtype, centred=False)
        else:
            interior = torch.rand(n1, 1, generator=generator, dtype=dtype)
        return Points(interior, boundary)
    per_face = -(-n2 // (2 * d))
    if sampler == "grid":
        interior = _grid(_per_axis(n1, d), d, dtype, centred=False)
        inner = _grid(_per_axis(per_face, d - 1), d - 1, dtype, centred=True)
        faces = [_face_points(inner, a, s, d) for a in range(d) for s in (0, 1)]
        return Points(interior, torch.cat(faces))
    interior = torch.rand(n1, d, generator=generator, dtype=dtype)
    boundary = torch.rand(n2, d, generator=generator, dtype=dtype)
    face = torch.randint(0, 2 * d, (n2,), generator=generator)
    rows = torch.arange(n2)
    boundary[rows, face // 2] = (face % 2).to(dtype)
    return Points(interior, boundary)
