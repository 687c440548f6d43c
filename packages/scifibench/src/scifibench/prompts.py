"""The paper's zero-shot chain-of-thought prompt templates (Appendix B)."""

from __future__ import annotations

from ._checks import check_option
from ._question import LETTERS, check_question

__all__ = ["COT_SUFFIX", "build_prompt"]

COT_SUFFIX = "Let's think step by step. Only provide the letter of the correct {what} as your answer. Answer:"
_DIRECT_SUFFIX = "Only provide the letter of the correct {what} as your answer. Answer:"


def build_prompt(q, *, style="cot"):
    """The interleaved prompt of question ``q``: a list of parts, each a ``str`` or an image.

    ``fig2cap``: ``[image, "A) caption1\\nB) caption2\\n...\\n<question> Let's think step by
    step. Only provide the letter of the correct caption as your answer. Answer:"]``.

    ``cap2fig``: ``["A) ", image1, "\\nB) ", image2, ..., "\\n<caption>\\n<question> Let's think
    step by step. Only provide the letter of the correct image as your answer. Answer:"]``.

    ``style="direct"`` drops "Let's think step by step." (the template without chain of
    thought).
    """
    q = check_question(q)
    style = check_option(style, "style", ("cot", "direct"))
    suffix = (COT_SUFFIX if style == "cot" else _DIRECT_SUFFIX).format(
        what="caption" if q.task == "fig2cap" else "image"
    )
    if q.task == "fig2cap":
        lines = [f"{LETTERS[k]}) {opt}" for k, opt in enumerate(q.options)]
        text = "\n".join(lines) + f"\n{q.question} {suffix}"
        return [*q.images, text]
    parts: list = []
    for k, img in enumerate(q.images):
        parts.append(("" if k == 0 else "\n") + f"{LETTERS[k]}) ")
        parts.append(img)
    tail = "\n"
    if q.caption is not None:
        tail += f"{q.caption}\n"
    parts.append(tail + f"{q.question} {suffix}")
    return parts
