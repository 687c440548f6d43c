"""Recover the measurement graph and the latent DAG from dependency graphs across environments."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

import networkx as nx
import numpy as np

from ._checks import check_bool, check_int, describe
from ._model import _binary_matrix, ancestor_closure
from ._stats import _check_alpha, estimate_shift_set, estimate_udg

__all__ = ["LearnResult", "equivalence_class", "learn", "recover_bipartite", "recover_latent_dag"]

MAX_EXHAUSTIVE = 5  # latent DAGs on up to 5 nodes are enumerated (29 281 DAGs)


def _check_udgs(udgs) -> list[np.ndarray]:
    if isinstance(udgs, np.ndarray) and udgs.ndim == 2:
        raise TypeError("udgs must be a sequence of (n, n) graphs, got a single 2-d array")
    if udgs is None or isinstance(udgs, str | bytes) or not isinstance(udgs, Sequence | np.ndarray):
        raise TypeError(f"udgs must be a sequence of (n, n) bool arrays, got {describe(udgs)}")
    if len(udgs) == 0:
        raise ValueError("udgs must hold at least one (the observational) graph, got none")
    out = []
    for e, g in enumerate(udgs):
        g = _binary_matrix(g, "udgs")
        n = g.shape[0]
        if n == 0 or g.shape != (n, n):
            raise ValueError(f"udgs[{e}] must be a square non-empty (n, n) matrix, got {g.shape}")
        if out and g.shape != out[0].shape:
            raise ValueError(f"udgs must all have the same shape, got {out[0].shape} and {g.shape}")
        if not np.array_equal(g, g.T):
            raise ValueError(f"udgs[{e}] must be symmetric (an undirected graph)")
        g = g.copy()
        np.fill_diagonal(g, False)
        out.append(g)
    return out


def recover_bipartite(udgs) -> list[frozenset]:
    """Estimate the hidden variables' children sets from the dependency graphs of all
    environments (observational and interventional, in any order).

    A hidden variable's children are pairwise dependent in every environment, so each children
    set is a clique of the intersection graph ∩_e UDG_e; with one intervention per hidden
    variable, pure children of different hidden variables are non-adjacent there. Candidates are
    the maximal cliques of the intersection graph; the result is a smallest collection of them
    covering every observed variable in which every member has a pure child (an element in no
    other member). Where a children set is not identifiable (an "imaginary subset": a larger set
    behaves like the children in every environment) the larger, maximal set is returned.
    Sorted by smallest element.
    """
    graphs = _check_udgs(udgs)
    n = graphs[0].shape[0]
    inter = np.logical_and.reduce(graphs)
    g = nx.Graph()
    g.add_nodes_from(range(n))
    g.add_edges_from(zip(*np.nonzero(np.triu(inter, 1)), strict=True))
    cliques = sorted({frozenset(int(v) for v in c) for c in nx.find_cliques(g)}, key=sorted)
    chosen = _smallest_cover(cliques, n)
    chosen = _refine(chosen, graphs)
    return sorted(chosen, key=lambda s: (min(s), sorted(s)))


def _refine(sets: list[frozenset], graphs: list[np.ndarray]) -> list[frozenset]:
    """Re-derive the parents of every non-pure observed variable from its adjacency to the pure
    children in every environment: the largest parent set P with, for all environments e and
    hidden j, X_a -- pure(j) in UDG_e iff some p in P depends on j there (the union of all
    consistent sets is consistent, so the largest is unique). Kept as is when none fits."""
    k = len(sets)
    pure = []
    for i, s in enumerate(sets):
        others = set().union(*(t for j, t in enumerate(sets) if j != i))
        pure.append(sorted(s - others))
    if any(not p for p in pure):
        return sets
    dep = []  # dep[e][p, j]: hidden p and j dependent in environment e
    for g in graphs:
        d = np.ones((k, k), dtype=bool)
        for i in range(k):
            for j in range(i + 1, k):
                d[i, j] = d[j, i] = g[np.ix_(pure[i], pure[j])].mean() >= 0.5
        dep.append(d)
    pure_all = set().union(*map(set, pure))
    n = graphs[0].shape[0]
    parents = {a: {i for i, s in enumerate(sets) if a in s} for a in range(n) if a not in pure_all}
    for a in parents:
        row = [np.array([g[a, pure[j]].mean() >= 0.5 for j in range(k)]) for g in graphs]
        cand = {
            p
            for p in range(k)
            if all(not dep[e][p, j] for e in range(len(graphs)) for j in range(k) if not row[e][j])
        }
        ok = cand and all(
            any(dep[e][p, j] for p in cand)
            for e in range(len(graphs))
            for j in range(k)
            if row[e][j]
        )
        if ok:
            parents[a] = cand
    out = []
    for i in range(k):
        out.append(frozenset(pure[i]) | frozenset(a for a, ps in parents.items() if i in ps))
    return out


def _has_pure_children(sets) -> bool:
    for i, s in enumerate(sets):
        others = set().union(*(t for j, t in enumerate(sets) if j != i))
        if not (s - others):
            return False
    return True


def _smallest_cover(cliques: list[frozenset], n: int) -> list[frozenset]:
    universe = frozenset(range(n))
    # a clique that is the only one containing some node must be chosen
    forced = [c for c in cliques if any(sum(v in d for d in cliques) == 1 for v in c)]
    rest = [c for c in cliques if c not in forced]
    covered = frozenset().union(*forced) if forced else frozenset()
    if covered == universe and _has_pure_children(forced):
        return forced
    if len(rest) <= 16:
        for size in range(0, len(rest) + 1):
            for extra in itertools.combinations(rest, size):
                sets = forced + list(extra)
                if frozenset().union(*sets) == universe and _has_pure_children(sets):
                    return sets
    # greedy fallback (large problems): add the clique covering most uncovered nodes
    sets = list(forced)
    while frozenset().union(*sets) != universe if sets else True:
        left = universe - (frozenset().union(*sets) if sets else frozenset())
        sets.append(max(rest or cliques, key=lambda c: (len(c & left), -len(c))))
    return sets


def _check_children(children, n: int) -> list[frozenset]:
    if children is None or isinstance(children, str | bytes | np.ndarray):
        raise TypeError(
            f"children must be a list of sets of observed indices, got {describe(children)}"
        )
    try:
        sets = [frozenset(c) for c in children]
    except TypeError:
        raise TypeError("children must be a list of sets of observed indices") from None
    if not sets:
        raise ValueError("children must hold at least one children set, got none")
    for s in sets:
        if not s:
            raise ValueError("children must not contain an empty set")
        for a in s:
            check_int(a, "children", minimum=0, maximum=n - 1)
    return [frozenset(int(a) for a in s) for s in sets]


def _check_shift_sets(shift_sets, n_env: int, n: int) -> list[frozenset] | None:
    if shift_sets is None:
        return None
    if isinstance(shift_sets, str | bytes | np.ndarray) or not isinstance(shift_sets, Sequence):
        raise TypeError(f"shift_sets must be a sequence of sets, got {describe(shift_sets)}")
    try:
        sets = [
            frozenset(int(check_int(a, "shift_sets", minimum=0, maximum=n - 1)) for a in s)
            for s in shift_sets
        ]
    except TypeError as e:
        if "shift_sets" in str(e):
            raise
        raise TypeError("shift_sets must be a sequence of sets of observed indices") from None
    if len(sets) == n_env + 1:  # aligned with udgs, the observational entry first
        if sets[0]:
            raise ValueError("shift_sets[0] (observational vs itself) must be empty")
        sets = sets[1:]
    if len(sets) != n_env:
        raise ValueError(
            f"shift_sets must have one set per interventional environment ({n_env}), got {len(sets)}"
        )
    return sets


@cache
def _all_dags(k: int) -> np.ndarray:
    """Every DAG on k labelled nodes, (N, k, k) bool."""
    iu = np.triu_indices(k, 1)
    n_e = len(iu[0])
    masks = ((np.arange(2**n_e)[:, None] >> np.arange(n_e)) & 1).astype(bool)
    upper = np.zeros((2**n_e, k, k), dtype=bool)
    upper[:, iu[0], iu[1]] = masks
    allp = []
    for perm in itertools.permutations(range(k)):
        p = np.array(perm)
        allp.append(upper[:, p][:, :, p])
    flat = np.concatenate(allp).reshape(-1, k * k)
    uniq = np.unique(np.packbits(flat, axis=1), axis=0)
    return np.unpackbits(uniq, axis=1)[:, : k * k].astype(bool).reshape(-1, k, k)


def _closure_batch(adj: np.ndarray) -> np.ndarray:
    k = adj.shape[-1]
    reach = adj | np.eye(k, dtype=bool)
    for _ in range(max(1, int(np.ceil(np.log2(max(k, 2)))))):
        reach = np.matmul(reach.astype(np.int32), reach.astype(np.int32)) > 0
    return reach


def _patterns(dags: np.ndarray):
    """For every DAG: the latent dependence D (obs and under do(t), t = 0..k-1) and De(t)."""
    k = dags.shape[-1]
    reach = _closure_batch(dags)  # (N, k, k)
    r = reach.astype(np.int32)
    dep_obs = np.matmul(np.swapaxes(r, 1, 2), r) > 0
    dep_t = np.empty((dags.shape[0], k, k, k), dtype=bool)
    for t in range(k):
        cut = dags.copy()
        cut[:, :, t] = False
        rc = _closure_batch(cut).astype(np.int32)
        dep_t[:, t] = np.matmul(np.swapaxes(rc, 1, 2), rc) > 0
    return dep_obs, dep_t, reach  # reach[:, t] = De(t)


def _hidden_level(children: list[frozenset], n: int):
    k = len(children)
    pure = []
    for i, s in enumerate(children):
        others = set().union(*(t for j, t in enumerate(children) if j != i))
        p = sorted(s - others) or sorted(s)
        pure.append(p)

    def dependence(udg: np.ndarray) -> np.ndarray:
        d = np.ones((k, k), dtype=bool)
        for i in range(k):
            for j in range(i + 1, k):
                d[i, j] = d[j, i] = udg[np.ix_(pure[i], pure[j])].mean() >= 0.5
        return d

    def descendants(shift: frozenset) -> np.ndarray:
        return np.array([np.mean([a in shift for a in pure[i]]) >= 0.5 for i in range(k)])

    return dependence, descendants


def equivalence_class(children, udgs, *, shift_sets=None) -> np.ndarray:
    """The latent DAGs (N, k, k) bool that best explain the inputs of :func:`recover_latent_dag`
    (same arguments; zero mismatches for oracle inputs): every candidate DAG and injective
    assignment of environments to targets is scored by the number of hidden-level
    dependences (and descendant-set memberships, with ``shift_sets``) it gets wrong; the
    minimisers are returned, in the order of ``children``.
    """
    graphs = _check_udgs(udgs)
    n = graphs[0].shape[0]
    sets = _check_children(children, n)
    k = len(sets)
    n_env = len(graphs) - 1
    shifts = _check_shift_sets(shift_sets, n_env, n)
    if n_env > k:
        raise ValueError(
            f"udgs has {n_env} interventional environments but children only {k} hidden "
            "variables (at most one intervention per hidden variable)"
        )
    if k > MAX_EXHAUSTIVE and (shifts is None or n_env != k):
        raise ValueError(
            f"children has {k} hidden variables; without shift_sets and one intervention per "
            f"hidden variable latent DAGs are enumerated exhaustively, for at most "
            f"{MAX_EXHAUSTIVE} hidden variables"
        )
    if k == 1:
        return np.zeros((1, 1, 1), dtype=bool)
    dependence, descendants = _hidden_level(sets, n)
    iu = np.triu_indices(k, 1)
    obs_d = dependence(graphs[0])[iu]
    env_d = [dependence(g)[iu] for g in graphs[1:]]
    fixed = None
    if k > MAX_EXHAUSTIVE:
        dags, fixed = _closure_candidates([descendants(sh) for sh in shifts], k)
    else:
        dags = _all_dags(k)
    dep_obs, dep_t, reach = _patterns(dags)
    cost0 = np.sum(dep_obs[:, iu[0], iu[1]] != obs_d, axis=1)
    # cost[N, t, e]: mismatch if environment e had target t
    cost = np.zeros((dags.shape[0], k, max(n_env, 1)), dtype=np.int64)
    for e in range(n_env):
        cost[:, :, e] = np.sum(dep_t[:, :, iu[0], iu[1]] != env_d[e], axis=2)
        if shifts is not None:
            de = descendants(shifts[e])
            cost[:, :, e] += np.sum(reach != de, axis=2)
    if fixed is not None:
        total = cost0 + cost[:, fixed, np.arange(n_env)].sum(axis=1)
    elif n_env:
        best = None
        for perm in itertools.permutations(range(k), n_env):
            c = cost[:, list(perm), np.arange(n_env)].sum(axis=1)
            best = c if best is None else np.minimum(best, c)
        total = cost0 + best
    else:
        total = cost0
    return dags[total == total.min()]


def _closure_candidates(de_sets: list[np.ndarray], k: int):
    """With a shift set per hidden variable the descendant relation is known: each
    environment's target is the one member of its descendant set outside every strictly
    smaller one. Candidates: the transitive reduction plus any subset of the other
    (transitive) edges of the closure (all subsets for up to 12 such edges, else the reduction
    with each single one and the full closure)."""
    targets = []
    for e, de in enumerate(de_sets):
        smaller = [f for f in de_sets if np.all(f <= de) and not np.array_equal(f, de)]
        rest = de & ~np.logical_or.reduce(smaller) if smaller else de.copy()
        if rest.sum() != 1 or int(np.argmax(rest)) in targets:
            raise ValueError(
                f"shift_sets[{e}] is inconsistent with one intervention per hidden variable "
                "(its target cannot be identified)"
            )
        targets.append(int(np.argmax(rest)))
    reach = np.zeros((k, k), dtype=bool)
    for t, de in zip(targets, de_sets, strict=True):
        reach[t] = de
    strict = reach & ~np.eye(k, dtype=bool)
    if not np.array_equal(ancestor_closure(strict), reach) or np.any(strict & strict.T):
        raise ValueError("shift_sets do not describe the descendants of a DAG")
    inner = (strict.astype(int) @ strict.astype(int)) > 0
    reduction = strict & ~inner
    optional = list(zip(*np.nonzero(strict & inner), strict=True))
    if len(optional) <= 12:
        picks = itertools.product([False, True], repeat=len(optional))
    else:
        picks = [[False] * len(optional), [True] * len(optional)]
        picks += [[i == j for j in range(len(optional))] for i in range(len(optional))]
    cands = []
    for pick in picks:
        a = reduction.copy()
        for (i, j), on in zip(optional, pick, strict=True):
            a[i, j] = on
        cands.append(a)
    return np.array(cands), targets


def recover_latent_dag(children, udgs, *, shift_sets=None) -> np.ndarray:
    """Recover the latent DAG among the hidden variables with children sets ``children``.

    ``udgs[0]`` is the observational dependency graph, ``udgs[1:]`` come from environments with
    at most one unknown hard intervention per hidden variable, in any order. Optional
    ``shift_sets``: per interventional environment the set of observed variables whose
    distribution shifted (one per ``udgs[1:]``, or one per ``udgs`` with an empty first set).

    The hidden-level dependence pattern of each environment (pure children's adjacency) is
    matched against every latent DAG and every injective assignment of environments to targets
    (exhaustive for up to 5 hidden variables; beyond, only with a shift set for each of k
    interventions, against the DAGs with the descendant relation they give); the DAGs of
    minimal mismatch form the equivalence class. Returns a (k, k) int matrix in the order of ``children``:
    A[i, j] = 1, A[j, i] = 0: H_i -> H_j in every DAG of the class; A[i, j] = A[j, i] = 1: an
    edge present in every DAG of the class with either orientation (not identifiable);
    0 both ways: no edge (or an edge present in only some DAGs of the class).
    """
    cls = equivalence_class(children, udgs, shift_sets=shift_sets)
    k = cls.shape[1]
    present = (cls | np.swapaxes(cls, 1, 2)).all(axis=0)
    directed_all = cls.all(axis=0)
    out = np.zeros((k, k), dtype=int)
    for i in range(k):
        for j in range(i + 1, k):
            if not present[i, j]:
                continue
            if directed_all[i, j]:
                out[i, j] = 1
            elif directed_all[j, i]:
                out[j, i] = 1
            else:
                out[i, j] = out[j, i] = 1
    return out


@dataclass(frozen=True)
class LearnResult:
    """Output of :func:`learn`: ``children`` (children set per estimated hidden variable),
    ``adjacency`` ((k, k) int, see :func:`recover_latent_dag`), the estimated ``udgs`` and
    ``shift_sets`` (None without ``use_shifts``)."""

    children: list
    adjacency: np.ndarray
    udgs: tuple
    shift_sets: tuple | None


def learn(
    envs, *, test: str = "pearson", alpha: float = 0.01, use_shifts: bool = True
) -> LearnResult:
    """End to end: ``envs[0]`` observational samples (n_samples, n), ``envs[1:]`` samples under
    unknown single-node latent interventions (any order). Estimates each environment's
    dependency graph (:func:`estimate_udg`), with ``use_shifts`` also the shift sets
    (:func:`estimate_shift_set` against ``envs[0]``), then :func:`recover_bipartite` and
    :func:`recover_latent_dag`."""
    alpha = _check_alpha(alpha)
    use_shifts = check_bool(use_shifts, "use_shifts")
    if envs is None or isinstance(envs, str | bytes) or not isinstance(envs, Sequence | np.ndarray):
        raise TypeError(f"envs must be a sequence of (n_samples, n) arrays, got {describe(envs)}")
    if isinstance(envs, np.ndarray) and envs.ndim == 2:
        raise TypeError("envs must be a sequence of (n_samples, n) arrays, got a single 2-d array")
    if len(envs) == 0:
        raise ValueError("envs must hold at least the observational samples, got none")
    from ._checks import check_array

    data = [check_array(x, "envs", ndim=2) for x in envs]
    if any(x.shape[1] != data[0].shape[1] for x in data):
        raise ValueError(
            f"envs must all have the same number of columns, got {[x.shape[1] for x in data]}"
        )
    udgs = [estimate_udg(x, test=test, alpha=alpha) for x in data]
    shifts = [estimate_shift_set(data[0], x, alpha=alpha) for x in data[1:]] if use_shifts else None
    children = recover_bipartite(udgs)
    adjacency = recover_latent_dag(children, udgs, shift_sets=shifts)
    return LearnResult(
        children=children,
        adjacency=adjacency,
        udgs=tuple(udgs),
        shift_sets=None if shifts is None else tuple(shifts),
    )
