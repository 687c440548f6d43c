"""Capacitated VRP utilities (numpy): instances, solution cost and feasibility, exact DP, a
savings heuristic.

Node 0 is the depot, nodes ``1..n`` the customers. A solution of one instance is a 1-d integer
array that starts and ends at the depot with a 0 between routes, e.g. ``[0, 3, 1, 0, 2, 0]``.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from ._checks import check_array, check_float, check_int, check_rng
from ._validation import check_index_array

__all__ = [
    "EXACT_MAX_CUSTOMERS",
    "CVRPInstances",
    "capacity_for",
    "cost",
    "exact",
    "is_feasible",
    "nearest_neighbour",
    "random_instances",
    "routes",
    "savings",
]

EXACT_MAX_CUSTOMERS = 8
# capacities of the usual benchmark (Kool et al. 2019; 200/500/1000 as in LEHD's test sets)
_CAPACITY = ((10, 20), (20, 30), (50, 40), (100, 50), (200, 80), (500, 100), (1000, 250))


class CVRPInstances(NamedTuple):
    """Random CVRP instances: ``coords [B, n+1, 2]`` (row 0 the depot), integer ``demands
    [B, n+1]`` (0 at the depot, U{1..9} elsewhere) and the vehicle ``capacity``."""

    coords: np.ndarray
    demands: np.ndarray
    capacity: int


def capacity_for(n: Any) -> int:
    """The benchmark capacity for ``n`` customers (20 for n <= 10, 30 for 20, 40 for 50, 50 for
    100, 80 for 200, 100 for 500, 250 for 1000; the next larger size's value in between)."""
    n = check_int(n, "n", minimum=1)
    for size, cap in _CAPACITY:
        if n <= size:
            return cap
    return _CAPACITY[-1][1]


def random_instances(B: int, n: int, *, rng: Any = None) -> CVRPInstances:
    """``B`` CVRP instances with ``n`` customers uniform in the unit square (depot too)."""
    B = check_int(B, "B", minimum=1)
    n = check_int(n, "n", minimum=1)
    gen = check_rng(rng, "rng")
    coords = gen.random((B, n + 1, 2))
    demands = gen.integers(1, 10, size=(B, n + 1))
    demands[:, 0] = 0
    return CVRPInstances(coords, demands.astype(np.int64), capacity_for(n))


def _check_instance(coords: Any, demands: Any, capacity: Any):
    c = check_array(coords, "coords", ndim=2)
    if c.shape[1] != 2 or c.shape[0] < 2:
        raise ValueError(f"coords must have shape (n+1, 2) with n >= 1, got {c.shape}")
    d = check_array(demands, "demands", ndim=1)
    if d.shape[0] != c.shape[0]:
        raise ValueError(
            f"demands has {d.shape[0]} entries but coords has {c.shape[0]} nodes; they must match"
        )
    if d[0] != 0:
        raise ValueError(f"demands[0] (the depot) must be 0, got {d[0]}")
    if np.any(d < 0):
        raise ValueError("demands must be >= 0")
    cap = check_float(capacity, "capacity", minimum=0.0, min_inclusive=False)
    if np.any(d > cap):
        raise ValueError(f"demands must not exceed capacity {cap}; max demand is {d.max()}")
    return c, d, cap


def _check_solution(solution: Any, n_nodes: int | None) -> np.ndarray:
    s = check_index_array(solution, "solution", ndim=1)
    if s.shape[0] < 2 or s[0] != 0 or s[-1] != 0:
        raise ValueError(f"solution must start and end at the depot 0, got {s.tolist()[:12]}")
    if n_nodes is not None and (s.min() < 0 or s.max() >= n_nodes):
        raise ValueError(f"solution must hold node indices in 0..{n_nodes - 1}")
    return s


def routes(solution: Any) -> list[np.ndarray]:
    """The routes of a solution: the customers between consecutive depot visits (empty routes
    dropped)."""
    s = _check_solution(solution, None)
    cuts = np.flatnonzero(s == 0)
    return [s[a + 1 : b] for a, b in zip(cuts[:-1], cuts[1:]) if b > a + 1]


def cost(coords: Any, solution: Any) -> float:
    """Total travelled distance of ``solution`` on the instance ``coords [n+1, 2]``."""
    c = check_array(coords, "coords", ndim=2)
    if c.shape[1] != 2:
        raise ValueError(f"coords must have shape (n+1, 2), got {c.shape}")
    s = _check_solution(solution, c.shape[0])
    pts = c[s]
    return float(np.sqrt(((pts[1:] - pts[:-1]) ** 2).sum(-1)).sum())


def is_feasible(solution: Any, demands: Any, capacity: Any) -> bool:
    """Whether ``solution`` starts and ends at the depot, visits every customer exactly once and
    keeps every route's load within ``capacity``."""
    s = check_index_array(solution, "solution", ndim=1)
    d = check_array(demands, "demands", ndim=1)
    cap = check_float(capacity, "capacity", minimum=0.0, min_inclusive=False)
    n_nodes = d.shape[0]
    if s.shape[0] < 2 or s[0] != 0 or s[-1] != 0:
        return False
    if s.min() < 0 or s.max() >= n_nodes:
        return False
    customers = s[s != 0]
    if customers.shape[0] != n_nodes - 1 or np.unique(customers).shape[0] != n_nodes - 1:
        return False
    load = 0.0
    for node in s[1:]:
        if node == 0:
            load = 0.0
        else:
            load += d[node]
            if load > cap + 1e-9:
                return False
    return True


def _join(route_list: list[list[int]]) -> np.ndarray:
    out = [0]
    for r in route_list:
        out.extend(int(v) for v in r)
        out.append(0)
    return np.array(out, dtype=np.int64)


def exact(coords: Any, demands: Any, capacity: Any) -> tuple[np.ndarray, float]:
    """Optimal solution of one instance with at most 8 customers: ``(solution, cost)``.

    Dynamic programming: the cheapest depot-to-depot route through every customer subset, then
    the cheapest partition of all customers into capacity-feasible subsets."""
    c, d, cap = _check_instance(coords, demands, capacity)
    n = c.shape[0] - 1
    if n > EXACT_MAX_CUSTOMERS:
        raise ValueError(
            f"coords must have at most {EXACT_MAX_CUSTOMERS} customers for exact, got {n}"
        )
    dist = np.sqrt(((c[:, None] - c[None]) ** 2).sum(-1))
    full = (1 << n) - 1
    g = np.full((1 << n, n), np.inf)  # g[S, j]: depot -> all of S -> ends at customer j+1
    par = np.full((1 << n, n), -1, dtype=np.int64)
    for j in range(n):
        g[1 << j, j] = dist[0, j + 1]
    for S in range(1, 1 << n):
        for j in range(n):
            if not (S >> j) & 1 or S == 1 << j:
                continue
            prev = S ^ (1 << j)
            cand = g[prev] + dist[1:, j + 1]
            k = int(cand.argmin())
            g[S, j], par[S, j] = cand[k], k
    load = np.array([sum(d[j + 1] for j in range(n) if (S >> j) & 1) for S in range(1 << n)])
    closing = g + dist[1:, 0][None, :]
    route_cost = closing.min(1)
    route_cost[0] = 0.0
    route_last = closing.argmin(1)
    f = np.full(1 << n, np.inf)
    choice = np.zeros(1 << n, dtype=np.int64)
    f[0] = 0.0
    for S in range(1, 1 << n):
        low = S & -S
        T = S
        while T:
            if T & low and load[T] <= cap + 1e-9:
                v = route_cost[T] + f[S ^ T]
                if v < f[S]:
                    f[S], choice[S] = v, T
            T = (T - 1) & S
    route_list = []
    S = full
    while S:
        T = int(choice[S])
        order, mask, last = [], T, int(route_last[T])
        while last >= 0:
            order.append(last + 1)
            nxt = int(par[mask, last])
            mask ^= 1 << last
            last = nxt
        route_list.append(order[::-1])
        S ^= T
    sol = _join(route_list)
    return sol, cost(c, sol)


def _route_two_opt(dist: np.ndarray, route: list[int]) -> list[int]:
    tour = [0, *route]
    m = len(tour)
    improved = True
    while improved and m >= 4:
        improved = False
        for i in range(m - 1):
            for j in range(i + 2, m if i > 0 else m - 1):
                a, b, cc, dd = tour[i], tour[i + 1], tour[j], tour[(j + 1) % m]
                if dist[a, cc] + dist[b, dd] < dist[a, b] + dist[cc, dd] - 1e-12:
                    tour[i + 1 : j + 1] = tour[i + 1 : j + 1][::-1]
                    improved = True
    k = tour.index(0)
    tour = tour[k:] + tour[:k]
    return tour[1:]


def savings(coords: Any, demands: Any, capacity: Any) -> tuple[np.ndarray, float]:
    """Clarke-Wright parallel savings followed by 2-opt inside every route (a classical
    heuristic used as a label generator and reference): ``(solution, cost)``."""
    c, d, cap = _check_instance(coords, demands, capacity)
    n = c.shape[0] - 1
    dist = np.sqrt(((c[:, None] - c[None]) ** 2).sum(-1))
    route_of = {i: [i] for i in range(1, n + 1)}
    load = {i: float(d[i]) for i in range(1, n + 1)}
    owner = {i: i for i in range(1, n + 1)}  # customer -> route id
    ii, jj = np.triu_indices(n, k=1)
    ii, jj = ii + 1, jj + 1
    s = dist[0, ii] + dist[0, jj] - dist[ii, jj]
    for k in np.argsort(-s, kind="stable"):
        i, j = int(ii[k]), int(jj[k])
        ri, rj = owner[i], owner[j]
        if ri == rj or load[ri] + load[rj] > cap + 1e-9:
            continue
        a, b = route_of[ri], route_of[rj]
        if a[-1] == i and b[0] == j:
            merged = a + b
        elif a[0] == i and b[-1] == j:
            merged = b + a
        elif a[0] == i and b[0] == j:
            merged = a[::-1] + b
        elif a[-1] == i and b[-1] == j:
            merged = a + b[::-1]
        else:
            continue
        route_of[ri] = merged
        load[ri] += load[rj]
        del route_of[rj], load[rj]
        for v in merged:
            owner[v] = ri
    route_list = [_route_two_opt(dist, r) for r in route_of.values()]
    sol = _join(route_list)
    return sol, cost(c, sol)


def nearest_neighbour(coords: Any, demands: Any, capacity: Any) -> tuple[np.ndarray, float]:
    """Nearest-neighbour construction: from the current node go to the nearest unvisited
    customer that still fits the load, back to the depot when none fits: ``(solution, cost)``."""
    c, d, cap = _check_instance(coords, demands, capacity)
    n = c.shape[0] - 1
    left = np.ones(n + 1, dtype=bool)
    left[0] = False
    sol, cur, load = [0], 0, 0.0
    while left.any():
        fits = left & (load + d <= cap + 1e-9)
        if not fits.any():
            sol.append(0)
            cur, load = 0, 0.0
            continue
        dist = np.where(fits, ((c - c[cur]) ** 2).sum(-1), np.inf)
        cur = int(dist.argmin())
        sol.append(cur)
        left[cur] = False
        load += d[cur]
    sol.append(0)
    out = np.array(sol, dtype=np.int64)
    return out, cost(c, out)
