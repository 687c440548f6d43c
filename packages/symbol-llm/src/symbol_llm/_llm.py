"""The LLM protocol and its backends.

Any object with ``complete(messages, *, n=1, temperature=0.0) -> list[str]`` is an LLM:
``messages`` is a chat (a list of ``{"role": ..., "content": ...}`` dicts) and the result holds
``n`` completions. :func:`symbol_llm.generate_rules` always calls it with keywords and ``n=1``.
:class:`ScriptedLLM` replays fixed replies (tests, reproductions); :class:`HFLLM` wraps a
Hugging Face causal LM such as papershelf-tinylm's (extra ``hf``; torch is imported lazily).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from typing import Any, Protocol, runtime_checkable

from ._checks import check_float, check_int, describe

__all__ = ["LLM", "HFLLM", "ScriptedLLM"]


@runtime_checkable
class LLM(Protocol):
    """``complete(messages, *, n=1, temperature=0.0) -> list[str]``: ``n`` chat completions."""

    def complete(
        self, messages: list[dict[str, str]], *, n: int = 1, temperature: float = 0.0
    ) -> list[str]: ...


def _check_llm(llm: Any, name: str = "llm") -> Any:
    if not callable(getattr(llm, "complete", None)):
        raise TypeError(
            f"{name} must have a complete(messages, *, n=1, temperature=0.0) method, "
            f"got {describe(llm)}"
        )
    return llm


def _check_reply(reply: Any, n: int, name: str = "llm") -> list[str]:
    if not isinstance(reply, list | tuple) or not all(isinstance(r, str) for r in reply):
        raise TypeError(f"{name}.complete must return a list of str, got {describe(reply)}")
    if len(reply) != n:
        raise ValueError(f"{name}.complete was asked for n={n} completions, returned {len(reply)}")
    return list(reply)


def _check_messages(messages: Any) -> list[dict[str, str]]:
    if not isinstance(messages, list | tuple):
        raise TypeError(
            f"messages must be a list of {{'role', 'content'}} dicts, got {describe(messages)}"
        )
    if not messages:
        raise ValueError("messages must not be empty")
    for m in messages:
        if not isinstance(m, dict) or not isinstance(m.get("content"), str):
            raise TypeError(f"messages must hold {{'role', 'content'}} dicts, got {describe(m)}")
    return list(messages)


def _check_call(messages: Any, n: Any, temperature: Any) -> tuple[list[dict[str, str]], int, float]:
    return (
        _check_messages(messages),
        check_int(n, "n", minimum=1),
        check_float(temperature, "temperature", minimum=0.0),
    )


class ScriptedLLM:
    """An LLM that replays ``replies`` in order and records every call in ``.calls``.

    ``replies`` is a list of strings, one completion each (a call with ``n`` completions takes
    the next ``n``; an item that is a list of strings is the whole answer of one call), or a
    callable ``replies(messages) -> str`` that answers each completion
    from the chat (a rule oracle, say). Running out of replies is a ``RuntimeError``.
    ``.calls[k]`` is ``{"messages": ..., "n": ..., "temperature": ...}`` (a deep copy), so a
    test can read every prompt that was sent.

    >>> llm = ScriptedLLM(["a", "b", "c"])
    >>> llm.complete([{"role": "user", "content": "hi"}]), llm.complete(
    ...     [{"role": "user", "content": "hi"}], n=2, temperature=0.7)
    (['a'], ['b', 'c'])
    >>> [c["temperature"] for c in llm.calls], llm.remaining
    ([0.0, 0.7], 0)
    """

    def __init__(self, replies: Sequence[str] | Callable[[list[dict[str, str]]], str]):
        if callable(replies):
            self.replies: list[str] | Callable = replies
        else:
            if isinstance(replies, str | bytes) or not isinstance(replies, Sequence):
                raise TypeError(
                    f"replies must be a list of str or a callable, got {describe(replies)}"
                )
            items: list[str | list[str]] = []
            for r in replies:
                if isinstance(r, str):
                    items.append(r)
                elif isinstance(r, list | tuple) and r and all(isinstance(x, str) for x in r):
                    items.append(list(r))
                else:
                    raise TypeError(f"replies must hold str or lists of str, got {describe(r)}")
            self.replies = items
        self.calls: list[dict[str, Any]] = []
        self._next = 0

    @property
    def remaining(self) -> int | None:
        """Number of scripted replies not used yet (None for a callable script)."""
        if callable(self.replies):
            return None
        return len(self.replies) - self._next

    def complete(
        self, messages: list[dict[str, str]], *, n: int = 1, temperature: float = 0.0
    ) -> list[str]:
        messages, n, temperature = _check_call(messages, n, temperature)
        self.calls.append({"messages": copy.deepcopy(messages), "n": n, "temperature": temperature})
        if callable(self.replies):
            out = [self.replies(copy.deepcopy(messages)) for _ in range(n)]
            return _check_reply(out, n, "replies")
        if self._next < len(self.replies) and isinstance(self.replies[self._next], list):
            item = self.replies[self._next]
            if len(item) != n:
                raise ValueError(
                    f"scripted reply {self._next} holds {len(item)} completions, "
                    f"the call asked n={n}"
                )
            self._next += 1
            return list(item)
        out: list[str] = []
        while len(out) < n:
            if self._next >= len(self.replies) or not isinstance(self.replies[self._next], str):
                raise RuntimeError(
                    f"ScriptedLLM ran out of replies: {len(self.replies)} scripted, "
                    f"{self._next} used, {n} asked"
                )
            out.append(self.replies[self._next])
            self._next += 1
        return out


def _format_chat(messages: list[dict[str, str]]) -> str:
    parts = [f"{m.get('role', 'user')}:\n{m['content']}\n" for m in messages]
    return "\n".join(parts) + "\nassistant:\n"


class HFLLM:
    """A Hugging Face causal LM behind the LLM protocol (extra ``hf``: torch, transformers).

    ``model`` has ``.generate`` (a ``transformers`` causal LM, e.g. from papershelf-tinylm);
    ``tokenizer(text, return_tensors="pt")["input_ids"]`` encodes and ``.decode`` decodes. The
    chat is rendered with the tokenizer's chat template when it has one, else as
    ``role:\\ncontent`` blocks. Temperature 0 is greedy decoding, above 0 sampling seeded by
    ``seed`` (incremented per call, so repeated votes differ but runs repeat).
    """

    def __init__(self, model: Any, tokenizer: Any, *, max_new_tokens: int = 64, seed: int = 0):
        if not callable(getattr(model, "generate", None)):
            raise TypeError(f"model must have a generate method, got {describe(model)}")
        if not callable(tokenizer) or not callable(getattr(tokenizer, "decode", None)):
            raise TypeError(
                f"tokenizer must be callable and have decode, got {describe(tokenizer)}"
            )
        self.model = model
        self.tokenizer = tokenizer
        self.max_new_tokens = check_int(max_new_tokens, "max_new_tokens", minimum=1)
        self.seed = check_int(seed, "seed", minimum=0)

    def _prompt(self, messages: list[dict[str, str]]) -> str:
        template = getattr(self.tokenizer, "apply_chat_template", None)
        if callable(template) and getattr(self.tokenizer, "chat_template", None):
            return template(messages, tokenize=False, add_generation_prompt=True)
        return _format_chat(messages)

    def complete(
        self, messages: list[dict[str, str]], *, n: int = 1, temperature: float = 0.0
    ) -> list[str]:
        import torch  # lazily: the base package is torch-free

        messages, n, temperature = _check_call(messages, n, temperature)
        ids = self.tokenizer(self._prompt(messages), return_tensors="pt")["input_ids"]
        ids = ids.to(next(self.model.parameters()).device)
        kwargs: dict[str, Any] = {"max_new_tokens": self.max_new_tokens}
        pad = getattr(self.tokenizer, "pad_token_id", None)
        if pad is not None:
            kwargs["pad_token_id"] = pad
        if temperature > 0:
            kwargs.update(do_sample=True, temperature=temperature, num_return_sequences=n)
            torch.manual_seed(self.seed)
            self.seed += 1
        else:
            kwargs.update(do_sample=False)
        with torch.no_grad():
            out = self.model.generate(input_ids=ids, attention_mask=torch.ones_like(ids), **kwargs)
        texts = [
            self.tokenizer.decode(row, skip_special_tokens=True) for row in out[:, ids.shape[1] :]
        ]
        if temperature == 0:
            texts = texts[:1] * n
        return texts
