"""Adacom: detect, retrieve an agreeing support set S_p and its contradicting S_o, adapt, restore.

Design inferred from the abstract (the authors released no code): see the README.
"""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import torch
from torch import nn

from ._checks import check_callable, check_float, check_int, check_option, describe
from ._validation import check_pairs, check_text, check_texts
from .generators import check_comment_generator
from .metrics import _f1, comment_words
from .retrieval import BM25Retriever

__all__ = ["Adacom", "group_by_agreement", "restoring"]


@contextlib.contextmanager
def restoring(module: nn.Module) -> Iterator[nn.Module]:
    """Within the block ``module`` may be changed freely; on exit (an exception too) every
    parameter and buffer is restored bit for bit, and so are the ``.grad`` fields and the
    train/eval flags."""
    if not isinstance(module, nn.Module):
        raise TypeError(f"module must be a torch.nn.Module, got {describe(module)}")
    state = {k: v.detach().clone() for k, v in module.state_dict(keep_vars=True).items()}
    grads = {
        n: (None if p.grad is None else p.grad.detach().clone())
        for n, p in module.named_parameters()
    }
    modes = {n: m.training for n, m in module.named_modules()}
    try:
        yield module
    finally:
        with torch.no_grad():
            for k, v in module.state_dict(keep_vars=True).items():
                v.data.copy_(state[k])
        for n, p in module.named_parameters():
            p.grad = grads[n]
        for n, m in module.named_modules():
            if n in modes:
                m.training = modes[n]


def group_by_agreement(comments: Sequence[str], *, threshold: float = 0.5) -> list[list[int]]:
    """Group comments that agree: in order, each joins the first group whose first comment
    (its founder) has token F1 >= ``threshold`` with it, else founds a new group. Returns the
    groups as lists of positions, in order of their founders."""
    comments = check_texts(comments, "comments")
    threshold = check_float(threshold, "threshold", minimum=0.0, maximum=1.0)
    words = [comment_words(c) for c in comments]
    groups: list[list[int]] = []
    for i, w in enumerate(words):
        for g in groups:
            if _f1(words[g[0]], w) >= threshold:
                g.append(i)
                break
        else:
            groups.append([i])
    return groups


class Adacom:
    """On-the-fly adaptation of a comment generator, one target code at a time.

    ``summarize(code)``:

    1. **Detect**: adapt iff ``detector(code) > 0.5`` (``detector=None``: always adapt).
    2. **Retrieve**: the ``min(k, N)`` most similar training codes (BM25, :class:`BM25Retriever`).
       Their comments are grouped by agreement (:func:`group_by_agreement`,
       ``group_threshold``); the best-supported group has the largest sum of BM25 scores.
       ``S_p`` = its ``m`` most similar members; ``S_o`` = the ``m`` most similar neighbours
       outside it whose comment contradicts the group's founder (token F1 < ``group_threshold``).
    3. **Adapt**: ``steps`` optimiser steps (``"adam"`` or ``"sgd"``, learning rate ``lr``) on
       ``L = CE(S_p) - beta * min(CE(S_o), kappa)``: strengthen S_p, unlearn S_o, the ascent
       bounded by ``kappa`` (None: the initial CE(S_o) + 2 nats). Then generate.
    4. **Restore**: every weight is restored bit for bit (an exception too: :func:`restoring`).

    ``info``: ``flagged`` (bool), ``score`` (detector output or None), ``support`` (training
    indices of S_p), ``contradicting`` (of S_o), ``losses`` (L per step), ``ce_support``/
    ``ce_contradicting`` (before, after), ``kappa``, ``seconds``.
    """

    def __init__(
        self,
        generator: nn.Module,
        codes: Sequence[str],
        comments: Sequence[str],
        *,
        detector: Callable[[str], float] | None = None,
        k: int = 32,
        m: int = 8,
        steps: int = 10,
        lr: float = 3e-5,
        beta: float = 0.5,
        kappa: float | None = None,
        optimizer: str = "adam",
        group_threshold: float = 0.5,
    ):
        self.generator = check_comment_generator(generator)
        self.codes, self.comments = check_pairs(codes, comments)
        self.detector = None if detector is None else check_callable(detector, "detector")
        self.k = check_int(k, "k", minimum=1)
        self.m = check_int(m, "m", minimum=1)
        self.steps = check_int(steps, "steps", minimum=0)
        self.lr = check_float(lr, "lr", minimum=0.0, min_inclusive=False)
        self.beta = check_float(beta, "beta", minimum=0.0)
        self.kappa = None if kappa is None else check_float(kappa, "kappa")
        self.optimizer = check_option(optimizer, "optimizer", ("adam", "sgd"))
        self.group_threshold = check_float(
            group_threshold, "group_threshold", minimum=0.0, maximum=1.0
        )
        self.retriever = BM25Retriever(self.codes)

    def _score(self, code: str) -> float | None:
        if self.detector is None:
            return None
        s = self.detector(code)
        try:
            s = float(s)
        except (TypeError, ValueError):
            raise TypeError(f"detector must return a number, got {describe(s)}") from None
        if math.isnan(s):
            raise ValueError("detector returned nan")
        return s

    def select(self, code: str) -> tuple[list[int], list[int]]:
        """``(S_p, S_o)``: training indices of the support set and of its contradicting set."""
        code = check_text(code, "code")
        idx, sims = self.retriever.query(code, min(self.k, len(self.codes)))
        idx, sims = idx.tolist(), sims.tolist()
        groups = group_by_agreement([self.comments[i] for i in idx], threshold=self.group_threshold)
        best = max(groups, key=lambda g: (sum(sims[j] for j in g), -g[0]))
        support = [idx[j] for j in best[: self.m]]
        founder = comment_words(self.comments[idx[best[0]]])
        members = set(best)
        contra = [
            idx[j]
            for j in range(len(idx))
            if j not in members
            and _f1(founder, comment_words(self.comments[idx[j]])) < self.group_threshold
        ][: self.m]
        return support, contra

    def _ce(self, ids: list[int]) -> torch.Tensor:
        return self.generator.loss(
            [self.codes[i] for i in ids], [self.comments[i] for i in ids]
        ).mean()

    def summarize(self, code: str) -> tuple[str, dict[str, Any]]:
        """``(comment, info)`` for one target ``code`` (see the class docstring)."""
        code = check_text(code, "code")
        t0 = time.perf_counter()
        score = self._score(code)
        flagged = score is None or score > 0.5
        info: dict[str, Any] = {
            "flagged": flagged,
            "score": score,
            "support": [],
            "contradicting": [],
            "losses": [],
            "ce_support": None,
            "ce_contradicting": None,
            "kappa": None,
        }
        if not flagged:
            comment = self.generator.generate([code])[0]
            info["seconds"] = time.perf_counter() - t0
            return comment, info
        support, contra = self.select(code)
        info["support"], info["contradicting"] = support, contra
        gen = self.generator
        use_o = self.beta > 0 and bool(contra)
        with restoring(gen):
            with torch.no_grad():
                ce_p0 = float(self._ce(support))
                ce_o0 = float(self._ce(contra)) if contra else None
            kappa = self.kappa
            if kappa is None and ce_o0 is not None:
                kappa = ce_o0 + 2.0
            info["kappa"] = kappa
            params = [p for p in gen.parameters() if p.requires_grad]
            if self.steps and params:
                opt = (
                    torch.optim.Adam(params, lr=self.lr)
                    if self.optimizer == "adam"
                    else torch.optim.SGD(params, lr=self.lr)
                )
                for _ in range(self.steps):
                    opt.zero_grad(set_to_none=True)
                    loss = self._ce(support)
                    if use_o:
                        loss = loss - self.beta * torch.clamp(self._ce(contra), max=kappa)
                    loss.backward()
                    opt.step()
                    info["losses"].append(float(loss.detach()))
            with torch.no_grad():
                info["ce_support"] = (ce_p0, float(self._ce(support)))
                if contra:
                    info["ce_contradicting"] = (ce_o0, float(self._ce(contra)))
            comment = gen.generate([code])[0]
        info["seconds"] = time.perf_counter() - t0
        return comment, info

    def summarize_batch(self, codes: Sequence[str]) -> tuple[list[str], list[dict[str, Any]]]:
        """:meth:`summarize` of each code: ``(comments, infos)``."""
        codes = check_texts(codes, "codes")
        out = [self.summarize(c) for c in codes]
        return [c for c, _ in out], [i for _, i in out]
