"""Evaluation: accuracy, per-category accuracy, unparsed count, option-order sensitivity."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ._checks import check_int, check_rng, describe
from ._question import LETTERS, Question, check_question
from ._validation import check_sequence
from .extract import extract_letter
from .prompts import build_prompt

__all__ = ["ChatSolver", "ClipStyleSolver", "Report", "evaluate", "shuffle_options"]


@dataclass(frozen=True)
class Report:
    """The result of :func:`evaluate`.

    Attributes
    ----------
    accuracy
        Fraction of questions answered correctly (unparsed answers count as wrong).
    per_category
        ``{category: accuracy}``, categories in first-appearance order.
    n_unparsed
        Number of replies from which no letter could be extracted (counted as wrong).
    shuffle_accuracies
        Accuracy under each of the ``n_shuffles`` random re-orderings of the options
        (empty when ``n_shuffles=0``); ``max - min`` is the option-order sensitivity.
    predictions
        The extracted letter per question (``None`` when unparsed), in question order.
    correct
        Whether each question was answered correctly.
    """

    accuracy: float
    per_category: dict[str, float]
    n_unparsed: int
    shuffle_accuracies: tuple[float, ...]
    predictions: tuple[str | None, ...] = ()
    correct: tuple[bool, ...] = ()

    @property
    def n_questions(self) -> int:
        return len(self.correct)


def shuffle_options(q, *, rng=None):
    """``q`` with its options in a random order (answer, images and ``option_ids`` follow)."""
    q = check_question(q)
    gen = check_rng(rng)
    perm = gen.permutation(q.n_options)
    answer = LETTERS[int(np.flatnonzero(perm == q.answer_index)[0])]
    ids = tuple(q.option_ids[j] for j in perm) if q.option_ids else ()
    if q.task == "fig2cap":
        return dataclasses.replace(
            q, options=tuple(q.options[j] for j in perm), answer=answer, option_ids=ids
        )
    return dataclasses.replace(
        q, images=tuple(q.images[j] for j in perm), answer=answer, option_ids=ids
    )


def _answer_fn(model: Any):
    gen = getattr(model, "generate", None)
    if callable(gen):

        def ask(q: Question) -> str | None:
            reply = gen(build_prompt(q))
            if not isinstance(reply, str):
                raise TypeError(f"model.generate must return a str, got {describe(reply)}")
            return extract_letter(reply, n_options=q.n_options)

        return ask
    ans = getattr(model, "answer", None)
    if callable(ans):

        def ask(q: Question) -> str | None:
            reply = ans(q)
            if reply is None:
                return None
            if not isinstance(reply, str):
                raise TypeError(f"model.answer must return a str or None, got {describe(reply)}")
            return extract_letter(reply, n_options=q.n_options)

        return ask
    raise TypeError(
        f"model must have generate(parts) -> str or answer(question) -> str, got {describe(model)}"
    )


def _run(ask, questions: Sequence[Question]):
    preds, correct = [], []
    for q in questions:
        p = ask(q)
        preds.append(p)
        correct.append(p is not None and p == q.answer)
    return preds, correct


def evaluate(model, questions, *, n_shuffles=0, rng=None):
    """Evaluate ``model`` on ``questions`` and return a :class:`Report`.

    A model with ``generate(parts) -> str`` gets ``build_prompt(q)`` and its reply is parsed by
    :func:`extract_letter` (an unparsed reply counts as wrong and is counted in
    ``n_unparsed``); otherwise ``model.answer(q)`` must return a letter (or ``None``).
    ``n_shuffles > 0`` re-evaluates on that many random option orders (``shuffle_accuracies``;
    the paper saw accuracy move within 5 points).
    """
    if isinstance(questions, Iterator):  # a generator of questions
        questions = list(questions)
    questions = check_sequence(questions, "questions")
    for i, q in enumerate(questions):
        check_question(q, f"questions[{i}]")
    n_shuffles = check_int(n_shuffles, "n_shuffles", minimum=0)
    gen = check_rng(rng)
    ask = _answer_fn(model)
    preds, correct = _run(ask, questions)
    by_cat: dict[str, list[bool]] = {}
    for q, c in zip(questions, correct):
        by_cat.setdefault(q.category, []).append(c)
    shuffles = []
    for _ in range(n_shuffles):
        shuffled = [shuffle_options(q, rng=gen) for q in questions]
        _, c = _run(ask, shuffled)
        shuffles.append(float(np.mean(c)))
    return Report(
        accuracy=float(np.mean(correct)),
        per_category={k: float(np.mean(v)) for k, v in by_cat.items()},
        n_unparsed=sum(p is None for p in preds),
        shuffle_accuracies=tuple(shuffles),
        predictions=tuple(preds),
        correct=tuple(bool(c) for c in correct),
    )


def _to_numpy(x: Any) -> Any:
    # a torch tensor from an open_clip / transformers encoder, without importing torch here
    if type(x).__module__.startswith("torch") and hasattr(x, "detach"):
        return x.detach().cpu().float().numpy()
    return x


class ChatSolver:
    """A chat model (``generate(parts) -> str``) as a solver with a chosen extractor:
    ``.answer(q)`` sends ``build_prompt(q, style=style)`` and parses the reply with
    ``extractor(reply, n_options=...)`` (default :func:`extract_letter`; e.g.
    :class:`LLMExtractor` for the paper's LLM judge). ``.replies`` keeps the raw replies."""

    def __init__(self, model: Any, *, extractor: Any = None, style: str = "cot") -> None:
        if not callable(getattr(model, "generate", None)):
            raise TypeError(f"model must have generate(parts) -> str, got {describe(model)}")
        if extractor is not None and not callable(extractor):
            raise TypeError(f"extractor must be callable or None, got {describe(extractor)}")
        from ._checks import check_option

        self.model = model
        self.extractor = extractor
        self.style = check_option(style, "style", ("cot", "direct"))
        self.replies: list[str] = []

    def answer(self, q) -> str | None:
        q = check_question(q)
        reply = self.model.generate(build_prompt(q, style=self.style))
        if not isinstance(reply, str):
            raise TypeError(f"model.generate must return a str, got {describe(reply)}")
        self.replies.append(reply)
        if self.extractor is None:
            return extract_letter(reply, n_options=q.n_options)
        return self.extractor(reply, n_options=q.n_options)


class ClipStyleSolver:
    """The paper's CLIP baseline: pick the option with the highest image-text cosine.

    ``encoder`` has ``encode_image(images) -> (n, d)`` and ``encode_text(texts) -> (n, d)``.
    ``fig2cap``: the query figure against each caption option; ``cap2fig``: the query caption
    against each figure option. Ties go to the earlier option.
    """

    def __init__(self, encoder: Any) -> None:
        for m in ("encode_image", "encode_text"):
            if not callable(getattr(encoder, m, None)):
                raise TypeError(
                    f"encoder must have {m}(...) -> (n, d) array, got {describe(encoder)}"
                )
        self.encoder = encoder

    def scores(self, q) -> np.ndarray:
        """Cosine similarity of the query to each option, in option order."""
        from ._checks import check_array

        q = check_question(q)
        if q.task == "fig2cap":
            a = self.encoder.encode_image(list(q.images[:1]))
            b = self.encoder.encode_text(list(q.options))
        else:
            if q.caption is None:
                raise ValueError("q must carry its caption for a cap2fig question, got None")
            a = self.encoder.encode_text([q.caption])
            b = self.encoder.encode_image(list(q.images))
        a = check_array(_to_numpy(a), "encoder output", ndim=2)
        b = check_array(_to_numpy(b), "encoder output", ndim=2, shape=(q.n_options, a.shape[1]))
        a = a / np.linalg.norm(a, axis=1, keepdims=True)
        b = b / np.linalg.norm(b, axis=1, keepdims=True)
        return (b @ a[0]).astype(np.float64)

    def answer(self, q) -> str:
        return LETTERS[int(np.argmax(self.scores(q)))]
