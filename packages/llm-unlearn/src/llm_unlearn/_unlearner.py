"""The unlearning loop: eps1 * L_fgt + eps2 * L_rdn + eps3 * L_nor, AdamW with linear decay."""

from __future__ import annotations

import copy
import math
from contextlib import nullcontext
from dataclasses import dataclass
from typing import Any

import torch

from ._checks import check_float, check_int, check_option, check_rng, describe
from ._data import (
    DEFAULT_TEMPLATE,
    check_pairs,
    check_pool,
    check_template,
    check_tokenizer,
    encode_qa,
    sample_mismatch,
)
from ._losses import answer_nll, check_model, kl_from_logits, logits_of, positions_mask

__all__ = ["UnlearnResult", "Unlearner"]

TERMS = ("forget", "mismatch", "kl", "loss")


@dataclass(frozen=True)
class UnlearnResult:
    """What :meth:`Unlearner.run` did: ``steps`` taken in this call, why it stopped
    (``"max_steps"`` or ``"max_forget_loss"``), and the per-step pre-update losses."""

    steps: int
    stopped_by: str
    history: tuple[dict[str, float], ...]


def _check_eps(eps: Any) -> tuple[float, float, float]:
    if isinstance(eps, str | bytes) or not hasattr(eps, "__len__"):
        raise TypeError(
            f"eps must be a sequence of 3 weights (forget, mismatch, kl), got {describe(eps)}"
        )
    if len(eps) != 3:
        raise ValueError(f"eps must have 3 weights (forget, mismatch, kl), got {len(eps)}")
    out = tuple(check_float(e, f"eps[{i}]", minimum=0.0) for i, e in enumerate(eps))
    if not any(out):
        raise ValueError("eps must have at least one positive weight, got (0, 0, 0)")
    return out  # type: ignore[return-value]


class Unlearner:
    """Unlearn ``forget`` Q&A pairs from a causal LM (Yao et al., NeurIPS 2024).

    Each :meth:`step` takes a forget batch and a normal batch and descends
    ``eps[0] * forget + eps[1] * mismatch + eps[2] * kl``:

    - ``forget``: :func:`forget_loss` (minus the answer NLL: gradient ascent) on the forget pairs;
    - ``mismatch``: :func:`mismatch_loss`, the forget questions with ``k`` answers each drawn
      from ``answer_pool`` (from this object's ``rng`` stream);
    - ``kl``: :func:`kl_to_reference` on the normal pairs, to ``ref_model`` (``None``: a frozen
      copy of ``model`` made here; with ``lora``, the model with its adapter disabled, which is
      the original model without a second copy in memory).

    AdamW (``lr``; torch's defaults otherwise) with a linear decay to 0 over ``max_steps`` and
    no warm-up. ``lora`` (a peft ``LoraConfig``/``AdaLoraConfig``) wraps ``model`` with
    ``peft.get_peft_model`` and trains the adapter only; :meth:`merged_model` folds it back.
    The model is used in the mode it is in (``model.train()`` for dropout, as the paper's script).
    Extra options beyond the paper: ``template`` (must match the forget data's format),
    ``max_length`` and ``kl_positions`` (``"all"`` as in the paper, or ``"answer"``).
    """

    def __init__(
        self,
        model,
        tokenizer,
        *,
        answer_pool,
        ref_model=None,
        eps=(0.5, 1.0, 1.0),
        k: int = 5,
        lr: float = 2e-6,
        max_steps: int = 1000,
        max_forget_loss: float = 100.0,
        lora=None,
        rng=None,
        template: str = DEFAULT_TEMPLATE,
        max_length: int | None = None,
        kl_positions: str = "all",
    ):
        model = check_model(model)
        check_tokenizer(tokenizer)
        self.tokenizer = tokenizer
        self.answer_pool = check_pool(answer_pool)
        if ref_model is not None:
            ref_model = check_model(ref_model, "ref_model")
        self.eps = _check_eps(eps)
        self.k = check_int(k, "k", minimum=1)
        if self.k > len(self.answer_pool):
            raise ValueError(
                f"k must be <= len(answer_pool) = {len(self.answer_pool)}, got {self.k}"
            )
        self.lr = check_float(lr, "lr", minimum=0.0, min_inclusive=False)
        self.max_steps = check_int(max_steps, "max_steps", minimum=1)
        self.max_forget_loss = check_float(
            max_forget_loss, "max_forget_loss", minimum=0.0, min_inclusive=False
        )
        check_template(template)
        self.template = template
        if max_length is not None:
            max_length = check_int(max_length, "max_length", minimum=2)
        self.max_length = max_length
        self.kl_positions = check_option(kl_positions, "kl_positions", ("all", "answer"))
        self._rng = check_rng(rng)

        if lora is not None:
            try:
                import peft
            except ImportError as exc:  # pragma: no cover - depends on the environment
                raise ImportError("lora needs peft: pip install 'llm-unlearn[peft]'") from exc
            if not isinstance(lora, peft.PeftConfig):
                raise TypeError(
                    f"lora must be a peft config (LoraConfig, ...), got {describe(lora)}"
                )
            model = peft.get_peft_model(model, lora)
        self.model = model
        self.lora = lora
        if ref_model is None and lora is None:
            ref_model = copy.deepcopy(model).eval()
            for p in ref_model.parameters():
                p.requires_grad_(False)
        self.ref_model = ref_model  # None with lora: the adapter-disabled model is the reference

        params = [p for p in model.parameters() if p.requires_grad]
        if not params:
            raise ValueError("model has no trainable parameter (every requires_grad is False)")
        from transformers import get_scheduler

        self.optimizer = torch.optim.AdamW(params, lr=self.lr)
        self.scheduler = get_scheduler(
            "linear", self.optimizer, num_warmup_steps=0, num_training_steps=self.max_steps
        )
        self.n_steps = 0
        self.history: list[dict[str, float]] = []

    def _ref_logits(self, batch):
        with torch.no_grad():
            if self.ref_model is not None:
                return logits_of(self.ref_model, batch)
            with self.model.disable_adapter():
                return logits_of(self.model, batch)

    def losses(self, forget_pairs, normal_pairs) -> dict[str, torch.Tensor]:
        """The three terms and their weighted sum as tensors (with grad), no update; draws the
        mismatch answers from the ``rng`` stream."""
        forget_pairs = check_pairs(forget_pairs, "forget_pairs")
        normal_pairs = check_pairs(normal_pairs, "normal_pairs")
        kw = {"template": self.template, "max_length": self.max_length}
        questions = [q for q, _ in forget_pairs]
        rand_pairs = sample_mismatch(questions, self.answer_pool, k=self.k, rng=self._rng)
        e1, e2, e3 = self.eps
        terms = {}
        with nullcontext() if e1 else torch.no_grad():
            terms["forget"] = -answer_nll(
                self.model, encode_qa(forget_pairs, self.tokenizer, **kw)
            ).mean()
        with nullcontext() if e2 else torch.no_grad():
            terms["mismatch"] = answer_nll(
                self.model, encode_qa(rand_pairs, self.tokenizer, **kw)
            ).mean()
        normal = encode_qa(normal_pairs, self.tokenizer, **kw)
        where = positions_mask(normal, self.kl_positions)
        ref_logits = self._ref_logits(normal)
        with nullcontext() if e3 else torch.no_grad():
            terms["kl"] = kl_from_logits(logits_of(self.model, normal), ref_logits, where)
        terms["loss"] = e1 * terms["forget"] + e2 * terms["mismatch"] + e3 * terms["kl"]
        return terms

    def step(self, forget_pairs, normal_pairs) -> dict[str, float]:
        """One AdamW step on one forget batch and one normal batch (lists of (q, a) pairs).

        Returns ``{"forget", "mismatch", "kl", "loss"}`` as floats, measured before the update
        (``forget`` is the gradient-ascent term, minus the forget answer NLL).
        """
        terms = self.losses(forget_pairs, normal_pairs)
        values = {key: float(terms[key].detach()) for key in TERMS}
        if not math.isfinite(values["loss"]):
            raise FloatingPointError(f"loss is not finite at step {self.n_steps}: {values}")
        self.optimizer.zero_grad(set_to_none=True)
        terms["loss"].backward()
        self.optimizer.step()
        self.scheduler.step()
        self.optimizer.zero_grad(set_to_none=True)
        self.n_steps += 1
        self.history.append(values)
        return values

    def run(self, forget_pairs, normal_pairs, *, batch_size: int = 2) -> UnlearnResult:
        """Step on shuffled batches of ``batch_size`` pairs from each set (epochs cycle, each set
        reshuffled) until ``max_steps`` steps in total or a forget NLL (``-forget``) of at least
        ``max_forget_loss``."""
        forget_pairs = check_pairs(forget_pairs, "forget_pairs")
        normal_pairs = check_pairs(normal_pairs, "normal_pairs")
        batch_size = check_int(batch_size, "batch_size", minimum=1)
        streams = [
            _batches(forget_pairs, batch_size, self._rng),
            _batches(normal_pairs, batch_size, self._rng),
        ]
        start = len(self.history)
        stopped_by = "max_steps"
        while self.n_steps < self.max_steps:
            values = self.step(next(streams[0]), next(streams[1]))
            if -values["forget"] >= self.max_forget_loss:
                stopped_by = "max_forget_loss"
                break
        return UnlearnResult(
            steps=len(self.history) - start,
            stopped_by=stopped_by,
            history=tuple(self.history[start:]),
        )

    def merged_model(self):
        """The unlearned model as a plain model: with ``lora``, the adapter merged into the base
        weights (``merge_and_unload``; the Unlearner cannot step afterwards); else ``model``."""
        if self.lora is None:
            return self.model
        return self.model.merge_and_unload()


def _batches(pairs, batch_size, rng):
    n = len(pairs)
    size = min(batch_size, n)
    while True:
        order = rng.permutation(n)
        for s in range(0, n - size + 1, size):
            yield [pairs[int(i)] for i in order[s : s + size]]
