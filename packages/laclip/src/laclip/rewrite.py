"""Language rewrites by in-context learning (LaCLIP, Sec. 3): prompt building, completion
parsing and an LLM-agnostic rewriter. Pure Python + numpy; no torch needed here."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ._checks import check_callable, check_int, check_rng, describe

__all__ = ["INSTRUCTION", "LLMRewriter", "build_icl_prompt", "parse_rewrite"]

#: The first paragraph of every prompt (the paper's "write image captions differently").
INSTRUCTION = "write image captions differently,"


def _check_str(value: Any, name: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, got {describe(value)}")
    return value


def _check_texts(value: Any, name: str, *, allow_empty: bool = False) -> list[str]:
    """A sequence (list/tuple) of str, not a str itself."""
    if isinstance(value, str | bytes) or not isinstance(value, Sequence):
        raise TypeError(f"{name} must be a list of str, got {describe(value)}")
    out = list(value)
    for i, t in enumerate(out):
        if not isinstance(t, str):
            raise TypeError(f"{name}[{i}] must be a str, got {describe(t)}")
    if not out and not allow_empty:
        raise ValueError(f"{name} must not be empty")
    return out


def _check_pairs(pairs: Any, name: str = "pairs") -> list[tuple[str, str]]:
    """A non-empty sequence of (source, target) str pairs, duplicates removed (order kept)."""
    if isinstance(pairs, str | bytes) or not isinstance(pairs, Sequence):
        raise TypeError(
            f"{name} must be a list of (source, target) str pairs, got {describe(pairs)}"
        )
    seen: dict[tuple[str, str], None] = {}
    for i, p in enumerate(pairs):
        if isinstance(p, str | bytes) or not isinstance(p, Sequence):
            raise TypeError(f"{name}[{i}] must be a (source, target) pair, got {describe(p)}")
        if len(p) != 2:
            raise ValueError(f"{name}[{i}] must have 2 items (source, target), got {len(p)}")
        src, tgt = p
        if not isinstance(src, str) or not isinstance(tgt, str):
            raise TypeError(f"{name}[{i}] must hold two str, got {describe(src)}, {describe(tgt)}")
        for part in (src, tgt):
            if "\n" in part:
                raise ValueError(f"{name}[{i}] must be single-line text, got {part!r}")
            if not part.strip():
                raise ValueError(f"{name}[{i}] must not hold empty text, got {p!r}")
        seen[(src.strip(), tgt.strip())] = None
    if not seen:
        raise ValueError(f"{name} must not be empty")
    return list(seen)


def _check_caption(caption: Any, name: str = "caption") -> str:
    caption = _check_str(caption, name)
    if "\n" in caption:
        raise ValueError(f"{name} must be single-line text, got {caption!r}")
    if not caption.strip():
        raise ValueError(f"{name} must not be empty, got {caption!r}")
    return caption.strip()


def _prompt(caption: str, pairs: list[tuple[str, str]], k: int, gen) -> str:
    idx = gen.choice(len(pairs), size=k, replace=False)
    parts = [INSTRUCTION, *(f"{pairs[i][0]} => {pairs[i][1]}" for i in idx), f"{caption} =>"]
    return "\n\n".join(parts)


def _check_k(k: Any, n_pairs: int) -> int:
    k = check_int(k, "k", minimum=1)
    if k > n_pairs:
        raise ValueError(f"k must be <= the number of distinct pairs ({n_pairs}), got {k}")
    return k


def build_icl_prompt(
    caption: str, pairs: Sequence[tuple[str, str]], *, k: int = 3, rng=None
) -> str:
    """The in-context rewrite prompt for ``caption``.

    Paragraphs joined by blank lines (``"\\n\\n"``): ``"write image captions differently,"``,
    then ``k`` distinct example pairs ``"source => target"`` drawn without replacement from
    ``pairs`` (duplicates are counted once), then ``"<caption> =>"``, which the LLM completes.
    ``rng``: int | numpy Generator | None.
    """
    caption = _check_caption(caption)
    pairs = _check_pairs(pairs)
    k = _check_k(k, len(pairs))
    return _prompt(caption, pairs, k, check_rng(rng))


def parse_rewrite(completion: str, *, prompt: str | None = None) -> str:
    """The rewrite in an LLM ``completion``: an echoed ``prompt`` (the completion starting with
    it, as HF ``generate`` returns, leading whitespace aside) removed, then the first line,
    stripped.

    Leading blank lines are skipped, so ``" a dog\\n\\nnext => ..."`` and ``"\\n a dog"`` both give
    ``"a dog"``; an empty result is ``""`` (``TextAugmentedDataset`` then falls back to the
    original caption through ``min_words``).
    """
    completion = _check_str(completion, "completion")
    if prompt is not None:
        prompt = _check_str(prompt, "prompt")
        head = prompt.strip()
        if head and completion.startswith(prompt):
            completion = completion[len(prompt) :]
        elif head and completion.lstrip().startswith(head):  # a decoder's leading space/newline
            completion = completion.lstrip()[len(head) :]
    lines = completion.lstrip().splitlines()
    return lines[0].strip() if lines else ""


class LLMRewriter:
    """Rewrite captions with any LLM: ``generate(prompts) -> completions`` (one str per prompt,
    echoed prompts allowed), prompted by :func:`build_icl_prompt` with ``k`` pairs drawn from
    ``pairs`` for every caption, parsed by :func:`parse_rewrite`.

    The paper runs LLaMA-7B with temperature 0.9, top-p 0.95, at most 77 new tokens, once per
    pair source (ChatGPT, Bard, MSCOCO, human): one ``LLMRewriter`` per source gives one rewrite
    per caption each. ``rng`` is drawn from across calls, so two calls give fresh prompts.
    """

    def __init__(
        self,
        generate: Callable[[list[str]], Sequence[str]],
        pairs: Sequence[tuple[str, str]],
        *,
        k: int = 3,
        rng=None,
    ) -> None:
        self.generate = check_callable(generate, "generate")
        self.pairs = _check_pairs(pairs)
        self.k = _check_k(k, len(self.pairs))
        self.rng = check_rng(rng)

    def prompts(self, captions: Sequence[str]) -> list[str]:
        """The prompts :meth:`rewrite` sends (draws from ``rng``)."""
        captions = _check_texts(captions, "captions", allow_empty=True)
        cleaned = [_check_caption(c, f"captions[{i}]") for i, c in enumerate(captions)]
        return [_prompt(c, self.pairs, self.k, self.rng) for c in cleaned]

    def rewrite(self, captions: Sequence[str]) -> list[str]:
        """One rewrite per caption (``generate`` is called once, with all prompts)."""
        prompts = self.prompts(captions)
        if not prompts:
            return []
        out = _check_texts(self.generate(prompts), "generate's output", allow_empty=True)
        if len(out) != len(prompts):
            raise ValueError(
                f"generate must return one completion per prompt: got {len(out)} for "
                f"{len(prompts)} prompts"
            )
        return [parse_rewrite(c, prompt=p) for c, p in zip(out, prompts, strict=True)]

    def __repr__(self) -> str:
        return (
            f"LLMRewriter(generate={self.generate!r}, pairs=<{len(self.pairs)} pairs>, k={self.k})"
        )
