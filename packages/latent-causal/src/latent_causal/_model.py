"""Measurement models: a latent DAG over H_1..H_m and a bipartite graph H -> X; oracles, samplers."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._checks import check_array, check_float, check_int, check_probability, check_rng, describe

__all__ = [
    "MeasurementModel",
    "oracle_shift_set",
    "oracle_udg",
    "random_measurement_model",
    "sample",
    "sample_environments",
]


def _binary_matrix(value, name: str, *, ndim: int = 2) -> np.ndarray:
    """A 0/1 (or bool) matrix as a bool array; other values are a ValueError naming ``name``."""
    arr = check_array(value, name, ndim=ndim, dtype="any", allow_empty=True)
    if arr.dtype.kind != "b":
        if not np.all((arr == 0) | (arr == 1)):
            raise ValueError(f"{name} must hold only 0/1 (or booleans), got {describe(arr)}")
    return arr.astype(bool)


def ancestor_closure(adj: np.ndarray) -> np.ndarray:
    """R[i, j] = True iff i is an ancestor of j or i == j (adj[i, j]: i -> j)."""
    k = adj.shape[-1]
    reach = adj | np.eye(k, dtype=bool)
    for _ in range(max(1, int(np.ceil(np.log2(max(k, 2)))))):
        reach = (reach.astype(np.int64) @ reach.astype(np.int64)) > 0
    return reach


def is_acyclic(adj: np.ndarray) -> bool:
    """Whether the directed graph adj[i, j]: i -> j has no cycle (self-loops are cycles)."""
    if np.any(np.diag(adj)):
        return False
    reach = ancestor_closure(adj) & ~np.eye(adj.shape[0], dtype=bool)
    return not np.any(reach & reach.T)


@dataclass(frozen=True, eq=False)
class MeasurementModel:
    """Latent DAG ``latent_adj`` (m, m), ``[i, j]``: H_i -> H_j, and measurement graph
    ``bipartite`` (n, m), ``[a, i]``: H_i -> X_a. No X -> X edges (by construction).

    Both are 0/1 or boolean matrices, stored as read-only bool arrays. A cyclic latent graph
    is a ValueError naming ``latent_adj``.
    """

    latent_adj: np.ndarray
    bipartite: np.ndarray

    def __init__(self, latent_adj, bipartite):
        lat = _binary_matrix(latent_adj, "latent_adj")
        bip = _binary_matrix(bipartite, "bipartite")
        m = lat.shape[0]
        if lat.shape != (m, m) or m == 0:
            raise ValueError(
                f"latent_adj must be a non-empty square (m, m) matrix, got {lat.shape}"
            )
        if not is_acyclic(lat):
            raise ValueError("latent_adj must be acyclic (a DAG without self-loops), got a cycle")
        if bip.shape[0] == 0 or bip.shape[1] != m:
            raise ValueError(
                f"bipartite must have shape (n, m) = (n >= 1, {m}) to match latent_adj, "
                f"got {bip.shape}"
            )
        lat = lat.copy()
        bip = bip.copy()
        lat.flags.writeable = False
        bip.flags.writeable = False
        object.__setattr__(self, "latent_adj", lat)
        object.__setattr__(self, "bipartite", bip)

    @property
    def n_latent(self) -> int:
        """m, the number of hidden variables."""
        return int(self.latent_adj.shape[0])

    @property
    def n_observed(self) -> int:
        """n, the number of observed variables."""
        return int(self.bipartite.shape[0])

    def children(self) -> list[frozenset]:
        """ch(H_i) for each hidden variable i, as frozensets of observed indices."""
        return [
            frozenset(np.flatnonzero(self.bipartite[:, i]).tolist()) for i in range(self.n_latent)
        ]

    def parents(self, a: int) -> frozenset:
        """pa(X_a): the hidden parents of observed variable a."""
        a = check_int(a, "a", minimum=0, maximum=self.n_observed - 1)
        return frozenset(np.flatnonzero(self.bipartite[a]).tolist())

    def descendants(self, i: int) -> frozenset:
        """De(H_i), including i itself."""
        i = check_int(i, "i", minimum=0, maximum=self.n_latent - 1)
        return frozenset(np.flatnonzero(ancestor_closure(self.latent_adj)[i]).tolist())

    def intervened(self, target: int | None) -> np.ndarray:
        """The latent adjacency with the edges into ``target`` cut (a copy)."""
        adj = np.array(self.latent_adj, dtype=bool)
        if target is not None:
            adj[:, _check_target(target, self)] = False
        return adj

    def __repr__(self) -> str:
        return f"MeasurementModel(m={self.n_latent}, n={self.n_observed})"


def _check_model(model) -> MeasurementModel:
    if not isinstance(model, MeasurementModel):
        raise TypeError(f"model must be a MeasurementModel, got {describe(model)}")
    return model


def _check_target(target, model: MeasurementModel) -> int:
    return check_int(target, "target", minimum=0, maximum=model.n_latent - 1)


def latent_dependence(adj: np.ndarray) -> np.ndarray:
    """D[i, j] = True iff H_i and H_j share an ancestor (itself included) in ``adj``."""
    reach = ancestor_closure(adj).astype(np.int64)
    return (reach.T @ reach) > 0


def oracle_udg(model: MeasurementModel, target: int | None = None) -> np.ndarray:
    """The undirected dependency graph on X in the environment intervening on ``target``.

    X_a -- X_b (a != b) iff some parent of X_a and some parent of X_b share an ancestor
    (themselves included) in the latent DAG with the edges into ``target`` cut; ``target=None``
    is the observational environment. Returns a symmetric (n, n) bool array, diagonal False.
    """
    model = _check_model(model)
    dep = latent_dependence(model.intervened(target)).astype(np.int64)
    bip = model.bipartite.astype(np.int64)
    udg = (bip @ dep @ bip.T) > 0
    np.fill_diagonal(udg, False)
    return udg


def oracle_shift_set(model: MeasurementModel, target: int) -> frozenset:
    """{a : pa(X_a) ∩ De(H_target) ≠ ∅}: the observed variables whose distribution a
    (distribution-changing) hard intervention on ``target`` shifts. De includes the target."""
    model = _check_model(model)
    target = _check_target(target, model)
    de = ancestor_closure(model.latent_adj)[target]
    return frozenset(np.flatnonzero(model.bipartite[:, de].any(axis=1)).tolist())


def random_measurement_model(
    m: int,
    n: int,
    *,
    latent_density: float = 0.5,
    extra_parent_prob: float = 0.3,
    pure_children: bool = True,
    rng=None,
) -> MeasurementModel:
    """A random measurement model with ``m`` hidden and ``n`` observed variables.

    Latent DAG: a random order, each forward pair an edge with probability ``latent_density``.
    With ``pure_children`` X_0..X_{m-1} are pure children of H_0..H_{m-1} (needs n >= m); every
    other X gets one uniformly drawn parent plus each other hidden variable with probability
    ``extra_parent_prob``.
    """
    m = check_int(m, "m", minimum=1)
    n = check_int(n, "n", minimum=1)
    latent_density = check_probability(latent_density, "latent_density")
    extra_parent_prob = check_probability(extra_parent_prob, "extra_parent_prob")
    if not isinstance(pure_children, bool | np.bool_):
        raise TypeError(f"pure_children must be a bool, got {describe(pure_children)}")
    gen = check_rng(rng)
    if pure_children and n < m:
        raise ValueError(f"n must be >= m = {m} for pure children, got {n}")
    order = gen.permutation(m)
    lat = np.zeros((m, m), dtype=bool)
    for p in range(m):
        for q in range(p + 1, m):
            if gen.random() < latent_density:
                lat[order[p], order[q]] = True
    bip = np.zeros((n, m), dtype=bool)
    start = 0
    if pure_children:
        bip[np.arange(m), np.arange(m)] = True
        start = m
    for a in range(start, n):
        first = gen.integers(m)
        bip[a, first] = True
        for i in range(m):
            if i != first and gen.random() < extra_parent_prob:
                bip[a, i] = True
    return MeasurementModel(lat, bip)


def _check_sem(model, n_samples, sem, noise, shift):
    model = _check_model(model)
    n_samples = check_int(n_samples, "n_samples", minimum=1)
    if not isinstance(sem, str):
        raise TypeError(f"sem must be 'linear' or 'nonlinear', got {describe(sem)}")
    if sem not in ("linear", "nonlinear"):
        raise ValueError(f"sem must be 'linear' or 'nonlinear', got {sem!r}")
    noise = check_float(noise, "noise", minimum=0.0)
    shift = check_float(shift, "shift")
    return model, n_samples, noise, shift


def _weights(model, gen):
    m, n = model.n_latent, model.n_observed

    def draw(shape):
        return gen.uniform(0.5, 2.0, size=shape) * gen.choice([-1.0, 1.0], size=shape)

    return draw((m, m)) * model.latent_adj, draw((n, m)) * model.bipartite


def _draw(model, n_samples, t, sem, noise, shift, w, v, gen):
    m, n = model.n_latent, model.n_observed
    adj = model.intervened(t)
    if sem == "linear":
        eps = gen.standard_normal((n_samples, m))
    else:
        eps = gen.laplace(size=(n_samples, m)) / np.sqrt(2.0)
    h = np.zeros((n_samples, m))
    for j in _topological_order(model.latent_adj):
        parents = np.flatnonzero(adj[:, j])
        drive = h[:, parents] if sem == "linear" else np.tanh(h[:, parents])
        h[:, j] = drive @ w[parents, j] + eps[:, j]
        if j == t:
            h[:, j] += shift
    link = h if sem == "linear" else np.tanh(h) + 0.3 * h**2
    return link @ v.T + noise * gen.standard_normal((n_samples, n))


_SEM_DOC = """
    ``sem="linear"``: H_j = Σ w_ij H_i + ε_j, X_a = Σ v_ia H_i + noise·ξ_a, weights
    ±U(0.5, 2), ε, ξ standard normal. ``sem="nonlinear"``: H_j = Σ w_ij tanh(H_i) + ε_j and
    X_a = Σ v_ia (tanh(H_i) + 0.3 H_i²) + noise·ξ_a, ε Laplace (unit variance). A hard
    intervention on H_t cuts its parents and sets H_t = ε_t + ``shift`` (so that the
    intervention changes the distribution even when t is a root).
"""


def sample(
    model: MeasurementModel,
    n_samples: int,
    *,
    target: int | None = None,
    sem: str = "linear",
    noise: float = 0.5,
    shift: float = 2.0,
    rng=None,
) -> np.ndarray:
    """Draw ``n_samples`` rows (n_samples, n) of X in one environment (``target=None``:
    observational), with weights drawn from ``rng`` first. To share weights across
    environments use :func:`sample_environments`.
    """
    model, n_samples, noise, shift = _check_sem(model, n_samples, sem, noise, shift)
    t = None if target is None else _check_target(target, model)
    gen = check_rng(rng)
    w, v = _weights(model, gen)
    return _draw(model, n_samples, t, sem, noise, shift, w, v, gen)


def sample_environments(
    model: MeasurementModel,
    n_samples: int,
    *,
    targets=None,
    sem: str = "linear",
    noise: float = 0.5,
    shift: float = 2.0,
    rng=None,
) -> list[np.ndarray]:
    """Observational samples then one array per target in ``targets`` (default: every hidden
    variable in order), all from one SEM (the same weights), ``n_samples`` rows each."""
    model, n_samples, noise, shift = _check_sem(model, n_samples, sem, noise, shift)
    if targets is None:
        targets = list(range(model.n_latent))
    if isinstance(targets, str | bytes) or not hasattr(targets, "__iter__"):
        raise TypeError(f"targets must be a sequence of hidden indices, got {describe(targets)}")
    targets = [_check_target(t, model) for t in targets]
    if len(set(targets)) != len(targets):
        raise ValueError(
            f"targets must be distinct (one intervention per hidden variable), got {targets}"
        )
    gen = check_rng(rng)
    w, v = _weights(model, gen)
    return [_draw(model, n_samples, t, sem, noise, shift, w, v, gen) for t in [None, *targets]]


sample.__doc__ += _SEM_DOC
sample_environments.__doc__ += _SEM_DOC


def _topological_order(adj: np.ndarray) -> list[int]:
    indeg = adj.sum(axis=0).astype(int)
    order, ready = [], [j for j in range(adj.shape[0]) if indeg[j] == 0]
    while ready:
        j = ready.pop(0)
        order.append(j)
        for c in np.flatnonzero(adj[j]):
            indeg[c] -= 1
            if indeg[c] == 0:
                ready.append(int(c))
    return order
