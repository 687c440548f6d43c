"""The Light Encoder Heavy Decoder (LEHD) model, its supervised training and its decoders."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from . import cvrp as _cvrp
from ._checks import (
    check_array,
    check_bool,
    check_float,
    check_generator,
    check_int,
    check_option,
    check_rng,
    check_tensor,
    describe,
)
from ._validation import check_coords, check_tours
from .subproblems import MIN_SUBPATH, subpath_nodes

__all__ = ["LEHD", "FitResult", "fit", "greedy", "greedy_cvrp", "rrc"]

PROBLEMS = ("tsp", "cvrp")


class _Block(nn.Module):
    """Multi-head self-attention + residual, ReLU feed-forward + residual; no normalisation."""

    def __init__(self, dim: int, heads: int, ff_dim: int) -> None:
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim, bias=False)
        self.out = nn.Linear(dim, dim)
        self.ff = nn.Sequential(nn.Linear(dim, ff_dim), nn.ReLU(), nn.Linear(ff_dim, dim))

    def forward(self, x: torch.Tensor, keep: torch.Tensor | None = None) -> torch.Tensor:
        b, t, dim = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, self.heads, dim // self.heads).permute(2, 0, 3, 1, 4)
        mask = None if keep is None else keep[:, None, None, :]
        o = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        x = x + self.out(o.transpose(1, 2).reshape(b, t, dim))
        return x + self.ff(x)


class LEHD(nn.Module):
    """Light Encoder, Heavy Decoder (Luo et al., NeurIPS 2023).

    The encoder (a linear embedding and ``encoder_layers`` attention blocks) runs once per
    instance. At every construction step the heavy decoder (``decoder_layers`` blocks) attends
    over ``[W_f h_first, h_u for every candidate u, W_l h_last]`` and scores each candidate.

    ``problem="cvrp"``: node 0 is the depot (its own embedding), node features are
    ``(x, y, demand / capacity)``, the last-node token also carries the remaining capacity
    fraction, and the first token is the depot whose score is "return to the depot".
    """

    def __init__(
        self,
        *,
        problem: str = "tsp",
        embed_dim: int = 128,
        heads: int = 8,
        ff_dim: int = 512,
        decoder_layers: int = 6,
        encoder_layers: int = 1,
    ) -> None:
        super().__init__()
        self.problem = check_option(problem, "problem", PROBLEMS)
        embed_dim = check_int(embed_dim, "embed_dim", minimum=1)
        heads = check_int(heads, "heads", minimum=1)
        if embed_dim % heads:
            raise ValueError(f"embed_dim must be divisible by heads ({heads}), got {embed_dim}")
        self.embed_dim, self.heads = embed_dim, heads
        self.ff_dim = check_int(ff_dim, "ff_dim", minimum=1)
        self.decoder_layers = check_int(decoder_layers, "decoder_layers", minimum=1)
        self.encoder_layers = check_int(encoder_layers, "encoder_layers", minimum=0)
        cvrp = self.problem == "cvrp"
        self.embed = nn.Linear(3 if cvrp else 2, embed_dim)
        self.embed_depot = nn.Linear(2, embed_dim) if cvrp else None
        self.encoder = nn.ModuleList(
            _Block(embed_dim, heads, ff_dim) for _ in range(self.encoder_layers)
        )
        self.w_first = nn.Linear(embed_dim, embed_dim)
        self.w_last = nn.Linear(embed_dim + (1 if cvrp else 0), embed_dim)
        self.decoder = nn.ModuleList(
            _Block(embed_dim, heads, ff_dim) for _ in range(self.decoder_layers)
        )
        self.score = nn.Linear(embed_dim, 1)

    # -- helpers ---------------------------------------------------------------------------
    def _param(self) -> torch.Tensor:
        return self.score.weight

    def _as_tensor(self, value: Any, name: str, *, ndim) -> torch.Tensor:
        p = self._param()
        if isinstance(value, torch.Tensor):
            check_tensor(value, name, ndim=ndim)
            return value.to(device=p.device, dtype=p.dtype)
        arr = check_array(value, name, ndim=ndim)
        return torch.as_tensor(arr, dtype=p.dtype, device=p.device)

    # -- the two model calls of the contract -----------------------------------------------
    def encode(self, coords: Any, demands: Any = None, capacity: Any = None) -> torch.Tensor:
        """Node embeddings ``[B, n, embed_dim]`` of ``coords [B, n, 2]`` (or ``[n, 2]``).

        For ``problem="cvrp"`` also ``demands [B, n]`` (0 at the depot, node 0) and the
        ``capacity`` (a number or ``[B]``)."""
        x = self._as_tensor(coords, "coords", ndim=(2, 3))
        if x.ndim == 2:
            x = x[None]
        if x.shape[-1] != 2 or x.shape[1] < 1:
            raise ValueError(f"coords must have shape (B, n, 2), got {tuple(x.shape)}")
        if self.problem == "tsp":
            if demands is not None or capacity is not None:
                raise ValueError("demands and capacity are for problem='cvrp' only")
            h = self.embed(x)
        else:
            frac = self._demand_fraction(demands, capacity, x)
            h_nodes = self.embed(torch.cat([x, frac[..., None]], dim=-1))
            h = torch.cat([self.embed_depot(x[:, :1]), h_nodes[:, 1:]], dim=1)
        for block in self.encoder:
            h = block(h)
        return h

    def _demand_fraction(self, demands: Any, capacity: Any, x: torch.Tensor) -> torch.Tensor:
        if demands is None or capacity is None:
            raise ValueError("demands and capacity are required for problem='cvrp'")
        dem = self._as_tensor(demands, "demands", ndim=(1, 2))
        if dem.ndim == 1:
            dem = dem[None]
        if tuple(dem.shape) != tuple(x.shape[:2]):
            raise ValueError(
                f"demands must have shape {tuple(x.shape[:2])} to match coords, "
                f"got {tuple(dem.shape)}"
            )
        cap = self._capacity(capacity, x.shape[0])
        return dem / cap[:, None]

    def _capacity(self, capacity: Any, b: int) -> torch.Tensor:
        if isinstance(capacity, int | float | np.integer | np.floating) and not isinstance(
            capacity, bool
        ):
            value = check_float(capacity, "capacity", minimum=0.0, min_inclusive=False)
            return torch.full((b,), value, dtype=self._param().dtype, device=self._param().device)
        cap = self._as_tensor(capacity, "capacity", ndim=(0, 1))
        if cap.ndim == 0:
            cap = cap.expand(b)
        if cap.shape[0] != b or bool((cap <= 0).any()):
            raise ValueError(f"capacity must be > 0 with {b} entries, got {describe(capacity)}")
        return cap

    def next_node_logits(
        self, enc: Any, first: Any, last: Any, visited: Any, *, remaining: Any = None
    ) -> torch.Tensor:
        """Scores ``[B, n]`` of the next node; ``-inf`` at ``first``, ``last`` and ``visited``.

        ``enc``: ``encode``'s output ``[B, n, d]``; ``first`` (the node the partial path must end
        at) and ``last`` (the current node): ints or integer ``[B]``; ``visited``: bool
        ``[B, n]``. For ``problem="cvrp"`` ``first`` must be the depot 0, whose score is the
        "return to the depot" action (``-inf`` while at the depot), and ``remaining`` is the
        remaining capacity as a fraction of the capacity, ``[B]``."""
        h = check_tensor(enc, "enc", ndim=3)
        b, n, dim = h.shape
        if dim != self.embed_dim:
            raise ValueError(f"enc must have last dimension {self.embed_dim}, got {dim}")
        first_t = self._node_index(first, "first", b, n)
        last_t = self._node_index(last, "last", b, n)
        vis = self._visited(visited, b, n)
        rows = torch.arange(b, device=h.device)
        blocked = vis.clone()
        blocked[rows, first_t] = True
        blocked[rows, last_t] = True
        cvrp = self.problem == "cvrp"
        if cvrp:
            if bool((first_t != 0).any()):
                raise ValueError("first must be the depot 0 for problem='cvrp'")
            if remaining is None:
                raise ValueError("remaining is required for problem='cvrp'")
            rem = self._as_tensor(remaining, "remaining", ndim=(0, 1))
            rem = rem.expand(b) if rem.ndim == 0 else rem
            if rem.shape[0] != b:
                raise ValueError(f"remaining must have {b} entries, got {tuple(rem.shape)}")
            last_in = torch.cat([h[rows, last_t], rem[:, None].to(h.dtype)], dim=-1)
        else:
            if remaining is not None:
                raise ValueError("remaining is for problem='cvrp' only")
            last_in = h[rows, last_t]
        cand = ~blocked
        m = int(cand.sum(1).max()) if n else 0
        logits = torch.full((b, n), -math.inf, dtype=h.dtype, device=h.device)
        if m == 0 and not cvrp:
            return logits
        order = torch.argsort((~cand).to(torch.int8), dim=1, stable=True)[:, :m]
        keep_c = cand.gather(1, order)
        tokens = h.gather(1, order[..., None].expand(b, m, dim))
        x = torch.cat(
            [self.w_first(h[rows, first_t])[:, None], tokens, self.w_last(last_in)[:, None]], 1
        )
        keep = None
        if not bool(keep_c.all()):
            ones = torch.ones(b, 1, dtype=torch.bool, device=h.device)
            keep = torch.cat([ones, keep_c, ones], dim=1)
        for block in self.decoder:
            x = block(x, keep)
        scores = self.score(x).squeeze(-1)
        cand_scores = scores[:, 1 : m + 1].masked_fill(~keep_c, -math.inf)
        logits = logits.scatter(1, order, torch.where(keep_c, cand_scores, logits.gather(1, order)))
        if cvrp:
            depot = scores[:, 0].masked_fill(last_t == 0, -math.inf)
            logits[:, 0] = depot
        return logits

    def _node_index(self, value: Any, name: str, b: int, n: int) -> torch.Tensor:
        dev = self._param().device
        if isinstance(value, torch.Tensor):
            check_tensor(value, name, ndim=(0, 1), dtype="integer")
            t = value.to(device=dev, dtype=torch.long)
        else:
            if isinstance(value, bool | np.bool_):
                raise TypeError(f"{name} must be an integer node index, got {describe(value)}")
            arr = np.asarray(check_array(value, name, ndim=(0, 1), dtype="int"))
            t = torch.as_tensor(arr, dtype=torch.long, device=dev)
        t = t.expand(b) if t.ndim == 0 else t
        if t.shape[0] != b:
            raise ValueError(f"{name} must have {b} entries, got {tuple(t.shape)}")
        if bool(((t < 0) | (t >= n)).any()):
            raise ValueError(f"{name} must hold node indices in 0..{n - 1}")
        return t

    def _visited(self, value: Any, b: int, n: int) -> torch.Tensor:
        dev = self._param().device
        if isinstance(value, torch.Tensor):
            check_tensor(value, "visited", ndim=2, dtype="bool")
            v = value.to(dev)
        else:
            arr = np.asarray(value) if value is not None else None
            if arr is None or arr.dtype != np.bool_:
                raise TypeError(f"visited must be a boolean array, got {describe(value)}")
            v = torch.as_tensor(arr, device=dev)
            if v.ndim != 2:
                raise ValueError(f"visited must be 2-d, got shape {tuple(v.shape)}")
        if tuple(v.shape) != (b, n):
            raise ValueError(f"visited must have shape ({b}, {n}), got {tuple(v.shape)}")
        return v


@dataclass(frozen=True)
class FitResult:
    """Per-epoch mean teacher-forcing loss and next-node (teacher-step) accuracy."""

    loss: tuple[float, ...]
    accuracy: tuple[float, ...]


def _check_model(model: Any, problem: str | None = None) -> LEHD:
    if not isinstance(model, LEHD):
        raise TypeError(f"model must be a LEHD, got {describe(model)}")
    if problem is not None and model.problem != problem:
        raise ValueError(f"model must be a problem={problem!r} LEHD, got {model.problem!r}")
    return model


def fit(
    model: Any,
    coords: Any,
    tours: Any,
    *,
    epochs: Any,
    batch_size: Any,
    lr: Any = 1e-4,
    generator: Any = None,
    lr_decay: Any = 0.97,
    per_step_update: Any = True,
    demands: Any = None,
    capacity: Any = None,
) -> FitResult:
    """Supervised training by "learning to construct partial solutions".

    TSP: every batch draws one sub-path length ``l ~ U{4..n}``, per instance a random offset and
    a reversal with probability 1/2; the model rebuilds the labelled sub-path from its first node
    to its fixed last node by teacher forcing (loss ``-log p(teacher node)``), with an Adam step
    after every construction step (``per_step_update=True``, as in the authors' code; ``False``
    sums the steps' losses into one step). Adam ``lr``, multiplied by ``lr_decay`` per epoch.

    CVRP (``model.problem == "cvrp"``): ``tours`` is a list of solutions (see
    :mod:`lehd_routing.cvrp`), ``demands [N, n+1]`` and ``capacity`` are required; each batch
    rebuilds whole labelled solutions with their routes in random order and direction.
    """
    model = _check_model(model)
    epochs = check_int(epochs, "epochs", minimum=1)
    batch_size = check_int(batch_size, "batch_size", minimum=1)
    lr = check_float(lr, "lr", minimum=0.0, min_inclusive=False)
    lr_decay = check_float(lr_decay, "lr_decay", minimum=0.0, maximum=1.0, min_inclusive=False)
    per_step_update = check_bool(per_step_update, "per_step_update")
    gen = check_generator(generator, "generator")
    c = check_coords(coords, "coords")
    if model.problem == "tsp":
        if demands is not None or capacity is not None:
            raise ValueError("demands and capacity are for problem='cvrp' only")
        t = check_tours(tours, c, "tours")
        if c.shape[1] < MIN_SUBPATH:
            raise ValueError(f"coords must have at least {MIN_SUBPATH} nodes, got {c.shape[1]}")
        batches = _tsp_batches
        data = (c, t)
    else:
        data = _cvrp_data(c, tours, demands, capacity)
        batches = _cvrp_batches
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    sched = torch.optim.lr_scheduler.ExponentialLR(opt, gamma=lr_decay)
    losses, accs = [], []
    model.train()
    for _ in range(epochs):
        perm = torch.randperm(c.shape[0], generator=gen).numpy()
        tot_loss = tot_steps = tot_hits = 0.0
        for i in range(0, len(perm), batch_size):
            idx = perm[i : i + batch_size]
            loss_sum, hits, steps = batches(model, data, idx, gen, opt, per_step_update)
            tot_loss += loss_sum
            tot_hits += hits
            tot_steps += steps
        sched.step()
        losses.append(tot_loss / max(tot_steps, 1))
        accs.append(tot_hits / max(tot_steps, 1))
    model.eval()
    return FitResult(tuple(losses), tuple(accs))


def _torch_int(high: int, size, gen, low: int = 0) -> np.ndarray:
    return torch.randint(low, high, size, generator=gen).numpy()


def _optimise(opt, per_step: bool, loss: torch.Tensor, pending: list) -> None:
    if per_step:
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
    else:
        pending.append(loss)


def _finish(opt, pending: list) -> None:
    if pending:
        opt.zero_grad(set_to_none=True)
        torch.stack(pending).sum().backward()
        opt.step()


def _tsp_batches(model, data, idx, gen, opt, per_step):
    coords, tours = data
    b, n = len(idx), tours.shape[1]
    length = int(_torch_int(n + 1, (1,), gen, low=MIN_SUBPATH)[0])
    offsets = _torch_int(n, (b,), gen)
    reverse = torch.rand(b, generator=gen).numpy() < 0.5
    nodes = subpath_nodes(tours[idx], length, offsets, reverse)
    sub = np.take_along_axis(coords[idx], nodes[..., None], axis=1)
    p = model._param()
    sub_t = torch.as_tensor(sub, dtype=p.dtype, device=p.device)
    visited = torch.zeros(b, length, dtype=torch.bool, device=p.device)
    visited[:, 0] = True
    loss_sum = hits = steps = 0.0
    pending: list = []
    enc = None if per_step else model.encode(sub_t)
    for step in range(length - 3):  # the last choice (one candidate left) is forced
        e = model.encode(sub_t) if per_step else enc
        logits = model.next_node_logits(e, length - 1, step, visited)
        target = torch.full((b,), step + 1, dtype=torch.long, device=p.device)
        loss = F.cross_entropy(logits, target)
        _optimise(opt, per_step, loss, pending)
        loss_sum += float(loss.detach()) * b
        hits += float((logits.detach().argmax(1) == target).sum())
        steps += b
        visited[:, step + 1] = True
    _finish(opt, pending)
    return loss_sum, hits, steps


def _cvrp_logits(model, enc, last, visited, load, dem64, cap64):
    """Next-node logits of a CVRP state with the capacity mask (loads in float64, exact units:
    a customer fits when ``load + demand <= capacity``)."""
    remaining = ((cap64 - load) / cap64).to(enc.dtype)
    logits = model.next_node_logits(enc, 0, last, visited, remaining=remaining)
    too_big = load[:, None] + dem64 > cap64[:, None] * (1 + 1e-12)
    too_big[:, 0] = False
    return logits.masked_fill(too_big, -math.inf)


# -- CVRP data -------------------------------------------------------------------------------
def _cvrp_data(c, solutions, demands, capacity):
    if demands is None or capacity is None:
        raise ValueError("demands and capacity are required to fit a problem='cvrp' model")
    dem = check_array(demands, "demands", ndim=2)
    if dem.shape != c.shape[:2]:
        raise ValueError(f"demands must have shape {c.shape[:2]}, got {dem.shape}")
    caps = _capacities(capacity, c.shape[0])
    if not isinstance(solutions, list | tuple) and not (
        isinstance(solutions, np.ndarray) and solutions.ndim == 2
    ):
        raise TypeError(f"tours must be a list of CVRP solutions, got {describe(solutions)}")
    if len(solutions) != c.shape[0]:
        raise ValueError(
            f"tours has {len(solutions)} solutions but coords has {c.shape[0]} instances"
        )
    route_lists = []
    for k, sol in enumerate(solutions):
        if not _cvrp.is_feasible(sol, dem[k], caps[k]):
            raise ValueError(f"tours[{k}] is not a feasible solution of instance {k}")
        route_lists.append(_cvrp.routes(sol))
    return c, dem, caps, route_lists


def _capacities(capacity: Any, b: int) -> np.ndarray:
    if np.ndim(capacity) == 0:
        cap = check_float(capacity, "capacity", minimum=0.0, min_inclusive=False)
        return np.full(b, cap)
    cap = check_array(capacity, "capacity", ndim=1)
    if cap.shape[0] != b or np.any(cap <= 0):
        raise ValueError(f"capacity must be > 0 with {b} entries, got shape {cap.shape}")
    return cap


def _cvrp_batches(model, data, idx, gen, opt, per_step):
    coords, dem, caps, route_lists = data
    b, n1 = len(idx), coords.shape[1]
    seqs = []
    for k in idx:
        rl = route_lists[k]
        order = torch.randperm(len(rl), generator=gen).numpy()
        flips = torch.rand(len(rl), generator=gen).numpy() < 0.5
        seq = []
        for r, f in zip(order, flips):
            seq.extend((rl[r][::-1] if f else rl[r]).tolist())
            seq.append(0)
        seqs.append(seq)  # actions after leaving the depot: customers and returns
    n_act = max(len(s) for s in seqs)
    p = model._param()
    x = torch.as_tensor(coords[idx], dtype=p.dtype, device=p.device)
    d_np = dem[idx]
    d = torch.as_tensor(d_np, dtype=p.dtype, device=p.device)
    cap = torch.as_tensor(caps[idx], dtype=p.dtype, device=p.device)
    dem64 = torch.as_tensor(d_np, dtype=torch.float64, device=p.device)
    cap64 = torch.as_tensor(caps[idx], dtype=torch.float64, device=p.device)
    visited = torch.zeros(b, n1, dtype=torch.bool, device=p.device)
    last = torch.zeros(b, dtype=torch.long, device=p.device)
    load = torch.zeros(b, dtype=torch.float64, device=p.device)  # exact units, float64
    loss_sum = hits = steps = 0.0
    pending: list = []
    enc = None if per_step else model.encode(x, d, cap)
    rows = torch.arange(b, device=p.device)
    for step in range(n_act - 1):  # the final return to the depot is forced
        target_np = np.array([s[step] if step < len(s) else -1 for s in seqs])
        active = torch.as_tensor(target_np >= 0, device=p.device)
        target = torch.as_tensor(np.maximum(target_np, 0), device=p.device)
        done_all = visited[:, 1:].all(1)
        active = active & ~done_all
        if not bool(active.any()):
            break
        e = model.encode(x, d, cap) if per_step else enc
        logits = _cvrp_logits(model, e, last, visited, load, dem64, cap64)
        feasible = torch.isfinite(logits).sum(1) > 1  # more than one choice: a real decision
        use = active & feasible
        if bool(use.any()):
            loss = F.cross_entropy(logits[use], target[use])
            _optimise(opt, per_step, loss, pending)
            loss_sum += float(loss.detach()) * int(use.sum())
            hits += float((logits.detach().argmax(1)[use] == target[use]).sum())
            steps += int(use.sum())
        moving = active
        tgt = torch.where(moving, target, last)
        at_depot = tgt == 0
        visited[rows[moving], tgt[moving]] = True
        visited[:, 0] = False
        new_load = torch.where(at_depot, torch.zeros_like(load), load + dem64[rows, tgt])
        load = torch.where(moving, new_load, load)
        last = tgt
    _finish(opt, pending)
    return loss_sum, hits, steps


# -- decoding --------------------------------------------------------------------------------
@torch.no_grad()
def _build_paths(model: LEHD, sub: torch.Tensor, start: np.ndarray, end: np.ndarray | None):
    """Greedy paths over each instance's nodes from ``start`` (ending at ``end`` when given,
    else returning to ``start``): int64 ``[B, l]`` node orders."""
    b, length = sub.shape[:2]
    dev = sub.device
    enc = model.encode(sub)
    rows = torch.arange(b, device=dev)
    first = torch.as_tensor(start if end is None else end, device=dev)
    last = torch.as_tensor(start, device=dev)
    visited = torch.zeros(b, length, dtype=torch.bool, device=dev)
    visited[rows, last] = True
    order = [last]
    free = length - 1 if end is None else length - 2  # nodes to choose
    for step in range(free):
        if step == free - 1:  # one candidate left
            blocked = visited.clone()
            blocked[rows, first] = True
            nxt = (~blocked).to(torch.int8).argmax(1)
        else:
            nxt = model.next_node_logits(enc, first, last, visited).argmax(1)
        visited[rows, nxt] = True
        order.append(nxt)
        last = nxt
    if end is not None:
        order.append(first)
    return torch.stack(order, 1).cpu().numpy().astype(np.int64)


def _coords_tensor(model: LEHD, c: np.ndarray) -> torch.Tensor:
    p = model._param()
    return torch.as_tensor(c, dtype=p.dtype, device=p.device)


def greedy(model: Any, coords: Any, *, start: Any = 0) -> np.ndarray:
    """Greedy (argmax) tours from node ``start`` (first = ``start``, last = the current node):
    int64 ``[B, n]`` (``[n]`` for a single ``[n, 2]`` instance)."""
    model = _check_model(model, "tsp")
    single = np.ndim(coords) == 2
    c = check_coords(coords, "coords")
    b, n, _ = c.shape
    start = check_int(start, "start", minimum=0, maximum=n - 1)
    was = model.training
    model.eval()
    try:
        tours = _build_paths(model, _coords_tensor(model, c), np.full(b, start), None)
    finally:
        model.train(was)
    return tours[0] if single else tours


def _path_length(pts: np.ndarray) -> np.ndarray:
    return np.sqrt(((pts[:, 1:] - pts[:, :-1]) ** 2).sum(-1)).sum(-1)


def rrc(
    model: Any, coords: Any, tours: Any, *, iterations: Any, rng: Any = None
) -> tuple[np.ndarray, np.ndarray]:
    """Random Re-Construct: ``iterations`` times, per instance pick a random segment (one length
    ``l ~ U{4..n}`` per iteration, a uniform offset and direction per instance), rebuild it
    greedily with the model between its two fixed endpoints, keep it if the tour gets shorter.

    Returns ``(tours [B, n], lengths [B, iterations + 1])``; ``lengths[:, 0]`` is the input's
    length and every row is non-increasing."""
    model = _check_model(model, "tsp")
    single = np.ndim(coords) == 2 and np.ndim(tours) == 1
    c = check_coords(coords, "coords")
    t = check_tours(tours, c, "tours").copy()
    iterations = check_int(iterations, "iterations", minimum=0)
    gen = check_rng(rng, "rng")
    b, n, _ = c.shape
    from .tsp import _closed_length

    history = np.empty((b, iterations + 1))
    history[:, 0] = _closed_length(c, t)
    was = model.training
    model.eval()
    try:
        for it in range(iterations):
            if n < MIN_SUBPATH:
                history[:, it + 1] = history[:, it]
                continue
            length = int(gen.integers(MIN_SUBPATH, n + 1))
            offsets = gen.integers(0, n, size=b)
            reverse = gen.random(b) < 0.5
            nodes = subpath_nodes(t, length, offsets, reverse)
            sub = np.take_along_axis(c, nodes[..., None], axis=1)
            order = _build_paths(
                model, _coords_tensor(model, sub), np.zeros(b, int), np.full(b, length - 1)
            )
            new_nodes = np.take_along_axis(nodes, order, axis=1)
            new_sub = np.take_along_axis(c, new_nodes[..., None], axis=1)
            old_len, new_len = _path_length(sub), _path_length(new_sub)
            better = new_len < old_len - 1e-12
            for k in np.flatnonzero(better):
                seg = new_nodes[k][::-1] if reverse[k] else new_nodes[k]
                pos = (offsets[k] + np.arange(length)) % n
                t[k, pos] = seg
            cur = _closed_length(c, t)
            history[:, it + 1] = np.minimum(cur, history[:, it])  # guards float round-off
    finally:
        model.train(was)
    if single:
        return t[0], history[0]
    return t, history


# -- CVRP decoding ---------------------------------------------------------------------------
def greedy_cvrp(model: Any, coords: Any, demands: Any, capacity: Any) -> list[np.ndarray]:
    """Greedy CVRP solutions, one 1-d array ``0 ... 0`` per instance (a list; coords
    ``[B, n+1, 2]`` or one ``[n+1, 2]`` instance, demands ``[B, n+1]``, capacity a number or
    ``[B]``). The vehicle returns to the depot when no customer fits its remaining load."""
    model = _check_model(model, "cvrp")
    c = check_coords(coords, "coords", min_nodes=2)
    dem = check_array(demands, "demands", ndim=(1, 2))
    if dem.ndim == 1:
        dem = dem[None]
    if dem.shape != c.shape[:2]:
        raise ValueError(f"demands must have shape {c.shape[:2]} to match coords, got {dem.shape}")
    caps = _capacities(capacity, c.shape[0])
    for k in range(c.shape[0]):
        _cvrp._check_instance(c[k], dem[k], caps[k])
    b, n1, _ = c.shape
    p = model._param()
    was = model.training
    model.eval()
    try:
        with torch.no_grad():
            x = _coords_tensor(model, c)
            d = torch.as_tensor(dem, dtype=p.dtype, device=p.device)
            cap = torch.as_tensor(caps, dtype=p.dtype, device=p.device)
            dem64 = torch.as_tensor(dem, dtype=torch.float64, device=p.device)
            cap64 = torch.as_tensor(caps, dtype=torch.float64, device=p.device)
            enc = model.encode(x, d, cap)
            rows = torch.arange(b, device=p.device)
            visited = torch.zeros(b, n1, dtype=torch.bool, device=p.device)
            last = torch.zeros(b, dtype=torch.long, device=p.device)
            load = torch.zeros(b, dtype=torch.float64, device=p.device)
            seqs: list[list[int]] = [[0] for _ in range(b)]
            for _ in range(2 * n1):
                done = visited[:, 1:].all(1)
                if bool(done.all()):
                    break
                logits = _cvrp_logits(model, enc, last, visited, load, dem64, cap64)
                nxt = logits.argmax(1)
                nxt = torch.where(done, torch.zeros_like(nxt), nxt)
                for k in (~done).nonzero().flatten().tolist():
                    seqs[k].append(int(nxt[k]))
                visited[rows, nxt] = True
                visited[:, 0] = False
                load = torch.where(nxt == 0, torch.zeros_like(load), load + dem64[rows, nxt])
                last = nxt
    finally:
        model.train(was)
    out = []
    for s in seqs:
        if s[-1] != 0:
            s.append(0)
        out.append(np.array(s, dtype=np.int64))
    return out
