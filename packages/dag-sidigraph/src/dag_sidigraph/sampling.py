"""Training pairs from a hierarchy: the full setting (closure + all non-edges) or the reduced one
(transitive reduction + minimal negatives E_{H*}), k negatives per positive."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from ._checks import check_int, check_option, check_rng
from ._validation import check_adj
from .graph import _minimal_negatives_packed, _require_tc_dag, _unpack

__all__ = ["PairSampler"]


class PairSampler:
    """Batches of (u, v, label) training pairs from the TC-DAG ``adj``.

    ``positives``: ``"reduction"`` (E^tr, the paper's reduced setting) or ``"closure"`` (E^tc);
    ``negatives``: ``"minimal"`` (E_{H*}) or ``"all"`` (every ordered pair u != v that is not an
    edge, Ē). Each batch holds ``batch_size`` positives drawn uniformly with replacement and
    ``k`` negatives per positive drawn uniformly from the negative set ("all": by rejection,
    without listing Ē). ``sample()`` returns ``(u, v, label)``: int64 [B(1+k)], int64, float64
    (1 = edge); iterating yields batches forever. If one of the sets is empty (a chain has no
    minimal negatives, an antichain no positives) the batch holds only the other kind.
    Numpy only: the arrays feed any framework (``train`` turns them into tensors).
    """

    def __init__(
        self, adj, *, positives="reduction", negatives="minimal", k=4, batch_size=256, rng=None
    ):
        a = check_adj(adj)
        self.positives = check_option(positives, "positives", ("reduction", "closure"))
        self.negatives = check_option(negatives, "negatives", ("minimal", "all"))
        self.k = check_int(k, "k", minimum=0)
        self.batch_size = check_int(batch_size, "batch_size", minimum=1)
        self._rng = check_rng(rng)
        r, t, n = _require_tc_dag(a)
        self.adj = a
        self.num_nodes = n
        pos_mask = _unpack(t, n) if self.positives == "reduction" else a
        self.pos = np.stack(np.nonzero(pos_mask)).astype(np.int64).reshape(2, -1)
        if self.negatives == "minimal":
            self.neg = np.stack(np.nonzero(_minimal_negatives_packed(r, t, n)))
            self.neg = self.neg.astype(np.int64).reshape(2, -1)
            self.num_negatives = self.neg.shape[1]
        else:
            self.neg = None
            self.num_negatives = n * (n - 1) - int(a.sum())
        if self.pos.shape[1] == 0 and self.num_negatives == 0:
            raise ValueError("adj must have at least one edge or one non-edge (n >= 2)")
        if self.pos.shape[1] == 0 and self.k == 0:
            raise ValueError(
                "k must be >= 1 when adj has no positive pair (batches would be empty)"
            )

    @property
    def num_positives(self) -> int:
        return int(self.pos.shape[1])

    @property
    def num_examples(self) -> int:
        """The size of the training set: positives + negatives."""
        return self.num_positives + self.num_negatives

    @property
    def examples_per_batch(self) -> int:
        p = self.batch_size if self.num_positives else 0
        q = self.batch_size * self.k if self.num_negatives else 0
        return p + q

    def _all_negatives(self, size: int) -> tuple[np.ndarray, np.ndarray]:
        n = self.num_nodes
        us, vs = [], []
        got = 0
        while got < size:
            u = self._rng.integers(0, n, size=2 * (size - got) + 8)
            v = self._rng.integers(0, n, size=u.size)
            keep = (u != v) & ~self.adj[u, v]
            us.append(u[keep])
            vs.append(v[keep])
            got += int(keep.sum())
        return np.concatenate(us)[:size], np.concatenate(vs)[:size]

    def sample(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """One batch ``(u, v, label)``."""
        b = self.batch_size
        parts_u, parts_v, parts_y = [], [], []
        if self.num_positives:
            idx = self._rng.integers(0, self.num_positives, size=b)
            parts_u.append(self.pos[0, idx])
            parts_v.append(self.pos[1, idx])
            parts_y.append(np.ones(b))
        if self.num_negatives and self.k:
            size = b * self.k
            if self.neg is not None:
                idx = self._rng.integers(0, self.num_negatives, size=size)
                u, v = self.neg[0, idx], self.neg[1, idx]
            else:
                u, v = self._all_negatives(size)
            parts_u.append(u)
            parts_v.append(v)
            parts_y.append(np.zeros(size))
        return (
            np.concatenate(parts_u).astype(np.int64),
            np.concatenate(parts_v).astype(np.int64),
            np.concatenate(parts_y),
        )

    def __iter__(self) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        while True:
            yield self.sample()

    def __repr__(self) -> str:
        return (
            f"PairSampler(n={self.num_nodes}, positives={self.positives!r} ({self.num_positives}),"
            f" negatives={self.negatives!r} ({self.num_negatives}), k={self.k},"
            f" batch_size={self.batch_size})"
        )
