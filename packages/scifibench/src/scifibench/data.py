"""Loading released SciFIBench records (the Hugging Face ``jonathan-roberts1/SciFIBench`` rows)."""

from __future__ import annotations

import re

from ._checks import check_option, describe
from ._question import LETTERS, TASKS, Question
from ._validation import check_sequence

__all__ = ["from_records"]

_PREFIX = re.compile(r"^\s*\(?([A-Z])\)\s*")
_CAPTION = re.compile(r"^\s*Caption:\s*(.*?)\s*(Which\b.*)$", re.S)


def from_records(records, *, task=None):
    """Questions from released rows: dicts with ``ID``, ``Question``, ``Options``, ``Answer``,
    ``Category``, ``Images`` (e.g. ``list(datasets.load_dataset(...)[split])``, read by the
    user). Option prefixes ``"A) "`` are stripped; ``task`` (``"fig2cap"``/``"cap2fig"``) is
    inferred from the number of images when ``None``; a ``cap2fig`` question's caption is split
    from its ``"Caption: ... Which ..."`` text. A malformed record is a ``ValueError`` naming
    its index and field."""
    records = check_sequence(records, "records")
    if task is not None:
        task = check_option(task, "task", TASKS)
    out = []
    for i, rec in enumerate(records):
        if not isinstance(rec, dict):
            raise TypeError(f"records[{i}] must be a dict, got {describe(rec)}")
        missing = [f for f in ("ID", "Question", "Options", "Answer") if f not in rec]
        if missing:
            raise ValueError(f"records[{i}] lacks field(s) {missing}")
        images = tuple(rec.get("Images") or ())
        t = task or ("cap2fig" if len(images) > 1 else "fig2cap")
        options = []
        for k, opt in enumerate(rec["Options"]):
            if not isinstance(opt, str):
                raise ValueError(f"records[{i}] field Options[{k}] is not a str: {describe(opt)}")
            m = _PREFIX.match(opt)
            options.append(opt[m.end() :] if m else opt)
        if t == "cap2fig":
            options = list(LETTERS[: len(rec["Options"])])
        question, caption = str(rec["Question"]), None
        if t == "cap2fig" and (m := _CAPTION.match(question)):
            caption, question = m.group(1), m.group(2)
        try:
            q = Question(
                int(rec["ID"]),
                t,
                question,
                tuple(options),
                str(rec["Answer"]).strip(),
                images,
                (),
                caption,
                str(rec.get("Category", "")),
            )
        except (TypeError, ValueError) as e:
            raise ValueError(f"records[{i}] is malformed: {e}") from None
        out.append(q)
    return out
