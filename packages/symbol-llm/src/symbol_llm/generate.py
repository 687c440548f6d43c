"""The LLM-driven symbol-rule loop of Symbol-LLM (``generate_rule.py`` of the release).

Per activity: ask the LLM what the person's hands are doing (initial symbols, queued); for each
popped symbol grow a rule ``IF s AND c1 AND ... THEN activity``: check the entailment (the mean
of ``n_votes`` parsed multiple-choice answers), ask for one more condition, and repeat until the
entailment exceeds ``stop_entailment`` or the rule has ``max_premises`` premises; then map each
premise to a known symbol when an encoder says they are paraphrases (cosine >=
``dedup_threshold``), else add it as a new symbol and queue it.
"""

from __future__ import annotations

import math
import re
import zlib
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

from ._checks import check_array, check_float, check_int, describe
from ._llm import _check_llm, _check_reply
from .rules import Rule, RuleBase, _check_text

__all__ = [
    "CHOICES",
    "SYSTEM_PROMPT",
    "TEMPERATURE",
    "HashingEncoder",
    "TextEncoder",
    "condition_prompt",
    "entailment_prompt",
    "generate_rules",
    "initial_prompt",
    "parse_condition",
    "parse_probability_choice",
    "parse_symbols",
]

#: The multiple-choice answers of the entailment check; "(f) unknown" scores 0.
CHOICES = {"a": 0.1, "b": 0.5, "c": 0.7, "d": 0.9, "e": 0.95, "f": 0.0}
SYSTEM_PROMPT = "You are helping me understanding human activities in a picture."
#: Sampling temperature of every query (gpt-3.5-turbo at 0.7 in the release).
TEMPERATURE = 0.7


@runtime_checkable
class TextEncoder(Protocol):
    """``encode(texts) -> (len(texts), d)`` embeddings (compared by cosine)."""

    def encode(self, texts: list[str]) -> Any: ...


# -- prompts (the release's wording, typos fixed) ---------------------------------------------
def initial_prompt(activity: str) -> str:
    """The initial-symbol question for ``activity`` (an -ing phrase, e.g. "riding a bicycle")."""
    return (
        f"In a picture, a person is {activity}. What are his hands doing?\n"
        'Answer with 5 concise, highly-related phrases. The format is "<hands> <verb> <object>".\n'
        "Output Format:\n1. xxx\n2. xxx\n3. xxx\n4. xxx\n5. xxx"
    )


def entailment_prompt(activity: str, premises: Sequence[str]) -> str:
    """The entailment question: how probable is ``activity`` given all ``premises``."""
    premise = ". ".join("The person is " + p for p in premises)
    return (
        f"In a picture, {premise}. Estimate the probability that he is {activity} at the same "
        "time.\nChoose from: (a) 0.1, (b) 0.5, (c) 0.7, (d) 0.9, (e) 0.95, (f) unknown.\n"
        "Output Format: a/b/c/d/e/f.\n"
    )


def condition_prompt(activity: str, premises: Sequence[str]) -> str:
    """The rule-extension question: one more condition for ``IF premises THEN activity``."""
    premise = "AND ".join("[The person is " + p + "] " for p in premises)
    return (
        f"In a picture, IF {premise}AND [condition] THEN [The person is {activity}.]\n"
        "[condition] is one concise phrase. The format is "
        '"<The person\'s hands/arms/hip/legs/feet> <verb> <object>". What is [condition]?\n'
        "Output Format:\n[condition] is: [xxx].\n"
    )


# -- parsers ------------------------------------------------------------------------------------
def _check_str(text: Any, name: str = "text") -> str:
    if not isinstance(text, str):
        raise TypeError(f"{name} must be a str, got {describe(text)}")
    return text


_PAREN = re.compile(r"\(\s*([a-fA-F])\s*\)")
_FALLBACKS = (
    re.compile(r"^\W*([a-fA-F])\W*$"),  # "c", "(c", "c.", "**c**"
    re.compile(r"^\W*([a-fA-F])\)"),  # "c) 0.7"
    re.compile(r"^\W*([a-fA-F])[.:]?\s+(?:0?\.\d+|unknown)\b", re.I),  # "d 0.9", "f: unknown"
    re.compile(r"\b(?:answer|option|choice)\s*(?:is|:)?\s*:?\s*([a-fA-F])\b", re.I),
)


def parse_probability_choice(text: str) -> float | None:
    """The probability of a multiple-choice answer: (a) 0.1, (b) 0.5, (c) 0.7, (d) 0.9,
    (e) 0.95, (f) unknown = 0; None when the reply names no choice or several different ones.

    A parenthesised letter is looked for first ("(d) 0.9", "I'd say (d)."); then a bare
    letter ("d", "d) 0.9", "d 0.9", "Answer: d").
    """
    text = _check_str(text)
    found = {m.lower() for m in _PAREN.findall(text)}
    if len(found) == 1:
        return CHOICES[found.pop()]
    if len(found) > 1:
        return None
    stripped = text.strip()
    for pattern in _FALLBACKS:
        m = pattern.search(stripped)
        if m:
            return CHOICES[m.group(1).lower()]
    return None


_CONDITION = re.compile(r"\[?\s*condition\s*\]?\s*(?:is|=)?\s*:\s*(.*)", re.I)


def _clean(phrase: str) -> str:
    p = phrase.strip()
    if p.startswith("["):
        end = p.find("]")
        p = p[1:end] if end > 0 else p[1:]
    p = p.strip().strip("*`'\"").strip()
    p = re.sub(r"[\s.;,]+$", "", p).strip().strip("*`'\"[]").strip()
    return re.sub(r"\s+", " ", p)


def parse_condition(text: str) -> str:
    """The condition phrase of a rule-extension reply ("[condition] is: [hands on the pedals]."
    gives "hands on the pedals"); without the "[condition] is:" marker, the first non-empty
    line, cleaned of brackets, quotes and the final period. "" when there is none."""
    text = _check_str(text)
    m = _CONDITION.search(text)
    if m:
        line = m.group(1).splitlines()[0] if m.group(1).strip() else ""
        return _clean(line)
    for line in text.splitlines():
        if line.strip():
            return _clean(line)
    return ""


_ITEM = re.compile(r"^\s*(?:\d+\s*[.)]|[-*\u2022])\s*(.+)$")


def parse_symbols(text: str) -> list[str]:
    """The phrases of a numbered (or bulleted) list reply, cleaned, repeats removed; without a
    list, every non-empty line."""
    text = _check_str(text)
    lines = text.splitlines()
    items = [m.group(1) for m in map(_ITEM.match, lines) if m]
    if not items:
        items = [ln for ln in lines if ln.strip()]
    out = [c for c in (_clean(i) for i in items) if c]
    return list(dict.fromkeys(out))


# -- encoders -----------------------------------------------------------------------------------
_WORD = re.compile(r"[a-z0-9']+")


class HashingEncoder:
    """A deterministic, dependency-free text encoder: L2-normalised hashed bag of lower-cased
    words (CRC32 buckets). Equal word multisets give cosine 1, so case, punctuation and word
    order do not matter; real paraphrases need a sentence encoder (CLIP's text tower in the
    release, MiniLM through sentence-transformers)."""

    def __init__(self, dim: int = 1024):
        self.dim = check_int(dim, "dim", minimum=8)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        if isinstance(texts, str) or not isinstance(texts, Sequence):
            raise TypeError(f"texts must be a list of str, got {describe(texts)}")
        out = np.zeros((len(texts), self.dim))
        for i, t in enumerate(texts):
            _check_str(t, f"texts[{i}]")
            for w in _WORD.findall(t.lower()):
                out[i, zlib.crc32(w.encode()) % self.dim] += 1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return np.divide(out, norms, out=np.zeros_like(out), where=norms > 0)


def _encoder_fn(encoder: Any) -> Callable[[list[str]], Any]:
    for attr in ("encode", "encode_text"):
        fn = getattr(encoder, attr, None)
        if callable(fn):
            return fn
    if callable(encoder):
        return encoder
    raise TypeError(
        f"encoder must have an encode(texts) (or encode_text) method or be callable, "
        f"got {describe(encoder)}"
    )


def _embed(fn: Callable, texts: list[str]) -> np.ndarray:
    e = check_array(fn(list(texts)), "encoder output", ndim=2)
    if e.shape[0] != len(texts):
        raise ValueError(f"encoder returned {e.shape[0]} rows for {len(texts)} texts")
    norms = np.linalg.norm(e, axis=1, keepdims=True)
    if np.any(norms == 0):
        raise ValueError("encoder returned an all-zero embedding (cosine undefined)")
    return e / norms


# -- the loop -----------------------------------------------------------------------------------
def generate_rules(
    activity: str,
    llm: Any,
    encoder: Any,
    *,
    max_loops: int = 15,
    max_premises: int = 5,
    stop_entailment: float = 0.9,
    dedup_threshold: float = 0.95,
    n_votes: int = 3,
    max_queries: int = 30,
) -> RuleBase:
    """Build the symbols and rules of one activity with an LLM, as the released generator does.

    ``activity``: the activity as it reads in "a person is <activity>" (-ing form, object
    included: "riding a bicycle"); it is every rule's conclusion. ``llm``: ``complete(messages,
    *, n=1, temperature=0.0) -> list[str]`` (called with ``n=1``, ``temperature=0.7``);
    ``encoder``: ``encode(texts) -> (n, d)`` or a callable (cosine similarity).

    1. One query for the initial symbols (:func:`parse_symbols`), queued in order.
    2. While the queue is not empty and fewer than ``max_loops`` rules were built: pop a symbol,
       premises = [symbol]; check (``entailment[0]``), then always extend once; then while there
       are fewer than ``max_premises`` premises: check (``entailment[k]`` at ``k + 1``
       premises), stop if it is above ``stop_entailment``, else extend. A check queries until
       ``n_votes`` replies parse (:func:`parse_probability_choice`) and averages them; an
       extension queries until :func:`parse_condition` gives a phrase.
    3. Each premise in turn: a known symbol (exact, or the nearest at cosine >=
       ``dedup_threshold``) replaces it; otherwise it becomes a new symbol and is queued.

    Each ask-until-parsed step may send at most ``max_queries`` queries (the release retries
    forever); then ``RuntimeError``. Returns ``RuleBase(symbols, rules)``.
    """
    activity = _check_text(activity, "activity")
    llm = _check_llm(llm)
    enc = _encoder_fn(encoder)
    max_loops = check_int(max_loops, "max_loops", minimum=1)
    max_premises = check_int(max_premises, "max_premises", minimum=2)
    stop_entailment = check_float(stop_entailment, "stop_entailment", minimum=0.0, maximum=1.0)
    dedup_threshold = check_float(dedup_threshold, "dedup_threshold", minimum=-1.0, maximum=1.0)
    n_votes = check_int(n_votes, "n_votes", minimum=1)
    max_queries = check_int(max_queries, "max_queries", minimum=1)
    if max_queries < n_votes:
        raise ValueError(f"max_queries must be >= n_votes={n_votes}, got {max_queries}")

    def ask_until(prompt: str, parse: Callable[[str], Any], need: int, what: str) -> list[Any]:
        messages = [
            {"role": "system", "content": SYSTEM_PROMPT},
            {"role": "user", "content": prompt},
        ]
        got: list[Any] = []
        for _ in range(max_queries):
            reply = _check_reply(llm.complete(messages, n=1, temperature=TEMPERATURE), 1)[0]
            value = parse(reply)
            if value is not None and value != "" and value != []:
                got.append(value)
                if len(got) == need:
                    return got
        raise RuntimeError(
            f"{what}: max_queries={max_queries} queries gave {len(got)} parsable replies, "
            f"{need} needed"
        )

    def check(premises: list[str]) -> float:
        votes = ask_until(
            entailment_prompt(activity, premises),
            parse_probability_choice,
            n_votes,
            "entailment check",
        )
        return round(math.fsum(votes) / len(votes), 12)

    def extend(premises: list[str]) -> str:
        return ask_until(condition_prompt(activity, premises), parse_condition, 1, "extension")[0]

    symbols: list[str] = []
    embeddings: list[np.ndarray] = []

    def add_symbol(s: str) -> None:
        symbols.append(s)
        embeddings.append(_embed(enc, [s])[0])

    queue: deque[str] = deque()
    for s in ask_until(initial_prompt(activity), parse_symbols, 1, "initial symbols")[0]:
        add_symbol(s)
        queue.append(s)

    rules: list[Rule] = []
    while queue and len(rules) < max_loops:
        premises = [queue.popleft()]
        entailment = [check(premises)]
        premises.append(extend(premises))
        while len(premises) < max_premises:
            e = check(premises)
            entailment.append(e)
            if e > stop_entailment:
                break
            premises.append(extend(premises))
        mapped: list[str] = []
        for p in premises:
            if p in symbols:
                mapped.append(p)
                continue
            sims = np.stack(embeddings) @ _embed(enc, [p])[0]
            best = int(np.argmax(sims))
            if sims[best] >= dedup_threshold:
                mapped.append(symbols[best])
            else:
                add_symbol(p)
                queue.append(p)
                mapped.append(p)
        rules.append(Rule(activity, tuple(dict.fromkeys(mapped)), tuple(entailment)))
    return RuleBase(tuple(symbols), tuple(rules))
