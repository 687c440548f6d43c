"""The LLM protocol and its backends.

Any object with ``complete(messages, *, n=1, temperature=0.0) -> list[str]`` is an LLM:
``messages`` is a chat (a list of ``{"role": ..., "content": ...}`` dicts) and the result holds
``n`` completions. The compiler always calls it with keywords. :class:`ScriptedLLM` replays fixed
replies (tests, reproductions); :class:`HFLLM` wraps a Hugging Face causal LM such as
papershelf-tinylm's (extra ``hf``; torch is imported only when it is used).
"""

from __future__ import annotations

import copy
import re
from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from ._checks import check_float, check_int

__all__ = ["LLM", "HFLLM", "LibraryLLM", "ScriptedLLM", "check_llm", "check_reply"]


@runtime_checkable
class LLM(Protocol):
    """``complete(messages, *, n=1, temperature=0.0) -> list[str]``: ``n`` chat completions."""

    def complete(
        self, messages: list[dict[str, str]], *, n: int = 1, temperature: float = 0.0
    ) -> list[str]: ...


def check_llm(llm: Any, name: str = "llm") -> Any:
    """``llm`` must have a callable ``complete`` (TypeError naming ``name`` otherwise)."""
    if not callable(getattr(llm, "complete", None)):
        raise TypeError(
            f"{name} must have a complete(messages, *, n=1, temperature=0.0) method, "
            f"got {type(llm).__name__}"
        )
    return llm


def check_reply(reply: Any, n: int, name: str = "llm") -> list[str]:
    """What ``llm.complete`` returned must be a list of ``n`` strings."""
    if not isinstance(reply, (list, tuple)) or not all(isinstance(r, str) for r in reply):
        raise TypeError(f"{name}.complete must return a list of str, got {type(reply).__name__}")
    if len(reply) != n:
        raise ValueError(f"{name}.complete was asked for n={n} completions, returned {len(reply)}")
    return list(reply)


def check_messages(messages: Any) -> list[dict[str, str]]:
    if not isinstance(messages, (list, tuple)) or not messages:
        raise TypeError("messages must be a non-empty list of {'role', 'content'} dicts")
    for m in messages:
        if not isinstance(m, dict) or not isinstance(m.get("content"), str):
            raise TypeError(f"messages must hold {{'role', 'content'}} dicts, got {m!r}")
    return list(messages)


def _record(calls: list, messages: Any, n: Any, temperature: Any) -> tuple[list, int, float]:
    """Validate one protocol call and append it to ``calls`` (a deep copy of the messages)."""
    messages = check_messages(messages)
    n = check_int(n, "n", minimum=1)
    temperature = check_float(temperature, "temperature", minimum=0.0)
    calls.append({"messages": copy.deepcopy(messages), "n": n, "temperature": temperature})
    return messages, n, temperature


class ScriptedLLM:
    """An LLM that replays ``replies`` in order and records every call in ``.calls``.

    Each item of ``replies`` is a string (one completion) or a list of strings (the whole answer
    of one call). A call with ``n`` completions takes the next list item as is (its length must
    be ``n``), or the next ``n`` strings. Running out of replies is a ``RuntimeError``.
    ``.calls[k]`` is ``{"messages": ..., "n": ..., "temperature": ...}`` (a deep copy).

    >>> llm = ScriptedLLM(["a", ["b", "c"]])
    >>> llm.complete([{"role": "user", "content": "hi"}]), llm.complete(
    ...     [{"role": "user", "content": "hi"}], n=2, temperature=0.8)
    (['a'], ['b', 'c'])
    >>> [c["temperature"] for c in llm.calls]
    [0.0, 0.8]
    """

    def __init__(self, replies: Sequence[str | Sequence[str]]):
        if isinstance(replies, str) or not isinstance(replies, Sequence):
            raise TypeError(
                f"replies must be a list of str (or of lists of str), got {type(replies).__name__}"
            )
        items: list[str | list[str]] = []
        for r in replies:
            if isinstance(r, str):
                items.append(r)
            elif isinstance(r, Sequence) and all(isinstance(x, str) for x in r):
                items.append(list(r))
            else:
                raise TypeError(f"replies must hold str or lists of str, got {type(r).__name__}")
        self.replies = items
        self.calls: list[dict[str, Any]] = []
        self._next = 0

    @property
    def remaining(self) -> int:
        """Number of reply items not used yet."""
        return len(self.replies) - self._next

    def complete(
        self, messages: list[dict[str, str]], *, n: int = 1, temperature: float = 0.0
    ) -> list[str]:
        messages, n, temperature = _record(self.calls, messages, n, temperature)
        if self._next >= len(self.replies):
            raise RuntimeError(f"ScriptedLLM ran out of replies after {len(self.replies)}")
        item = self.replies[self._next]
        if isinstance(item, list):
            self._next += 1
            if len(item) != n:
                raise ValueError(f"scripted reply holds {len(item)} completions, asked n={n}")
            return list(item)
        out: list[str] = []
        while len(out) < n:
            if self._next >= len(self.replies) or not isinstance(self.replies[self._next], str):
                raise RuntimeError(f"ScriptedLLM has fewer than n={n} string replies left")
            out.append(self.replies[self._next])  # type: ignore[arg-type]
            self._next += 1
        return out


_ASK = re.compile(r"^# ?(.*)\ndef ([A-Za-z_][A-Za-z0-9_]*)\s*\Z", flags=re.S | re.M)


class LibraryLLM:
    r"""A test LLM that implements a hole only when its description is a known primitive.

    ``mapping`` maps a description (compared after stripping and lower-casing) to the Python
    source of one function, or to a list of candidate sources. It reads the ``# <description>``
    / ``def <name>`` request at the end of the last message. A defined hole gets the function
    under its own name; an inline ``_holeK`` under the source's name. Temperature 0 answers with
    the first candidate; a call with ``temperature > 0`` returns the candidates in order
    (cycled to ``n``). An unknown description gets an apology without code. It models "an LLM
    that solves simple holes only" (brief of the package); ``.calls`` records every call.

    >>> llm = LibraryLLM({"double x": "def double(x):\n    return 2 * x"})
    >>> llm.complete([{"role": "user", "content": "# double x\ndef _hole0"}])[0].splitlines()[1]
    'def double(x):'
    """

    def __init__(self, mapping: dict[str, str | Sequence[str]]):
        if not isinstance(mapping, dict):
            raise TypeError(
                f"mapping must be a dict of description -> source, got {type(mapping).__name__}"
            )
        lib: dict[str, list[str]] = {}
        for key, value in mapping.items():
            if not isinstance(key, str):
                raise TypeError(f"mapping keys must be str descriptions, got {type(key).__name__}")
            values = [value] if isinstance(value, str) else value
            if (
                not isinstance(values, Sequence)
                or not values
                or not all(isinstance(v, str) for v in values)
            ):
                raise TypeError(f"mapping[{key!r}] must be a source str or a non-empty list of str")
            lib[key.strip().lower()] = list(values)
        self.mapping = lib
        self.calls: list[dict[str, Any]] = []

    def complete(
        self, messages: list[dict[str, str]], *, n: int = 1, temperature: float = 0.0
    ) -> list[str]:
        messages, n, temperature = _record(self.calls, messages, n, temperature)
        m = _ASK.search(messages[-1]["content"])
        if m is None:
            return ["I do not know what to implement."] * n
        desc, name = m.group(1).strip().lower(), m.group(2)
        if desc not in self.mapping:
            return ["Sorry, I cannot implement that."] * n
        sources = self.mapping[desc]
        picked = (
            [sources[0]] * n if temperature == 0 else [sources[i % len(sources)] for i in range(n)]
        )
        return [f"```python\n{_named(src, name)}\n```" for src in picked]


def _named(source: str, name: str) -> str:
    """Rename the source's first function to ``name`` unless ``name`` is an inline hole."""
    if re.fullmatch(r"_hole\d+", name):
        return source
    return re.sub(r"^def\s+[A-Za-z_][A-Za-z0-9_]*", f"def {name}", source, count=1, flags=re.M)


def format_chat(messages: list[dict[str, str]]) -> str:
    """A plain-text rendering of a chat for models without a chat template."""
    parts = [f"{m.get('role', 'user')}:\n{m['content']}\n" for m in messages]
    return "\n".join(parts) + "\nassistant:\n"


class HFLLM:
    """A Hugging Face causal LM behind the LLM protocol (extra ``hf``: torch, transformers).

    ``model`` is a ``transformers`` causal LM (``.generate``), ``tokenizer`` turns text into
    ``input_ids`` (``tokenizer(text, return_tensors="pt")``) and back (``.decode``): a
    ``transformers`` tokenizer or papershelf-tinylm's ``ByteTokenizer``. The chat is rendered with
    the tokenizer's chat template when it has one, else as ``role:\\ncontent`` blocks.
    Temperature 0 is greedy decoding; above 0 it samples (``generator`` seeds torch).

    >>> import papershelf_tinylm as tl                                    # doctest: +SKIP
    >>> target, _, tok = tl.load_pair(micro=True)                          # doctest: +SKIP
    >>> HFLLM(target, tok, max_new_tokens=16).complete([{"role": "user", "content": "def f"}])
    ... # doctest: +SKIP
    """

    def __init__(self, model: Any, tokenizer: Any, *, max_new_tokens: int = 256, seed: int = 0):
        if not callable(getattr(model, "generate", None)):
            raise TypeError(f"model must have a generate method, got {type(model).__name__}")
        if not callable(tokenizer) or not callable(getattr(tokenizer, "decode", None)):
            raise TypeError(
                f"tokenizer must be callable and have decode, got {type(tokenizer).__name__}"
            )
        self.model = model
        self.tokenizer = tokenizer
        self.max_new_tokens = check_int(max_new_tokens, "max_new_tokens", minimum=1)
        self.seed = check_int(seed, "seed", minimum=0)
        self.calls: list[dict[str, Any]] = []

    def _prompt(self, messages: list[dict[str, str]]) -> str:
        template = getattr(self.tokenizer, "apply_chat_template", None)
        if callable(template) and getattr(self.tokenizer, "chat_template", None):
            return template(messages, tokenize=False, add_generation_prompt=True)
        return format_chat(messages)

    def complete(
        self, messages: list[dict[str, str]], *, n: int = 1, temperature: float = 0.0
    ) -> list[str]:
        import torch  # lazily: the base package is torch-free

        messages, n, temperature = _record(self.calls, messages, n, temperature)
        ids = self.tokenizer(self._prompt(messages), return_tensors="pt")["input_ids"]
        device = next(self.model.parameters()).device
        ids = ids.to(device)
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
        new = out[:, ids.shape[1] :]
        texts = [self.tokenizer.decode(row, skip_special_tokens=True) for row in new]
        if temperature == 0:
            texts = texts[:1] * n  # greedy: all n completions are the same
        return texts
