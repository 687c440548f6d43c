"""The multiple-choice question record."""

from __future__ import annotations

import string
from dataclasses import dataclass
from typing import Any

from ._checks import check_int, check_option, describe
from ._validation import check_sequence, check_str, check_strings

__all__ = ["LETTERS", "TASKS", "Question", "letters"]

LETTERS = string.ascii_uppercase
TASKS = ("fig2cap", "cap2fig")


def letters(n: int = 5) -> tuple[str, ...]:
    """The option letters of an ``n``-way question: ``letters(5) == ("A", "B", "C", "D", "E")``."""
    n = check_int(n, "n", minimum=1, maximum=26)
    return tuple(LETTERS[:n])


@dataclass(frozen=True)
class Question:
    """One SciFIBench multiple-choice question.

    Attributes
    ----------
    qid
        Question id (an ``int`` or a ``str``; the row of the true item for questions from
        :func:`make_questions`).
    task
        ``"fig2cap"`` (one figure, caption options) or ``"cap2fig"`` (one caption, figure
        options).
    question
        The question text, e.g. ``"Which of the captions best describes the image?"``.
    options
        The option texts, in option order: the candidate captions for ``fig2cap``; for
        ``cap2fig`` the option labels (``"A"``, ``"B"``, ...) since the options are the images.
    answer
        The correct letter, ``"A"`` .. (one of the first ``len(options)`` letters).
    images
        The figures, in option order for ``cap2fig`` (one per option); for ``fig2cap`` the one
        query figure. Opaque objects (arrays, PIL images, file paths, ids).
    option_ids
        ``option_ids[k]`` is the id (dataset row) of the item shown as option ``k``; empty when
        unknown.
    caption
        The query caption of a ``cap2fig`` question (``None`` for ``fig2cap``).
    category
        The question's category (an opaque string, e.g. an arXiv category), ``""`` if unknown
        (``None`` is stored as ``""``).

    Lists are stored as tuples (``None`` for ``images``/``option_ids`` as ``()``). ``answer_index`` is the position of ``answer``.
    """

    qid: int | str
    task: str
    question: str
    options: tuple[str, ...]
    answer: str
    images: tuple[Any, ...] = ()
    option_ids: tuple[int, ...] = ()
    caption: str | None = None
    category: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.qid, str):
            check_int(self.qid, "qid")
        check_option(self.task, "task", TASKS)
        check_str(self.question, "question")
        options = check_strings(self.options, "options")
        if not 2 <= len(options) <= 26:
            raise ValueError(f"options must hold 2..26 options, got {len(options)}")
        check_str(self.answer, "answer")
        if self.answer not in tuple(LETTERS[: len(options)]):
            raise ValueError(
                f"answer must be one of {list(LETTERS[: len(options)])} "
                f"for {len(options)} options, got {self.answer!r}"
            )
        images = (
            () if self.images is None else check_sequence(self.images, "images", allow_empty=True)
        )
        if self.task == "cap2fig" and len(images) != len(options):
            raise ValueError(
                f"images must hold one figure per option for a cap2fig question "
                f"({len(options)}), got {len(images)}"
            )
        ids = (
            ()
            if self.option_ids is None
            else check_sequence(self.option_ids, "option_ids", allow_empty=True)
        )
        ids = tuple(check_int(v, f"option_ids[{i}]") for i, v in enumerate(ids))
        if ids and len(ids) != len(options):
            raise ValueError(
                f"option_ids must hold one id per option ({len(options)}), got {len(ids)}"
            )
        if self.caption is not None:
            check_str(self.caption, "caption")
        category = "" if self.category is None else check_str(self.category, "category")
        if not isinstance(self.qid, str):
            object.__setattr__(self, "qid", int(self.qid))
        object.__setattr__(self, "category", category)
        object.__setattr__(self, "options", options)
        object.__setattr__(self, "images", images)
        object.__setattr__(self, "option_ids", ids)

    @property
    def n_options(self) -> int:
        return len(self.options)

    @property
    def answer_index(self) -> int:
        return LETTERS.index(self.answer)

    def __repr__(self) -> str:  # images may be large arrays
        return (
            f"Question(qid={self.qid}, task={self.task!r}, answer={self.answer!r}, "
            f"options={len(self.options)}, images={len(self.images)}, "
            f"category={self.category!r})"
        )


def check_question(q: Any, name: str = "q") -> Question:
    if not isinstance(q, Question):
        raise TypeError(f"{name} must be a Question, got {describe(q)}")
    return q
