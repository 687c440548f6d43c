"""NPOS-style outlier synthesis guided by perturbed text anchors (CATEX)."""

from __future__ import annotations

from typing import Any

import torch
from torch.nn import functional as F

from ._checks import check_float, check_generator, check_int, check_tensor, describe


def kth_nn_distance(x: torch.Tensor, ref: torch.Tensor, k: int) -> torch.Tensor:
    """The k-th smallest Euclidean distance from each row of ``x`` to the rows of ``ref``
    (a row of ``x`` that is in ``ref`` counts itself at distance 0, as the original code)."""
    d = torch.cdist(x, ref)
    return torch.topk(d, k, dim=1, largest=False).values[:, -1]


class OutlierSynthesizer:
    """Synthesises one virtual outlier per class around the class's boundary ID features.

    ``update(feats, labels)`` appends image features to per-class FIFO queues of
    ``queue_size``; once a class's queue is full, ``sample(anchors)`` draws for it: among the
    ``select`` queue points with the largest k-th nearest-neighbour distance to their class
    (``k``), one at random; ``n_candidates`` points ``x + sigma * N(0, I)`` around it,
    L2-normalised; with ``anchors = (T, T_pert)`` only candidates with
    ``cos(o, T_pert[c]) > cos(o, T[c])`` are kept; the kept candidate with the largest k-NN
    distance to the class queue is the outlier, labelled ``c``. A class with no kept candidate
    gives none, so ``sample`` returns at most one outlier per class.
    """

    def __init__(
        self,
        n_classes: int,
        *,
        queue_size: int = 1200,
        k: int = 400,
        select: int = 300,
        n_candidates: int = 1000,
        sigma: float = 0.1,
        generator: torch.Generator | None = None,
    ) -> None:
        self.n_classes = check_int(n_classes, "n_classes", minimum=1)
        self.queue_size = check_int(queue_size, "queue_size", minimum=1)
        self.k = check_int(k, "k", minimum=1, maximum=self.queue_size)
        self.select = check_int(select, "select", minimum=1, maximum=self.queue_size)
        self.n_candidates = check_int(n_candidates, "n_candidates", minimum=1)
        self.sigma = check_float(sigma, "sigma", minimum=0.0, min_inclusive=False)
        self.generator = check_generator(generator, "generator")
        self.dim: int | None = None
        self._queues: list[torch.Tensor | None] = [None] * self.n_classes

    def __repr__(self) -> str:
        return (
            f"OutlierSynthesizer(n_classes={self.n_classes}, queue_size={self.queue_size}, "
            f"k={self.k}, select={self.select}, n_candidates={self.n_candidates}, "
            f"sigma={self.sigma})"
        )

    def queue(self, c: int) -> torch.Tensor:
        """Class ``c``'s queued features [m, d] (oldest first; m <= queue_size)."""
        c = check_int(c, "c", minimum=0, maximum=self.n_classes - 1)
        q = self._queues[c]
        return torch.empty(0, self.dim or 0) if q is None else q

    def update(self, feats: Any, labels: Any) -> OutlierSynthesizer:
        """Append ``feats`` [n, d] (detached) to the queues of their ``labels`` [n]; each
        queue keeps its newest ``queue_size`` rows. Returns ``self``."""
        check_tensor(feats, "feats", ndim=2)
        check_tensor(labels, "labels", ndim=1, dtype="integer")
        if labels.shape[0] != feats.shape[0]:
            raise ValueError(
                f"labels has {labels.shape[0]} entries but feats has {feats.shape[0]} rows"
            )
        if self.dim is not None and feats.shape[1] != self.dim:
            raise ValueError(
                f"feats must have {self.dim} columns (as before), got {feats.shape[1]}"
            )
        lo, hi = int(labels.min()), int(labels.max())
        if lo < 0 or hi >= self.n_classes:
            raise ValueError(f"labels must be in [0, {self.n_classes - 1}], got [{lo}, {hi}]")
        self.dim = feats.shape[1]
        feats = feats.detach()
        labels = labels.to(feats.device)
        for c in torch.unique(labels).tolist():
            new = feats[labels == c]
            q = self._queues[c]
            q = new if q is None else torch.cat([q.to(new), new])
            self._queues[c] = q[-self.queue_size :].clone()
        return self

    def ready(self) -> bool:
        """Whether every class's queue is full."""
        return all(q is not None and q.shape[0] == self.queue_size for q in self._queues)

    def _anchors(self, anchors: Any) -> tuple[torch.Tensor, torch.Tensor] | None:
        if anchors is None:
            return None
        if not isinstance(anchors, tuple | list) or len(anchors) != 2:
            raise TypeError(f"anchors must be None or a pair (T, T_pert), got {describe(anchors)}")
        T, T_pert = anchors
        shape = (self.n_classes, self.dim)
        check_tensor(T, "anchors[0]", ndim=2, shape=shape)
        check_tensor(T_pert, "anchors[1]", ndim=2, shape=shape)
        return F.normalize(T.detach(), dim=1), F.normalize(T_pert.detach(), dim=1)

    @torch.no_grad()
    def sample(self, anchors: Any = None) -> tuple[torch.Tensor, torch.Tensor]:
        """``(feats [m, d], labels [m])`` with m <= n_classes, one outlier per class whose queue
        is full (none before; see the class docstring). Outliers are unit vectors."""
        anchors = self._anchors(anchors) if self.dim is not None else None
        if anchors is None and self.dim is None:
            return torch.empty(0, 0), torch.empty(0, dtype=torch.long)
        g = self.generator
        out, labs = [], []
        for c, q in enumerate(self._queues):
            if q is None or q.shape[0] < self.queue_size:
                continue
            qn = F.normalize(q, dim=1)
            kd = kth_nn_distance(qn, qn, self.k)
            top = torch.topk(kd, self.select).indices
            point = q[top[torch.randint(0, self.select, (1,), generator=g)]]  # [1, d]
            noise = torch.randn(self.n_candidates, q.shape[1], generator=g).to(q)
            cand = F.normalize(point + self.sigma * noise, dim=1)
            cd = kth_nn_distance(cand, qn, self.k)
            if anchors is not None:
                T, T_pert = anchors
                keep = cand @ T_pert[c].to(cand) > cand @ T[c].to(cand)
                if not bool(keep.any()):
                    continue
                cd = torch.where(keep, cd, torch.full_like(cd, -1.0))
            out.append(cand[int(torch.argmax(cd))])
            labs.append(c)
        if not out:
            return torch.empty(0, self.dim), torch.empty(0, dtype=torch.long)
        return torch.stack(out), torch.tensor(labs, dtype=torch.long)
