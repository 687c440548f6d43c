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

from ._checks import check_generator, check_int, check_option, check_tensor
from ._validation import check_budgets

POLICIES = ("h2o", "local", "random")
SCORE_MODES = ("sum", "mean")
GQA_REDUCE = ("sum", "mean")


def select_keep(
    scores: torch.Tensor,
    *,
    heavy: int,
    recent: int,
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
    scores = check_tensor(scores, "scores", ndim=range(1, 8), finite=False)  # -inf: never kept
    heavy = check_int(heavy, "heavy", minimum=0)
    recent = check_int(recent, "recent", minimum=0)
    if valid is not None:
        valid = check_tensor(valid, "valid", dtype="bool", shape=tuple(scores.shape))
    if not scores.is_cuda and bool(torch.isnan(scores).any()):  # (no device sync on GPUs)
        raise ValueError("scores must not contain NaN, got a NaN score")
    return _select_keep(scores, heavy, recent, valid)


def _select_keep(scores, heavy: int, recent: int, valid) -> torch.Tensor:
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


def _round_half_up(x: float) -> int:
    return int(math.floor(x + 0.5))


class H2OState:
    """Per-layer H2O bookkeeping: kept positions and accumulated scores per (batch row, KV head).

    Budgets are absolute (``heavy``, ``recent``) or ratios of the prompt length resolved at the
    first update (``ratio=(0.1, 0.1)``, the paper's 20 % split evenly; with left padding each row
    resolves them from its own number of tokens, so a short row keeps what it keeps alone).
    ``score_mode="sum"`` is the paper's unnormalised accumulated probability mass; ``"mean"``
    divides it by the number of (non-padding) query rows that could attend each token (the
    kvpress ObservedAttention normalisation). Query heads sharing a KV head are combined with
    ``gqa_reduce`` ("sum" or "mean": the same ranking, different reported scores).
    ``policy="local"`` keeps only the most recent ``heavy + recent`` tokens and
    ``policy="random"`` picks the heavy slots by a random priority fixed when a token arrives
    (the paper's baselines).

    Args:
        heavy: heavy-hitter slots per KV head (None with ``ratio``).
        recent: recent-window slots per KV head (None with ``ratio``).
        ratio: (heavy_ratio, recent_ratio) of the first update's length (the prompt).
        score_mode: "sum" (paper) or "mean".
        gqa_reduce: "sum" or "mean" over the query heads of a KV group.
        policy: "h2o", "local" or "random".
        generator: torch.Generator of the random priorities (policy "random"); None: a private
            generator seeded with 0 (deterministic).

    >>> st = H2OState(heavy=1, recent=1)
    >>> attn = torch.tensor([[[[1.0, 0, 0], [0.9, 0.1, 0], [0.8, 0.1, 0.1]]]])  # (B=1, H=1, q=3, n=3)
    >>> st.update(attn, n_kv_heads=1)  # token 0 is the heavy hitter, token 2 the recent one
    tensor([[[0, 2]]])
    >>> st.positions
    tensor([[[0, 2]]])
    """

    def __init__(
        self,
        *,
        heavy: int | None = None,
        recent: int | None = None,
        ratio: Sequence[float] | None = None,
        score_mode: str = "sum",
        gqa_reduce: str = "sum",
        policy: str = "h2o",
        generator: torch.Generator | None = None,
    ):
        heavy, recent, ratio = check_budgets(heavy, recent, ratio)
        self.score_mode = check_option(score_mode, "score_mode", SCORE_MODES)
        self.gqa_reduce = check_option(gqa_reduce, "gqa_reduce", GQA_REDUCE)
        self.policy = check_option(policy, "policy", POLICIES)
        generator = check_generator(generator)
        self._gen = torch.Generator().manual_seed(0) if generator is None else generator
        self.heavy, self.recent, self.ratio = heavy, recent, ratio
        self.reset()

    def reset(self) -> None:
        """Forget everything (budgets given as ratios are resolved again at the next update)."""
        self.scores: torch.Tensor | None = None  # (B, Hkv, m) float32 accumulated mass
        self.counts: torch.Tensor | None = None  # (B, Hkv, m) float32 query rows that saw each
        self.positions: torch.Tensor | None = None  # (B, Hkv, m) int64 absolute positions
        self.valid: torch.Tensor | None = None  # (B, Hkv, m) bool (False = padding)
        self.keep_idx: torch.Tensor | None = None  # (B, Hkv, m) indices chosen by the last update
        self.seen = 0  # tokens seen so far (positions continue from here)
        self.has_padding = False  # set once a step reports invalid (padding) tokens may exist
        self.row_budgets: list[tuple[int, int]] | None = None  # per-row (heavy, recent) if unequal
        self._last_n = 0
        if self.ratio is not None:
            self.heavy = self.recent = None

    @property
    def budget(self) -> int | None:
        """heavy + recent (the largest row's with per-row budgets), or None before a ratio budget
        is resolved."""
        return None if self.heavy is None else self.heavy + self.recent

    @property
    def kept(self) -> int:
        """Number of kept entries per (batch row, KV head)."""
        return 0 if self.positions is None else self.positions.shape[-1]

    def resolve(self, prompt_len: int | Sequence[int]) -> None:
        """Turn ratio budgets into sizes for a prompt of ``prompt_len`` tokens (round half up).

        With one length per batch row (a left-padded batch), each row gets its own budget; rows
        with a smaller budget than the largest hold masked filler entries (see :attr:`valid`).
        """
        if self.heavy is not None:
            return
        lengths = [prompt_len] if isinstance(prompt_len, int) else list(prompt_len)
        budgets = []
        for n in lengths:
            h = _round_half_up(self.ratio[0] * n)
            r = _round_half_up(self.ratio[1] * n)
            budgets.append((h, r) if h + r else (0, 1))
        self.heavy, self.recent = max(budgets, key=lambda b: (b[0] + b[1], b))
        self.row_budgets = budgets if len(set(budgets)) > 1 else None

    def ranking_scores(self) -> torch.Tensor:
        """(B, Hkv, m) the scores eviction ranks by (depends on score_mode and policy)."""
        if self.policy == "random":
            return self._priority
        if self.score_mode == "mean":
            return self.scores / self.counts.clamp_min(1.0)
        return self.scores

    def update(
        self,
        attn: torch.Tensor,
        *,
        n_kv_heads: int,
        new_valid: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """Accumulate one step's attention probabilities and evict down to the budget.

        Args:
            attn: (B, H, q, n) softmax probabilities of the q new query rows over the n = kept + q
                keys (kept entries first, in the order of :attr:`positions`, then the new tokens).
            n_kv_heads: Hkv; H must be a multiple of it.
            new_valid: optional (B, q) bool, False for padding tokens among the new ones (their
                query rows are not counted).

        Returns:
            keep_idx: (B, Hkv, m) int64 indices into the n keys, ascending; use :meth:`gather`.
        """
        # (the finiteness check would synchronise a GPU at every layer and step: CPU only)
        attn = check_tensor(attn, "attn", ndim=4, finite=not getattr(attn, "is_cuda", False))
        q = attn.shape[2]
        a = attn.float()
        if new_valid is not None:
            new_valid = check_tensor(new_valid, "new_valid", dtype="bool", shape=(attn.shape[0], q))
            a = a * new_valid.to(a.device)[:, None, :, None]
        return self.update_colsum(a.sum(dim=2), n_kv_heads=n_kv_heads, q_len=q, new_valid=new_valid)

    def update_colsum(
        self,
        colsum: torch.Tensor,
        *,
        n_kv_heads: int,
        q_len: int,
        new_valid: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """Same as :meth:`update` from the column sums (B, H, n) of the probabilities over the
        q_len new rows (what ``papershelf_kernels.attention.attention_colsum`` returns); the rows
        of padding tokens must already be left out of the sums."""
        colsum = check_tensor(
            colsum, "colsum", ndim=3, finite=not getattr(colsum, "is_cuda", False)
        )
        B, H, n = colsum.shape
        n_kv_heads = check_int(n_kv_heads, "n_kv_heads", minimum=1)
        if H % n_kv_heads:
            raise ValueError(f"n_kv_heads must divide the number of heads {H}, got {n_kv_heads}")
        q_len = check_int(q_len, "q_len", minimum=1)
        m = self.kept
        if n != m + q_len:
            raise ValueError(
                f"colsum covers {n} keys but the state holds {m} kept + {q_len} new (q_len)"
            )
        if self.positions is not None and self.positions.shape[0] != B:
            raise ValueError(f"colsum: batch size changed from {self.positions.shape[0]} to {B}")
        dev = colsum.device
        if new_valid is None:
            nv = torch.ones(B, q_len, dtype=torch.bool, device=dev)
        else:
            nv = check_tensor(new_valid, "new_valid", dtype="bool", shape=(B, q_len)).to(dev)
            # padding may now be held: callers must mask kept entries by `valid` from here on
            # (no `nv.all()` check, it would synchronise the device)
            self.has_padding = True
        G = H // n_kv_heads
        s = colsum.float().view(B, n_kv_heads, G, n)
        s = s.sum(2) if self.gqa_reduce == "sum" else s.mean(2)  # (B, Hkv, n)
        if m == 0 and self.heavy is None:
            self.resolve(q_len if new_valid is None else nv.sum(-1).tolist())
        # (non-padding) query rows that could attend each key: all valid new rows for kept
        # entries, the valid rows i >= t for new token t (causal)
        nvf = nv.float()
        kept_rows = nvf.sum(-1, keepdim=True)  # (B, 1)
        new_rows = nvf.flip(-1).cumsum(-1).flip(-1)  # (B, q)
        rows = torch.cat([kept_rows.expand(B, m), new_rows], -1)[:, None, :]  # (B, 1, n)
        new_pos = torch.arange(self.seen, self.seen + q_len, device=dev).expand(
            B, n_kv_heads, q_len
        )
        nv3 = nv[:, None, :].expand(B, n_kv_heads, q_len)
        if m == 0:
            scores, counts, pos, valid = s, rows.expand(B, n_kv_heads, n).clone(), new_pos, nv3
        else:
            pad = torch.zeros(B, n_kv_heads, q_len, device=dev)
            scores = torch.cat([self.scores.to(dev), pad], -1) + s
            counts = torch.cat([self.counts.to(dev), pad], -1) + rows
            pos = torch.cat([self.positions.to(dev), new_pos], -1)
            valid = torch.cat([self.valid.to(dev), nv3], -1)
        if self.policy == "random":
            pri = torch.rand(B, n_kv_heads, q_len, generator=self._gen).to(dev)
            self._priority = pri if m == 0 else torch.cat([self._priority.to(dev), pri], -1)
        self.scores, self.counts, self.positions, self.valid = scores, counts, pos, valid
        self.seen += q_len
        keep, filler = self._choose(valid)
        self.keep_idx = keep
        self._last_n = n
        self.scores = scores.gather(-1, keep)
        self.counts = counts.gather(-1, keep)
        self.positions = pos.gather(-1, keep)
        self.valid = valid.gather(-1, keep)
        if self.policy == "random":
            self._priority = self._priority.gather(-1, keep)
        if filler is not None:
            self.has_padding = True
            self.valid = self.valid & ~filler
            self.positions = self.positions.masked_fill(filler, -1)
            self.scores = self.scores.masked_fill(filler, 0.0)
            self.counts = self.counts.masked_fill(filler, 0.0)
        return keep

    def _choose(self, valid: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor | None]:
        """keep indices (B, Hkv, w) and, with per-row budgets, the filler mask (B, Hkv, w)."""
        rank = self.ranking_scores()

        def one(r, v, heavy, recent):
            if self.policy == "local":
                return _select_keep(r, 0, heavy + recent, v)
            return _select_keep(r, heavy, recent, v)

        if self.row_budgets is None:
            return one(rank, valid, self.heavy, self.recent), None
        n = rank.shape[-1]
        width = min(n, self.heavy + self.recent)
        keeps, fills = [], []
        for b, (h, r) in enumerate(self.row_budgets):
            k = one(rank[b], valid[b], h, r)  # (Hkv, m_b)
            short = width - k.shape[-1]
            # a row with a smaller budget holds masked fillers (index 0, position -1) in front
            k = torch.cat([torch.zeros_like(k[:, :1]).expand(-1, short), k], -1)
            f = torch.zeros(k.shape, dtype=torch.bool, device=k.device)
            f[:, :short] = True
            keeps.append(k)
            fills.append(f)
        return torch.stack(keeps), torch.stack(fills)

    def gather(self, keys: torch.Tensor, values: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Keep the entries chosen by the last update: (B, Hkv, n, D) -> (B, Hkv, m, D)."""
        if self.keep_idx is None:
            raise RuntimeError("gather() before any update()")
        keys = check_tensor(keys, "keys", ndim=4, finite=False)
        values = check_tensor(values, "values", ndim=4, finite=False)
        if keys.shape[:3] != values.shape[:3] or keys.shape[2] != self._last_n:
            raise ValueError(
                f"keys {tuple(keys.shape)} / values {tuple(values.shape)} do not match the last "
                f"update ({self._last_n} keys)"
            )
        idx = self.keep_idx.to(keys.device)
        if idx.shape[-1] == keys.shape[2] and self.row_budgets is None:
            return keys, values  # nothing evicted
        ki = idx[..., None].expand(*idx.shape, keys.shape[-1])
        vi = idx[..., None].expand(*idx.shape, values.shape[-1])
        return keys.gather(2, ki), values.gather(2, vi)
