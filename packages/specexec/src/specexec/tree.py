"""Draft trees: the best-first "cache" tree of SpecExec, its tree-attention layout and its validation.

SpecExec: Massively Parallel Speculative Decoding for Interactive LLM Inference on Consumer
Devices (Svirschevski, May, Chen, Chen, Jia, Ryabinin; NeurIPS 2024) -
https://arxiv.org/abs/2406.02532

Implements Sec. 3.1 (the cache tree: the ``budget`` most probable continuations under the draft,
found best-first like Dijkstra's algorithm, Alg. 1 "grow tree"), the tree-attention layout used to
score a whole tree in one forward (4-D mask + position ids), and Sec. 3.2 / Alg. 1 "validate":
one independent target sample per node, walk from the root while a child carries the sample.

Conventions: node ids are 0..N-1 in topological order (a parent before its children); the root
is not a node, it is the last token of the prefix and has id ``-1``. Depth 1 = child of the root.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ._checks import (
    check_array,
    check_callable,
    check_float,
    check_int,
    check_rng,
    check_same_length,
    describe,
)
from .sampling import _warp_probs, check_sampling_args, draw, row_to_numpy

ROOT = -1


@dataclass(frozen=True)
class DraftTree:
    """A token tree hanging below the last prefix token (the root, id -1).

    Attributes:
        tokens: (N,) int64 token of each node.
        parents: (N,) int64 parent id (-1 = root); ``parents[i] < i`` (topological order).
        depths: (N,) int64 depth (1 for children of the root).
        logprobs: (N,) float64 cumulative draft log-probability along root -> node (plus the
            per-level log-decay if one was used); non-increasing along every path.

    >>> t = DraftTree.from_parents(tokens=[5, 7, 9], parents=[-1, 0, -1])
    >>> t.path(1).tolist(), t.children(-1).tolist(), t.depths.tolist()
    ([0, 1], [0, 2], [1, 2, 1])
    >>> t.attention_mask(prefix_len=2).astype(int).tolist()
    [[1, 1, 1, 0, 0], [1, 1, 1, 1, 0], [1, 1, 0, 0, 1]]
    >>> t.position_ids(prefix_len=2).tolist()
    [2, 3, 2]
    """

    tokens: np.ndarray
    parents: np.ndarray
    depths: np.ndarray
    logprobs: np.ndarray
    _child_index: dict = field(default=None, repr=False, compare=False)

    def __post_init__(self):
        tok = check_array(self.tokens, "tokens", ndim=1, dtype="int", allow_empty=True)
        par = check_array(self.parents, "parents", ndim=1, dtype="int", allow_empty=True)
        dep = check_array(self.depths, "depths", ndim=1, dtype="int", allow_empty=True)
        # -inf is a valid cumulative log-probability (an impossible path); NaN/+inf are not
        lp = check_array(self.logprobs, "logprobs", ndim=1, allow_empty=True, finite=False)
        tok, par, dep = (a.astype(np.int64) for a in (tok, par, dep))
        n = check_same_length(tokens=tok, parents=par, depths=dep, logprobs=lp)
        idx = np.arange(n)
        if n and ((par < ROOT).any() or (par >= idx).any()):
            raise ValueError("parents must satisfy -1 <= parents[i] < i (topological order)")
        if n and (tok < 0).any():
            raise ValueError(f"tokens must be non-negative, got {tok.min()}")
        if np.isnan(lp).any() or (lp == np.inf).any():
            raise ValueError("logprobs must not contain NaN or +inf")
        if n:
            expect = np.where(par >= 0, dep[np.maximum(par, 0)] + 1, 1)
            if not np.array_equal(dep, expect):
                raise ValueError("depths must equal depth(parent) + 1 (1 for children of the root)")
            keys = (par + 1) * (int(tok.max()) + 1) + tok
            if np.unique(keys).shape[0] != n:
                raise ValueError("two children of one node carry the same token")
        for name, arr in (("tokens", tok), ("parents", par), ("depths", dep), ("logprobs", lp)):
            arr.setflags(write=False)
            object.__setattr__(self, name, arr)

    @classmethod
    def from_parents(cls, tokens, parents, logprobs=None) -> DraftTree:
        """Build a tree from tokens and parent ids (depths derived; log-probs default to 0)."""
        par = check_array(parents, "parents", ndim=1, dtype="int", allow_empty=True)
        dep = np.ones(par.shape[0], dtype=np.int64)
        for i, p in enumerate(par):
            if 0 <= p < i:
                dep[i] = dep[p] + 1
        lp = np.zeros(par.shape[0]) if logprobs is None else logprobs
        return cls(tokens=tokens, parents=par, depths=dep, logprobs=lp)

    @classmethod
    def _unchecked(cls, tokens, parents, depths, logprobs) -> DraftTree:
        """Construct without validation (internal: build_tree's per-round snapshots)."""
        obj = object.__new__(cls)
        object.__setattr__(obj, "tokens", np.asarray(tokens, dtype=np.int64))
        object.__setattr__(obj, "parents", np.asarray(parents, dtype=np.int64))
        object.__setattr__(obj, "depths", np.asarray(depths, dtype=np.int64))
        object.__setattr__(obj, "logprobs", np.asarray(logprobs, dtype=np.float64))
        object.__setattr__(obj, "_child_index", None)
        return obj

    @classmethod
    def empty(cls) -> DraftTree:
        """The tree with no nodes (validation then emits one target token)."""
        z = np.zeros(0, dtype=np.int64)
        return cls(tokens=z, parents=z, depths=z, logprobs=np.zeros(0))

    def __len__(self) -> int:
        return int(self.tokens.shape[0])

    @property
    def depth(self) -> int:
        """Largest node depth (0 for the empty tree)."""
        return int(self.depths.max()) if len(self) else 0

    def children(self, node: int) -> np.ndarray:
        """(k,) ids of the children of ``node`` (-1 for the root), ascending."""
        node = self._check_node(node, allow_root=True)
        return np.flatnonzero(self.parents == node)

    def child_with_token(self, node: int, token: int) -> int | None:
        """Id of the child of ``node`` that carries ``token``, or ``None``."""
        if self._child_index is None:
            index = {(int(p), int(t)): i for i, (p, t) in enumerate(zip(self.parents, self.tokens))}
            object.__setattr__(self, "_child_index", index)
        return self._child_index.get((int(node), int(token)))

    def path(self, node: int) -> np.ndarray:
        """(depth,) node ids from the root's child down to ``node`` (empty for the root)."""
        node = self._check_node(node, allow_root=True)
        out = []
        while node != ROOT:
            out.append(node)
            node = int(self.parents[node])
        return np.asarray(out[::-1], dtype=np.int64)

    def path_tokens(self, node: int) -> np.ndarray:
        """(depth,) tokens along root -> ``node`` (the root's own token excluded)."""
        return self.tokens[self.path(node)]

    def ancestor_matrix(self) -> np.ndarray:
        """(N, N) bool, ``[i, j]`` true iff j is i or an ancestor of i."""
        n = len(self)
        a = np.zeros((n, n), dtype=bool)
        for i in range(n):
            p = self.parents[i]
            if p >= 0:
                a[i] = a[p]
            a[i, i] = True
        return a

    def attention_mask(self, prefix_len: int) -> np.ndarray:
        """Tree-attention mask for the nodes appended after ``prefix_len`` prefix tokens.

        Node i sees every prefix position (the root is the last one), its ancestors and itself.

        Returns:
            (N, prefix_len + N) bool, True = may attend.
        """
        prefix_len = _check_prefix_len(prefix_len)
        n = len(self)
        out = np.ones((n, prefix_len + n), dtype=bool)
        out[:, prefix_len:] = self.ancestor_matrix()
        return out

    def position_ids(self, prefix_len: int) -> np.ndarray:
        """(N,) int64 positions: ``prefix_len - 1 + depth`` (the root sits at ``prefix_len - 1``)."""
        prefix_len = _check_prefix_len(prefix_len)
        return prefix_len - 1 + self.depths

    def is_ancestor_closed(self) -> bool:
        """True: every parent id is -1 or a node of the tree (always true for a valid DraftTree)."""
        n = len(self)
        return bool(((self.parents == ROOT) | ((self.parents >= 0) & (self.parents < n))).all())

    def subtree(self, keep) -> DraftTree:
        """The ancestor-closed subset ``keep`` (ids or bool mask), re-indexed in topological order."""
        keep = np.asarray(keep)
        ids = np.flatnonzero(keep) if keep.dtype == bool else np.unique(keep.astype(np.int64))
        remap = np.full(len(self) + 1, -2, dtype=np.int64)
        remap[-1] = ROOT  # parent -1 maps to -1
        remap[ids] = np.arange(ids.shape[0])
        new_par = remap[self.parents[ids]]
        if (new_par == -2).any():
            raise ValueError("keep is not ancestor-closed")
        return DraftTree(
            tokens=self.tokens[ids],
            parents=new_par,
            depths=self.depths[ids],
            logprobs=self.logprobs[ids],
        )

    def _check_node(self, node, *, allow_root: bool) -> int:
        lo = ROOT if allow_root else 0
        return check_int(node, "node", minimum=lo, maximum=len(self) - 1)


def _check_prefix_len(prefix_len) -> int:
    """The prefix holds at least the root token."""
    return check_int(prefix_len, "prefix_len", minimum=1)


def _topk_rows(x, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Top-``k`` (values, indices) of each row of an (n, V) numpy array or torch tensor."""
    if hasattr(x, "topk"):  # torch: select on the device, move only (n, k) to the host
        v, i = x.float().topk(k, dim=-1)
        return v.detach().cpu().double().numpy(), i.detach().cpu().numpy().astype(np.int64)
    x = np.asarray(x, dtype=np.float64)
    if k < x.shape[1]:
        i = np.argpartition(-x, k - 1, axis=1)[:, :k]
    else:
        i = np.broadcast_to(np.arange(x.shape[1]), x.shape).copy()
    v = np.take_along_axis(x, i, axis=1)
    order = np.argsort(-v, axis=1, kind="stable")
    return np.take_along_axis(v, order, axis=1), np.take_along_axis(i, order, axis=1)


def _log_softmax_rows(x):
    if hasattr(x, "log_softmax"):
        return x.float().log_softmax(dim=-1)
    x = np.asarray(x, dtype=np.float64)
    m = x.max(axis=1, keepdims=True)
    m = np.where(np.isfinite(m), m, 0.0)
    return x - m - np.log(np.exp(x - m).sum(axis=1, keepdims=True))


def check_tree_options(max_depth, max_expand, branch_width, decay, min_logprob):
    """The tree-construction options of :func:`build_tree`, checked and normalised."""
    max_depth = check_int(max_depth, "max_depth", minimum=1)
    max_expand = check_int(max_expand, "max_expand", minimum=1)
    branch_width = check_int(branch_width, "branch_width", minimum=1)
    decay = check_float(decay, "decay", minimum=0.0, maximum=1.0, min_inclusive=False)
    min_logprob = check_float(min_logprob, "min_logprob", finite=False)
    if min_logprob == math.inf:
        raise ValueError("min_logprob must be < inf (no node could enter), got inf")
    return max_depth, max_expand, branch_width, decay, min_logprob


@dataclass
class BuildStats:
    """What one tree construction cost: draft forward calls and tokens fed to the draft."""

    draft_calls: int = 0
    draft_tokens: int = 0
    vocab_size: int | None = None


def build_tree(
    draft_logprobs_fn: Callable,
    prefix,
    budget: int,
    *,
    max_depth: int = 32,  # reference max_beam_len
    max_expand: int = 128,  # reference max_n_beams (nodes expanded per draft forward)
    branch_width: int = 16,  # reference max_branch_width (16-32)
    decay: float = 1.0,  # reference uses 0.95 (log-decay per level)
    min_logprob: float = -math.inf,
    stats: BuildStats | None = None,
) -> DraftTree:
    """Grow the ``budget`` most probable draft continuations best-first (SpecExec Sec. 3.1, Alg. 1).

    Each round takes up to ``max_expand`` not-yet-expanded nodes of the current top-``budget``
    set with the highest cumulative log-probability ℓ, asks the draft for their next-token
    distributions in one call, offers each its ``branch_width`` most probable children with
    ℓ(child) = ℓ(parent) + log p_draft(child) + log(decay), and keeps the children that enter
    the global top-``budget``. Rounds stop when no unexpanded node can still produce a child
    that enters (a child never beats its parent), or after ``max_depth`` rounds; nodes are never
    deeper than ``max_depth``. Ties are broken by (depth, creation order), so the kept set is
    always ancestor-closed. With ``max_expand >= budget``, ``branch_width = V`` and a depth
    limit that the optimum respects, the result is exactly the top-``budget`` set of nodes, i.e.
    the tree maximising Σ_v exp ℓ(v) (the expected accepted length if draft = target).

    Args:
        draft_logprobs_fn: ``f(tree, node_ids) -> (len(node_ids), V)`` next-token log-probs
            (or logits; rows are log-softmax-normalised here) of the draft after the path to
            each node; ``-1`` is the root (the last prefix token). ``tree`` is the tree grown so
            far (ids are stable during construction). Numpy arrays or torch tensors.
        prefix: (P,) prefix tokens, P >= 1; the last one is the root. Passed through for
            bookkeeping only (``draft_logprobs_fn`` owns the model context).
        budget: number of nodes K >= 1.
        max_depth: depth limit and limit on draft calls.
        max_expand: nodes expanded per draft call (B).
        branch_width: children offered per expanded node (w).
        decay: per-level factor in (0, 1] multiplying the path probability.
        min_logprob: children with ℓ below this are not added.
        stats: optional :class:`BuildStats`, incremented in place.

    Returns:
        A :class:`DraftTree` with at most ``budget`` nodes, in topological order.
    """
    check_callable(draft_logprobs_fn, "draft_logprobs_fn")
    prefix = check_array(prefix, "prefix", ndim=1, dtype="int")
    budget = check_int(budget, "budget", minimum=1)
    max_depth, max_expand, branch_width, decay, min_logprob = check_tree_options(
        max_depth, max_expand, branch_width, decay, min_logprob
    )
    log_decay = math.log(decay)
    if stats is None:
        stats = BuildStats()
    elif not isinstance(stats, BuildStats):
        raise TypeError(f"stats must be a BuildStats or None, got {describe(stats)}")

    # Append-only node storage; ids stay stable for draft_logprobs_fn during construction.
    tokens: list[int] = []
    parents: list[int] = []
    depths: list[int] = []
    scores: list[float] = []
    alive = np.zeros(0, dtype=bool)  # in the current top-K
    expanded = np.zeros(0, dtype=bool)
    root_done = False

    def snapshot() -> DraftTree:
        return DraftTree._unchecked(tokens, parents, depths, scores)

    for _ in range(max_depth):
        n = len(tokens)
        sc = np.asarray(scores, dtype=np.float64)
        full = int(alive.sum()) >= budget
        kth = _kth_score(sc, alive, budget) if full else -math.inf
        if not root_done:
            batch = np.array([ROOT], dtype=np.int64)
        else:
            dep = np.asarray(depths, dtype=np.int64)
            # a child scores <= parent + log(decay): skip nodes whose children cannot enter
            # (when full, a child must beat the K-th score; exact ties are not worth a call)
            ok = alive & ~expanded & (dep < max_depth) & (sc + log_decay >= min_logprob)
            if full:
                ok &= sc + log_decay > kth
            cand = np.flatnonzero(ok)
            if cand.size == 0:
                break
            order = np.lexsort((cand, dep[cand], -sc[cand]))  # best first, ties by depth, id
            batch = cand[order[:max_expand]]
        tree = snapshot()
        logits = draft_logprobs_fn(tree, batch.copy())
        stats.draft_calls += 1
        stats.draft_tokens += int(batch.shape[0])
        shape = tuple(logits.shape)
        if len(shape) != 2 or shape[0] != batch.shape[0]:
            raise ValueError(
                f"draft_logprobs_fn returned shape {shape}, expected ({batch.shape[0]}, V)"
            )
        stats.vocab_size = int(shape[1])
        if root_done:
            expanded[batch] = True
        root_done = True
        w = min(branch_width, shape[1])
        vals, idx = _topk_rows(_log_softmax_rows(logits), w)  # (b, w) each
        if np.isnan(vals).any():
            raise ValueError("draft_logprobs_fn returned NaN")
        base = np.array([0.0 if b == ROOT else sc[b] for b in batch])
        child_sc = base[:, None] + log_decay + vals  # (b, w)
        child_par = np.repeat(batch, w)
        child_tok = idx.reshape(-1)
        child_sc = child_sc.reshape(-1)
        child_dep = np.array([1 if b == ROOT else depths[b] + 1 for b in batch]).repeat(w)
        good = np.isfinite(child_sc) & (child_sc >= min_logprob) & (child_dep <= max_depth)
        child_par, child_tok, child_sc, child_dep = (
            a[good] for a in (child_par, child_tok, child_sc, child_dep)
        )
        if child_sc.size == 0:
            continue
        # global top-K over (alive nodes + offered children) under the total order
        # (score desc, depth asc, creation order asc); new children come after existing nodes
        old = np.flatnonzero(alive)
        all_sc = np.concatenate([sc[old], child_sc])
        all_dep = np.concatenate([np.asarray(depths, dtype=np.int64)[old], child_dep])
        all_ord = np.concatenate([old, n + np.arange(child_sc.size)])
        order = np.lexsort((all_ord, all_dep, -all_sc))[:budget]
        keep_old = np.zeros(old.size, dtype=bool)
        keep_old[order[order < old.size]] = True
        new_sel = np.sort(order[order >= old.size] - old.size)
        alive[old[~keep_old]] = False
        if new_sel.size == 0:
            continue
        tokens.extend(child_tok[new_sel].tolist())
        parents.extend(child_par[new_sel].tolist())
        depths.extend(child_dep[new_sel].tolist())
        scores.extend(child_sc[new_sel].tolist())
        alive = np.concatenate([alive, np.ones(new_sel.size, dtype=bool)])
        expanded = np.concatenate([expanded, np.zeros(new_sel.size, dtype=bool)])

    if not tokens:
        return DraftTree.empty()
    keep = np.flatnonzero(alive)
    remap = np.full(len(tokens) + 1, ROOT, dtype=np.int64)
    remap[keep] = np.arange(keep.size)
    par = np.asarray(parents, dtype=np.int64)[keep]
    return DraftTree(
        tokens=np.asarray(tokens, dtype=np.int64)[keep],
        parents=remap[par],  # parent -1 reads remap[-1] = -1
        depths=np.asarray(depths, dtype=np.int64)[keep],
        logprobs=np.asarray(scores, dtype=np.float64)[keep],
    )


def _kth_score(sc: np.ndarray, alive: np.ndarray, k: int) -> float:
    vals = np.sort(sc[alive])[::-1]
    return float(vals[k - 1])


def validate_tree(
    tree: DraftTree, target_logits, *, temperature: float = 1.0, top_p: float = 1.0, rng=None
) -> tuple[np.ndarray, int, np.ndarray]:
    """Verify a draft tree with the target's logits (SpecExec Sec. 3.2, Alg. 1 "validate").

    At every visited node u one independent token y_u is drawn from the warped target
    distribution; if a child of u carries y_u the walk moves there, otherwise y_u is emitted
    and the walk stops. Every emitted token is a genuine target sample given its actual prefix,
    so the output is distributed exactly as the target's (greedy at ``temperature=0``). Only
    the samples on the walked path are drawn (the others would not change the output).

    Args:
        tree: the draft tree (N nodes).
        target_logits: (N+1, V) target logits, row 0 after the root, row i+1 after node i
            (numpy or torch; only the rows on the walked path are read).
        temperature: exactly 0 = greedy, otherwise > 0.
        top_p: nucleus mass in (0, 1].
        rng: ``None``, an int seed or a ``numpy.random.Generator`` (unused when greedy).

    Returns:
        ``(accepted_tokens (m,) int64, extra_token int, accepted_node_ids (m,) int64)``;
        the pass emits ``m + 1`` tokens.

    >>> t = DraftTree.from_parents(tokens=[1, 2], parents=[-1, 0])
    >>> logits = np.log([[0.1, 0.9, 0.0], [0.0, 0.1, 0.9], [0.0, 0.0, 1.0]] + np.array(1e-30))
    >>> validate_tree(t, logits, temperature=0)
    (array([1, 2]), 2, array([0, 1]))
    """
    if not isinstance(tree, DraftTree):
        raise TypeError(f"tree must be a DraftTree, got {describe(tree)}")
    temperature, top_p = check_sampling_args(temperature, top_p)
    rng = check_rng(rng)
    if type(target_logits).__module__.startswith("torch"):
        from ._checks import check_tensor

        check_tensor(target_logits, "target_logits", ndim=2, finite=False)
    else:  # rows are checked for NaN / +inf when they are read
        target_logits = check_array(target_logits, "target_logits", ndim=2, finite=False)
    shape = tuple(target_logits.shape)
    if shape[0] != len(tree) + 1:
        raise ValueError(
            f"target_logits must have shape (N+1, V) = ({len(tree) + 1}, V), got {shape}"
        )
    node = ROOT
    accepted: list[int] = []
    while True:
        try:
            y = draw(target_logits[node + 1], temperature, top_p, rng)
        except ValueError as e:
            raise ValueError(f"target_logits row {node + 1}: {e}") from None
        child = tree.child_with_token(node, y)
        if child is None:
            ids = np.asarray(accepted, dtype=np.int64)
            return tree.tokens[ids], y, ids
        accepted.append(child)
        node = child


def expected_tokens_per_pass(
    tree: DraftTree, target_prob_fn, *, temperature: float = 1.0, top_p: float = 1.0
) -> float:
    """Analytic expected tokens per pass: ``1 + Σ_v Π_{edges e on root->v} q_target(e)``.

    Args:
        tree: the draft tree.
        target_prob_fn: the target's next-token distributions at the root and every node, as an
            (N+1, V) array (row 0 = root, row i+1 = node i) or a callable
            ``f(tree, node_ids) -> (n, V)`` (node id -1 = root). Rows may be probabilities,
            log-probabilities or logits; they are warped with ``temperature``/``top_p`` here.
        temperature, top_p: the target's sampling rule.

    Returns:
        The expectation (>= 1).

    >>> t = DraftTree.from_parents(tokens=[0, 1], parents=[-1, 0])
    >>> expected_tokens_per_pass(t, np.array([[0.5, 0.5], [0.2, 0.8], [1.0, 0.0]]))
    1.9
    """
    temperature, top_p = check_sampling_args(temperature, top_p)
    if not isinstance(tree, DraftTree):
        raise TypeError(f"tree must be a DraftTree, got {describe(tree)}")
    n = len(tree)
    logits = target_prob_fn(tree, np.arange(-1, n)) if callable(target_prob_fn) else target_prob_fn
    if type(logits).__module__.startswith("torch"):
        logits = row_to_numpy(logits)
    logits = check_array(logits, "target_prob_fn", ndim=2, finite=False)
    if logits.shape[0] != n + 1:
        raise ValueError(
            f"target_prob_fn must give shape ({n + 1}, V) (row 0 = root), got {logits.shape}"
        )
    if np.isnan(logits).any() or (logits == np.inf).any():
        raise ValueError("target_prob_fn: target distributions contain NaN or +inf")
    if (logits >= 0).all() and np.allclose(logits.sum(-1), 1.0, atol=1e-6):
        with np.errstate(divide="ignore"):
            logits = np.log(logits)  # probabilities given: warp their logs
    if not np.isfinite(logits).any(axis=-1).all():
        raise ValueError("target_prob_fn: a row gives every token probability 0")
    q = _warp_probs(logits, temperature, top_p)
    reach = np.zeros(n)  # probability that the walk reaches node i
    for i in range(n):
        p = tree.parents[i]
        up = 1.0 if p == ROOT else reach[p]
        reach[i] = up * q[p + 1, tree.tokens[i]]
    return float(1.0 + reach.sum())
