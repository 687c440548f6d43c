"""Offloading cost model: simulated tokens/s when the target is streamed from RAM (SpecExec Sec. 4-5).

SpecExec (https://arxiv.org/abs/2406.02532), Sec. 4: with the target's weights in RAM and
streamed to the GPU layer by layer, one target forward costs about the weight-transfer time
(a 70B model in 16-bit takes over 5 s on PCIe 4.0) almost regardless of how many tokens it
processes, so a pass that emits ``tokens_per_pass`` tokens after ``draft_steps`` draft forwards
gives ``tokens_per_pass / (C + draft_steps * c)`` tokens/s against ``1 / C`` for autoregressive
decoding. This module is that arithmetic; real layer streaming needs a GPU and is not included.
"""

from __future__ import annotations

from dataclasses import dataclass

from ._checks import check_float as _check_float
from ._checks import describe


def _positive(name: str, x, *, allow_zero: bool = False) -> float:
    return _check_float(x, name, minimum=0.0, min_inclusive=allow_zero)


@dataclass(frozen=True)
class OffloadCostModel:
    """Seconds per target pass ``C`` and per draft forward ``c``; optional per-token target cost.

    Args:
        target_pass_s: C, one offloaded target forward (weight transfer dominated).
        draft_step_s: c, one draft forward (one tree level, batched over the expanded nodes).
        target_token_s: extra target cost per processed token (compute; 0 when transfer-bound).

    >>> m = OffloadCostModel(target_pass_s=5.0, draft_step_s=0.02)
    >>> round(m.tokens_per_second(tokens_per_pass=15, draft_steps=20), 3)
    2.778
    >>> round(m.speedup(tokens_per_pass=15, draft_steps=20), 2)
    13.89
    """

    target_pass_s: float
    draft_step_s: float
    target_token_s: float = 0.0

    def __post_init__(self):
        object.__setattr__(self, "target_pass_s", _positive("target_pass_s", self.target_pass_s))
        object.__setattr__(
            self, "draft_step_s", _positive("draft_step_s", self.draft_step_s, allow_zero=True)
        )
        object.__setattr__(
            self,
            "target_token_s",
            _positive("target_token_s", self.target_token_s, allow_zero=True),
        )

    @classmethod
    def from_transfer(
        cls,
        target_bytes: float,
        bandwidth_gb_s: float = 25.0,  # PCIe 4.0 x16, effective
        draft_step_s: float = 0.02,
    ) -> OffloadCostModel:
        """C from streaming ``target_bytes`` over a ``bandwidth_gb_s`` GB/s bus (1 GB = 1e9 bytes)."""
        target_bytes = _positive("target_bytes", target_bytes)
        bw = _positive("bandwidth_gb_s", bandwidth_gb_s)
        return cls(target_pass_s=target_bytes / (bw * 1e9), draft_step_s=draft_step_s)

    def pass_seconds(self, draft_steps: float, tree_tokens: float = 0.0) -> float:
        """Seconds for one iteration: ``draft_steps`` draft forwards + one target pass."""
        draft_steps = _positive("draft_steps", draft_steps, allow_zero=True)
        tree_tokens = _positive("tree_tokens", tree_tokens, allow_zero=True)
        return (
            self.target_pass_s + self.target_token_s * tree_tokens + draft_steps * self.draft_step_s
        )

    def tokens_per_second(
        self, tokens_per_pass: float, draft_steps: float, tree_tokens: float = 0.0
    ) -> float:
        """``tokens_per_pass / (C + tree_tokens * t + draft_steps * c)``."""
        tokens_per_pass = _positive("tokens_per_pass", tokens_per_pass)
        return tokens_per_pass / self.pass_seconds(draft_steps, tree_tokens)

    def autoregressive_tokens_per_second(self) -> float:
        """``1 / (C + t)``: one offloaded target pass per token."""
        return 1.0 / (self.target_pass_s + self.target_token_s)

    def speedup(
        self, tokens_per_pass: float, draft_steps: float, tree_tokens: float = 0.0
    ) -> float:
        """Simulated tokens/s over autoregressive offloaded decoding."""
        return (
            self.tokens_per_second(tokens_per_pass, draft_steps, tree_tokens)
            / self.autoregressive_tokens_per_second()
        )

    def simulate(self, stats) -> float:
        """Simulated tokens/s of a finished run from its :class:`~specexec.GenerationStats`
        (any generator here): emitted tokens over ``target_calls`` offloaded passes (plus the
        per-token cost of ``tree_size`` tree tokens and the root) and ``draft_calls`` draft
        forwards."""
        from .generate import GenerationStats

        if not isinstance(stats, GenerationStats):
            raise TypeError(f"stats must be a specexec.GenerationStats, got {describe(stats)}")
        calls = stats.target_calls
        if calls <= 0:
            raise ValueError("stats has no target calls (target_calls = 0)")
        tokens = sum(stats.emitted)
        tree = stats.tree_size * calls
        seconds = (
            calls * self.target_pass_s
            + self.target_token_s * (tree + calls)
            + stats.draft_calls * self.draft_step_s
        )
        return tokens / seconds
