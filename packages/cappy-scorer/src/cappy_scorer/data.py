"""ROUGE-L labels and Cappy's downstream training pairs (the paper's BIG-Bench recipe)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any, NamedTuple

from ._checks import check_bool, check_int, check_rng, describe
from ._validation import check_references, check_text, check_texts

__all__ = ["TrainingPair", "build_training_pairs", "rouge_l"]


@lru_cache(maxsize=2)
def _scorer(stem: bool):
    from rouge_score.rouge_scorer import RougeScorer

    return RougeScorer(["rougeL"], use_stemmer=stem)


def rouge_l(prediction: Any, references: Any, *, stem: bool = True) -> float:
    """ROUGE-L F-measure of ``prediction`` against its best reference (``rouge-score``'s
    ``RougeScorer(["rougeL"], use_stemmer=stem).score_multi``: the maximum over references).

    ``references`` is one ``str`` or a non-empty list of them. Text without any letter or digit
    has no tokens and scores 0.
    """
    prediction = check_text(prediction, "prediction")
    references = check_references(references, "references")
    stem = check_bool(stem, "stem")
    return float(_scorer(stem).score_multi(references, prediction)["rougeL"].fmeasure)


class TrainingPair(NamedTuple):
    """One regression example: ``(instruction, response, label)`` with ``label`` in [0, 1]."""

    instruction: str
    response: str
    label: float


def _check_example(example: Any, i: int) -> tuple[str, list[str], list[str]]:
    name = f"examples[{i}]"
    if not isinstance(example, Mapping):
        raise TypeError(
            f"{name} must be a dict with 'instruction', 'references' and 'candidates', "
            f"got {describe(example)}"
        )
    for key in ("instruction", "references"):
        if key not in example:
            raise ValueError(f"{name} has no {key!r} key (keys: {sorted(map(str, example))})")
    instruction = check_text(example["instruction"], f"{name}['instruction']")
    references = check_references(example["references"], f"{name}['references']")
    candidates = check_texts(
        example.get("candidates", []), f"{name}['candidates']", allow_empty=True
    )
    return instruction, references, candidates


def build_training_pairs(
    examples: Any,
    *,
    negatives_per_positive: int = 1,
    train_size: int | None = None,
    rng: Any = None,
    stem: bool = True,
) -> list[TrainingPair]:
    """Cappy's regression data for a downstream task, as in the paper's BIG-Bench code.

    ``examples`` are dicts ``{"instruction": str, "references": [str, ...], "candidates":
    [str, ...]}`` (candidates: the LLM's generations; optional). In order:

    1. every (instruction, reference) pair, label 1.0;
    2. for each positive, ``negatives_per_positive`` draws of a response uniformly from all
       distinct references of all examples, label 0.0, skipped when that (instruction,
       response) pair already exists;
    3. every candidate whose pair is new, label ``rouge_l(candidate, references, stem=stem)``.

    Pairs are unique by (instruction, response); the list is shuffled with ``rng``; with
    ``train_size`` it is repeated whole as often as needed and truncated to ``train_size``.
    """
    if (
        isinstance(examples, Mapping)
        or isinstance(examples, str | bytes)
        or not isinstance(examples, Sequence)
    ):
        raise TypeError(f"examples must be a list of dicts, got {describe(examples)}")
    if len(examples) == 0:
        raise ValueError("examples must not be empty, got an empty list")
    negatives_per_positive = check_int(negatives_per_positive, "negatives_per_positive", minimum=0)
    if train_size is not None:
        train_size = check_int(train_size, "train_size", minimum=1)
    gen = check_rng(rng, "rng")
    stem = check_bool(stem, "stem")
    parsed = [_check_example(ex, i) for i, ex in enumerate(examples)]

    seen: set[tuple[str, str]] = set()
    pairs: list[TrainingPair] = []
    for instruction, references, _ in parsed:
        for ref in references:
            if (instruction, ref) not in seen:
                seen.add((instruction, ref))
                pairs.append(TrainingPair(instruction, ref, 1.0))
    pool = sorted({ref for _, references, _ in parsed for ref in references})
    positives = list(pairs)
    for instruction, _, _ in positives:
        for _ in range(negatives_per_positive):
            response = pool[int(gen.integers(len(pool)))]
            if (instruction, response) not in seen:
                seen.add((instruction, response))
                pairs.append(TrainingPair(instruction, response, 0.0))
    for instruction, references, candidates in parsed:
        for cand in candidates:
            if (instruction, cand) not in seen:
                seen.add((instruction, cand))
                pairs.append(TrainingPair(instruction, cand, rouge_l(cand, references, stem=stem)))
    pairs = [pairs[i] for i in gen.permutation(len(pairs))]
    if train_size is not None:
        pairs = (pairs * (train_size // len(pairs) + 1))[:train_size]
    return pairs
