"""Deterministic answer-letter extraction, with an optional LLM fallback (the paper's judge).

Precedence (the first rule that yields exactly one distinct valid letter wins; a rule that finds
two different letters is skipped as ambiguous):

1. a bare letter: the whole reply is one letter, optionally wrapped in brackets, ``**`` or
   followed by ``.``/``:``/``)`` (``"C"``, ``"(C)"``, ``"C."``, ``"**C**"``);
2. ``"answer is X"`` / ``"Answer: X"`` (also ``"answer is: (X)"``, ``"Answer - **X**"``), unless
   another letter follows as an alternative (``"Answer: A or B"``);
3. ``"(X)"`` or ``"X)"`` standing alone (not part of a word);
4. markdown bold ``**X**``;
5. a sole standalone letter: exactly one distinct letter that is a word by itself;

otherwise ``None``. Valid letters are the first ``n_options`` capitals; lower-case letters count
only with ``allow_lowercase=True`` (then ``"answer: e"`` gives ``"E"``). The returned letter is
always upper-case.
"""

from __future__ import annotations

import re
from typing import Any

from ._checks import check_bool, describe
from ._question import LETTERS
from ._validation import check_n_options, check_str

__all__ = ["EXTRACTION_PROMPT", "LLMExtractor", "extract_letter"]

# a letter is "standalone" when no letter, digit, apostrophe, hyphen or underscore touches it
_L = r"(?<![A-Za-z0-9_'\u2019-])([A-Za-z])(?![A-Za-z0-9_'\u2019-])"

_BARE = re.compile(r"^[\s\"'`(\[{*]*([A-Za-z])[\s\"'`)\]}*.:,!]*$")
_ANSWER = re.compile(
    r"answer\s*(?:is|:|-|=)\s*[:\-]?\s*[\"'`(\[*]*" + _L + r"(?=[\"'`)\]*]*([ \t]+(\S+))?)",
    re.IGNORECASE,
)
# "Answer: A or B" names two options: not an answer
_ALTERNATIVE = re.compile(
    r"[\"'`)\]*]*\s*(?:or|/|and|,)\s*[\"'`(\[*]*[A-Za-z](?![A-Za-z0-9_'\u2019-])"
)
_PAREN = re.compile(r"(?<![A-Za-z0-9_])\(([A-Za-z])\)|(?<![A-Za-z0-9_(])([A-Za-z])\)")
_BOLD = re.compile(r"\*\*\s*([A-Za-z])\s*\*\*")
_SOLE = re.compile(_L)


def _valid(letter: str, n_options: int, allow_lowercase: bool) -> str | None:
    if letter.islower() and not allow_lowercase:
        return None
    up = letter.upper()
    return up if up in LETTERS[:n_options] else None


def _unique(found: list[str]) -> str | None:
    distinct = set(found)
    return found[0] if len(distinct) == 1 else None


def extract_letter(text, *, n_options=5, allow_lowercase=False):
    """The option letter a free-form reply gives, or ``None`` (see the module docstring).

    Parameters
    ----------
    text
        The model's reply (``str``).
    n_options
        Number of options (2..26): valid letters are ``"A"`` .. the ``n_options``-th.
    allow_lowercase
        Whether a lower-case letter (``"answer: e"``) counts as an answer.

    Examples
    --------
    >>> extract_letter("The correct answer is B. Here's why: ...")
    'B'
    >>> extract_letter("A or B") is None
    True
    """
    text = check_str(text, "text")
    n_options = check_n_options(n_options)
    allow_lowercase = check_bool(allow_lowercase, "allow_lowercase")

    def ok(letter: str) -> str | None:
        return _valid(letter, n_options, allow_lowercase)

    m = _BARE.match(text)
    if m and (v := ok(m.group(1))) is not None:
        return v
    # 2: "answer is X" / "Answer: X"; a lower-case letter followed by another word is prose
    # ("the answer is a bit unclear"), not an answer
    found = []
    for m in _ANSWER.finditer(text):
        letter = m.group(1)
        if letter.islower() and m.group(3) is not None:
            continue
        if _ALTERNATIVE.match(text, m.end(1)):
            continue
        if (v := ok(letter)) is not None:
            found.append(v)
    if (v := _unique(found)) is not None:
        return v
    found = [v for m in _PAREN.finditer(text) if (v := ok(m.group(1) or m.group(2))) is not None]
    if (v := _unique(found)) is not None:
        return v
    found = [v for m in _BOLD.finditer(text) if (v := ok(m.group(1))) is not None]
    if (v := _unique(found)) is not None:
        return v
    found = [v for m in _SOLE.finditer(text) if (v := ok(m.group(1))) is not None]
    return _unique(found)


EXTRACTION_PROMPT = (
    'Here is the output from a generative model:\n"{output}"\n'
    "The output contains the answer to a multiple choice question with options A) - {last}). "
    'Return only the letter of the answer. If no answer is found, return "None".'
)


class LLMExtractor:
    """The paper's automatic evaluation: ask a second LLM for the letter, as a fallback.

    ``LLMExtractor(llm)(text, n_options=5)`` first applies :func:`extract_letter`; only when that
    gives ``None`` does it send :data:`EXTRACTION_PROMPT` to ``llm.complete(messages, n=1,
    temperature=0.0)`` (the paper: Gemini-1.0-Pro, temperature 0, 3 output tokens) and parses the
    reply with :func:`extract_letter` again (``"None"`` gives ``None``). ``deterministic_first=
    False`` always asks the LLM, as the paper did. ``.n_llm_calls`` counts the calls.
    """

    def __init__(self, llm: Any, *, deterministic_first: bool = True) -> None:
        if not callable(getattr(llm, "complete", None)):
            raise TypeError(
                f"llm must have a complete(messages, *, n, temperature) method, got {describe(llm)}"
            )
        self.llm = llm
        self.deterministic_first = check_bool(deterministic_first, "deterministic_first")
        self.n_llm_calls = 0

    def __call__(self, text: str, *, n_options: int = 5) -> str | None:
        text = check_str(text, "text")
        n_options = check_n_options(n_options)
        if self.deterministic_first:
            letter = extract_letter(text, n_options=n_options)
            if letter is not None:
                return letter
        prompt = EXTRACTION_PROMPT.format(output=text, last=LETTERS[n_options - 1])
        replies = self.llm.complete([{"role": "user", "content": prompt}], n=1, temperature=0.0)
        self.n_llm_calls += 1
        if (
            not isinstance(replies, list | tuple)
            or len(replies) != 1
            or not isinstance(replies[0], str)
        ):
            raise TypeError(f"llm.complete must return a list of one str, got {describe(replies)}")
        return extract_letter(replies[0], n_options=n_options)
