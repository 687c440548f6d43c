"""The H2O eviction policy: accumulated attention scores, heavy hitters + a recent window.

Zhang et al., "H2O: Heavy-Hitter Oracle for Efficient Generative Inference of Large Language
Models", NeurIPS 2023, https://arxiv.org/abs/2306.14048 - Sec. 3.2 (heavy hitters), Alg. 1
(greedy eviction by accumulated attention), Sec. 5 (budgets: heavy + recent, 20 % by default).

Pure torch, no transformers: :class:`H2OState` keeps, per batch row and KV head, the absolute
positions, accumulated scores and validity of the kept tokens of ONE attention layer, and turns
each step's attention probabilities into the indices to keep.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch

POLICIES = ("h2o", "local", "random")
SCORE_MODES = ("sum", "mean")
GQA_REDUCE = ("sum", "mean")


def select_keep(
    scores: torch.Tensor,
    heavy: int,
    recent: int,
    *,
    valid: torch.Tensor | None = None,
) -> torch.Tensor:
    """Indices to keep: the last ``recent`` entries plus the ``heavy`` best-scored older ones.

    Args:
        scores: (..., n) accumulated score of each entry, entries in position order.
        heavy: number of heavy-hitter slots (taken among entries ``[0, n - recent)``).
        recent: number of most recent entries always kept.
        valid: optional (..., n) bool; invalid entries (padding) are chosen last.

    Returns:
        (..., min(n, heavy + recent)) int64 indices, ascending. Ties between equal scores go to
        the older entry (stable sort), so the choice is deterministic.

    >>> select_keep(torch.tensor([5.0, 0.0, 3.0, 1.0, 2.0]), heavy=2, recent=1)
    tensor([0, 2, 4])
    """
    n = scores.shape[-1]
    if n <= heavy + recent:
        return torch.arange(n, device=scores.device).expand(*scores.shape[:-1], n)
    older = n - recent
    cand = scores[..., :older].float()
    if valid is not None:
        cand = cand.masked_fill(~valid[..., :older], float("-inf"))
    order = torch.sort(cand, dim=-1, descending=True, stable=True).indices[..., :heavy]
    top = torch.sort(order, dim=-1).values
    rec = torch.arange(older, n, device=scores.device).expand(*scores.shape[:-1], recent)
    return torch.cat([top, rec], dim=-1)


def _check_budget(name: str, value) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be a non-negative int or None, got {value!r}")
    if value < 0:
        raise ValueError(f"{name} must be >= 0, got {value}")
    return value


class H2OState:
    """Per-layer H2O bookkeeping: kept positions and accumulated scores per (batch row, KV head).

    Budgets are absolute (``heavy``, ``recent``) or ratios of the prompt length resolved at the
    first update (``ratio=(0.1, 0.1)``, the paper's 20 % split evenly). ``score_mode="sum"`` is
    the paper's unnormalised accumulated probability mass; ``"mean"`` divides it by the number of
    query rows that could attend each token (the kvpress ObservedAttention normalisation).
    Query heads sharing a KV head are combined with ``gqa_reduce`` ("sum" or "mean": the same
    ranking, different reported scores). ``policy="local"`` keeps only the most recent
    ``heavy + recent`` tokens and ``policy="random"`` picks the heavy slots by a random priority
    fixed when a token arrives (the paper's baselines).

    Args:
        heavy: heavy-hitter slots per KV head (None with ``ratio``).
        recent: recent-window slots per KV head (None with ``ratio``).
        ratio: (heavy_ratio, recent_ratio) of the first update's length (the prompt).
        score_mode: "sum" (paper) or "mean".
        gqa_reduce: "sum" or "mean" over the query heads of a KV group.
        policy: "h2o", "local" or "random".
        seed: seed of the random priorities (policy "random").

    >>> st = H2OState(heavy=1, recent=1)
    >>> attn = torch.tensor([[[[1.0, 0, 0], [0.9, 0.1, 0], [0.8, 0.1, 0.1]]]])  # (B=1, H=1, q=3, n=3)
    >>> st.update(attn, n_kv_heads=1)  # token 0 is the heavy hitter, token 2 the recent one
    tensor([[[0, 2]]])
    >>> st.positions
    tensor([[[0, 2]]])
    """

    def __init__(
        self,
        heavy: int | None = None,
        recent: int | None = None,
        *,
        ratio: Sequence[float] | None = None,
        score_mode: str = "sum",
        gqa_reduce: str = "sum",
        policy: str = "h2o",
        seed: int = 0,
    ):
        heavy = _check_budget("heavy", heavy)
        recent = _check_budget("recent", recent)
        if ratio is not None:
            if heavy is not None or recent is not None:
                raise ValueError("give either heavy/recent or ratio, not both")
            if (
                not hasattr(ratio, "__len__")
                or len(ratio) != 2
                or not all(
                    isinstance(r, (int, float)) and not isinstance(r, bool) and 0 <= r <= 1
                    for r in ratio
                )
            ):
                raise ValueError(
                    f"ratio must be (heavy_ratio, recent_ratio) in [0, 1], got {ratio!r}"
                )
            if sum(ratio) <= 0:
                raise ValueError(f"ratio must keep something, got {ratio!r}")
            ratio = (float(ratio[0]), float(ratio[1]))
        elif heavy is None or recent is None:
            raise ValueError("give both heavy and recent (absolute sizes) or ratio=(heavy, recent)")
        elif heavy + recent == 0:
            raise ValueError("heavy + recent must be >= 1")
        if score_mode not in SCORE_MODES:
            raise ValueError(f"score_mode must be one of {SCORE_MODES}, got {score_mode!r}")
        if gqa_reduce not in GQA_REDUCE:
            raise ValueError(f"gqa_reduce must be one of {GQA_REDUCE}, got {gqa_reduce!r}")
        if policy not in POLICIES:
            raise ValueError(f"policy must be one of {POLICIES}, got {policy!r}")
        self.heavy, self.recent, self.ratio = heavy, recent, ratio
        self.score_mode, self.gqa_reduce, self.policy = score_mode, gqa_reduce, policy
        self._gen = torch.Generator().manual_seed(seed)
        self.reset()

    def reset(self) -> None:
        """Forget everything (budgets given as ratios are resolved again at the next update)."""
        self.scores: torch.Tensor | None = None  # (B, Hkv, m) float32 accumulated mass
        self.counts: torch.Tensor | None = (
            None  # (B, Hkv, m) float32 query rows that saw each token
        )
        self.positions: torch.Tensor | None = None  # (B, Hkv, m) int64 absolute positions
        self.valid: torch.Tensor | None = None  # (B, Hkv, m) bool (False = padding)
        self.keep_idx: torch.Tensor | None = None  # (B, Hkv, m) indices chosen by the last update
        self.seen = 0  # tokens seen so far (positions continue from here)
        self.has_padding = False  # set once a step reports invalid (padding) tokens may exist
        self._last_n = 0
        if self.ratio is not None:
            self.heavy = self.recent = None

    @property
    def budget(self) -> int | None:
        """heavy + recent, or None before a ratio budget is resolved."""
        return None if self.heavy is None else self.heavy + self.recent

    @property
    def kept(self) -> int:
        """Number of kept entries per (batch row, KV head)."""
        return 0 if self.positions is None else self.positions.shape[-1]

    def resolve(self, prompt_len: int) -> None:
        """Turn ratio budgets into sizes for a prompt of ``prompt_len`` tokens (round half up)."""
        if self.heavy is None:
            self.heavy = int(math.floor(self.ratio[0] * prompt_len + 0.5))
            self.recent = int(math.floor(self.ratio[1] * prompt_len + 0.5))
            if self.heavy + self.recent == 0:
                self.recent = 1

    def ranking_scores(self) -> torch.Tensor:
        """(B, Hkv, m) the scores eviction ranks by (depends on score_mode and policy)."""
        if self.policy == "random":
            return self._priority
        if self.score_mode == "mean":
            return self.scores / self.counts.clamp_min(1.0)
        return self.scores

    def update(
        self, attn: torch.Tensor, n_kv_heads: int, *, new_valid: torch.Tensor | None = None
    ) -> torch.Tensor:
        """Accumulate one step's attention probabilities and evict down to the budget.

        Args:
            attn: (B, H, q, n) softmax probabilities of the q new query rows over the n = kept + q
                keys (kept entries first, in the order of :attr:`positions`, then the new tokens).
            n_kv_heads: Hkv; H must be a multiple of it.
            new_valid: optional (B, q) bool, False for padding tokens among the new ones.

        Returns:
            keep_idx: (B, Hkv, m) int64 indices into the n keys, ascending; use :meth:`gather`.
        """
        if not isinstance(attn, torch.Tensor) or attn.ndim != 4:
            raise ValueError(
                f"attn must be a 4-D tensor (B, H, q, n), got {getattr(attn, 'shape', type(attn))}"
            )
        q = attn.shape[2]
        return self.update_colsum(attn.float().sum(dim=2), n_kv_heads, q_len=q, new_valid=new_valid)

    def update_colsum(
        self,
        colsum: torch.Tensor,
        n_kv_heads: int,
        *,
        q_len: int,
        new_valid: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """Same as :meth:`update` from the column sums (B, H, n) of the probabilities over the
        q_len new rows (what ``papershelf_kernels.attention.attention_colsum`` returns)."""
        if not isinstance(colsum, torch.Tensor) or colsum.ndim != 3:
            raise ValueError(
                f"colsum must be a 3-D tensor (B, H, n), got {getattr(colsum, 'shape', type(colsum))}"
            )
        B, H, n = colsum.shape
        if not isinstance(n_kv_heads, int) or n_kv_heads < 1 or H % n_kv_heads:
            raise ValueError(f"n_kv_heads must divide the number of heads {H}, got {n_kv_heads!r}")
        if not isinstance(q_len, int) or q_len < 1:
            raise ValueError(f"q_len must be a positive int, got {q_len!r}")
        m = self.kept
        if n != m + q_len:
            raise ValueError(
                f"attention covers {n} keys but the state holds {m} kept + {q_len} new"
            )
        if self.positions is not None and self.positions.shape[0] != B:
            raise ValueError(f"batch size changed from {self.positions.shape[0]} to {B}")
        if not colsum.is_cuda and torch.isnan(colsum).any():  # (no device sync on GPUs)
            raise ValueError("attention scores contain NaN")
        dev = colsum.device
        G = H // n_kv_heads
        s = colsum.float().view(B, n_kv_heads, G, n)
        s = s.sum(2) if self.gqa_reduce == "sum" else s.mean(2)  # (B, Hkv, n)
        if m == 0:
            self.resolve(q_len)
        # query rows that could attend each key: q for kept entries, q - t for new token t (causal)
        rows = torch.cat([torch.full((m,), float(q_len)), torch.arange(q_len, 0, -1).float()]).to(
            dev
        )
        new_pos = torch.arange(self.seen, self.seen + q_len, device=dev).expand(
            B, n_kv_heads, q_len
        )
        nv = (
            torch.ones(B, q_len, dtype=torch.bool, device=dev)
            if new_valid is None
            else new_valid.to(dev).bool()
        )
        if new_valid is not None:
            # padding may now be held: callers must mask kept entries by `valid` from here on
            # (no `nv.all()` check, it would synchronise the device)
            self.has_padding = True
        if nv.shape != (B, q_len):
            raise ValueError(f"new_valid must have shape {(B, q_len)}, got {tuple(nv.shape)}")
        nv = nv[:, None, :].expand(B, n_kv_heads, q_len)
        if m == 0:
            scores, counts, pos, valid = s, rows.expand(B, n_kv_heads, n).clone(), new_pos, nv
        else:
            pad = torch.zeros(B, n_kv_heads, q_len, device=dev)
            scores = torch.cat([self.scores.to(dev), pad], -1) + s
            counts = torch.cat([self.counts.to(dev), pad], -1) + rows
            pos = torch.cat([self.positions.to(dev), new_pos], -1)
            valid = torch.cat([self.valid.to(dev), nv], -1)
        if self.policy == "random":
            pri = torch.rand(B, n_kv_heads, q_len, generator=self._gen).to(dev)
            self._priority = pri if m == 0 else torch.cat([self._priority.to(dev), pri], -1)
        self.scores, self.counts, self.positions, self.valid = scores, counts, pos, valid
        self.seen += q_len
        if self.policy == "local":
            keep = select_keep(scores, 0, self.heavy + self.recent, valid=valid)
        else:
            keep = select_keep(self.ranking_scores(), self.heavy, self.recent, valid=valid)
        self.keep_idx = keep
        self._last_n = n
        self.scores = scores.gather(-1, keep)
        self.counts = counts.gather(-1, keep)
        self.positions = pos.gather(-1, keep)
        self.valid = valid.gather(-1, keep)
        if self.policy == "random":
            self._priority = self._priority.gather(-1, keep)
        return keep

    def gather(self, keys: torch.Tensor, values: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Keep the entries chosen by the last update: (B, Hkv, n, D) -> (B, Hkv, m, D)."""
        if self.keep_idx is None:
            raise RuntimeError("gather() before any update()")
        idx = self.keep_idx.to(keys.device)
        if keys.shape[:3] != values.shape[:3] or keys.shape[2] != self._last_n:
            raise ValueError(
                f"keys {tuple(keys.shape)} / values {tuple(values.shape)} do not match the last update"
            )
        if idx.shape[-1] == keys.shape[2]:
            return keys, values  # nothing evicted
        ki = idx[..., None].expand(*idx.shape, keys.shape[-1])
        vi = idx[..., None].expand(*idx.shape, values.shape[-1])
        return keys.gather(2, ki), values.gather(2, vi)
