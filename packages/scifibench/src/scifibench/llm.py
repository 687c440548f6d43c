"""The LLM protocol of this package, a scripted test model, and a chat-model adapter.

An LLM is any object with ``complete(messages, *, n=1, temperature=0.0) -> list[str]``
(``messages`` a list of ``{"role": ..., "content": ...}`` dicts); it is always called with
keywords. A chat model (what :func:`scifibench.evaluate` talks to) is any object with
``generate(parts) -> str`` where ``parts`` is the interleaved prompt of
:func:`scifibench.build_prompt`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ._checks import check_float, check_int, describe

__all__ = ["LLMChatModel", "ScriptedLLM"]


class ScriptedLLM:
    """A deterministic LLM for tests: replies come from a script, every call is recorded.

    ``replies`` is a sequence of strings, used in order (``RuntimeError`` when it runs out), or
    a callable ``replies(messages) -> str`` called once per requested completion. ``.calls``
    lists ``{"messages", "n", "temperature"}`` dicts, one per call. ``generate(parts)`` makes it
    a chat model too: one ``complete`` call with the parts as the user message's content.
    """

    def __init__(self, replies: Sequence[str] | Callable[[Any], str]) -> None:
        if callable(replies):
            self._fn: Callable[[Any], str] | None = replies
            self._replies: list[str] = []
        else:
            if isinstance(replies, str) or not isinstance(replies, Sequence):
                raise TypeError(
                    f"replies must be a sequence of str or a callable, got {describe(replies)}"
                )
            for i, r in enumerate(replies):
                if not isinstance(r, str):
                    raise TypeError(f"replies[{i}] must be a str, got {describe(r)}")
            self._fn = None
            self._replies = list(replies)
        self._next = 0
        self.calls: list[dict[str, Any]] = []

    def complete(self, messages, *, n=1, temperature=0.0):
        n = check_int(n, "n", minimum=1)
        temperature = check_float(temperature, "temperature", minimum=0.0)
        self.calls.append({"messages": messages, "n": n, "temperature": temperature})
        out = []
        for _ in range(n):
            if self._fn is not None:
                r = self._fn(messages)
                if not isinstance(r, str):
                    raise TypeError(f"replies(messages) must return a str, got {describe(r)}")
                out.append(r)
                continue
            if self._next >= len(self._replies):
                raise RuntimeError(
                    f"ScriptedLLM ran out of replies after {len(self._replies)} completions"
                )
            out.append(self._replies[self._next])
            self._next += 1
        return out

    def generate(self, parts):
        return self.complete([{"role": "user", "content": list(parts)}], n=1, temperature=0.0)[0]


class LLMChatModel:
    """Adapt an LLM (``complete``) to the chat-model interface (``generate(parts) -> str``):
    one call per question, ``n=1``, ``temperature`` (default 0.0: the paper's deterministic
    decoding), the prompt parts as the content of one user message."""

    def __init__(self, llm: Any, *, temperature: float = 0.0) -> None:
        if not callable(getattr(llm, "complete", None)):
            raise TypeError(
                f"llm must have a complete(messages, *, n, temperature) method, got {describe(llm)}"
            )
        self.llm = llm
        self.temperature = check_float(temperature, "temperature", minimum=0.0)

    def generate(self, parts):
        replies = self.llm.complete(
            [{"role": "user", "content": list(parts)}], n=1, temperature=self.temperature
        )
        if (
            not isinstance(replies, list | tuple)
            or len(replies) != 1
            or not isinstance(replies[0], str)
        ):
            raise TypeError(f"llm.complete must return a list of one str, got {describe(replies)}")
        return replies[0]
