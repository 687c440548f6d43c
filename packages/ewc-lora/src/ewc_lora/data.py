"""Embodied experiences as fine-tuning text: the paper's four formats from GridHome runs.

Every builder returns a list of ``{"prompt": str, "target": str, "task": str}`` examples;
:func:`tokenize_examples` turns them into a batch dict (``input_ids``, ``attention_mask``,
``labels`` with -100 on the prompt and the padding), the loss on the target only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ._checks import check_int, describe
from .world import GridHome, Plan, Trajectory, format_action

__all__ = [
    "format_goal",
    "make_activity_recognition",
    "make_counting_qa",
    "make_path_tracking_qa",
    "make_plan_examples",
    "tokenize_examples",
]


def format_goal(goal: Sequence[tuple[str, ...]]) -> str:
    """``(("in", "apple", "fridge"), ("switched_on", "tv"))`` -> ``"apple in fridge, tv on"``."""
    words = []
    for p in goal:
        if p[0] in ("in", "on"):
            words.append(f"{p[1]} {p[0]} {p[2]}")
        elif p[0].startswith("switched_"):
            words.append(f"{p[1]} {p[0][len('switched_') :]}")
        elif p[0] in ("open", "closed"):
            words.append(f"{p[1]} {p[0]}")
        else:
            words.append(f"{p[0]} {p[1]}")
    return ", ".join(words)


def _check_items(items: Any, name: str, kind: type) -> list:
    if isinstance(items, kind):
        items = [items]
    if isinstance(items, str) or not isinstance(items, Sequence):
        raise TypeError(f"{name} must be a sequence of {kind.__name__}, got {describe(items)}")
    items = list(items)
    if not items:
        raise ValueError(f"{name} must not be empty")
    for i, it in enumerate(items):
        if not isinstance(it, kind):
            raise TypeError(f"{name}[{i}] must be a {kind.__name__}, got {describe(it)}")
    return items


def _steps(actions: Sequence[tuple[str, ...]]) -> str:
    return "; ".join(format_action(a) for a in actions)


def _example(prompt: str, target: str, task: str) -> dict[str, str]:
    return {"prompt": prompt, "target": target, "task": task}


def _from_plans(plans: Any, fmt) -> list[dict[str, str]]:
    plans = _check_items(plans, "plans", Plan)
    return [_example(*fmt(p)) for p in plans if p.success and p.actions]


def make_plan_examples(plans: Sequence[Plan]) -> list[dict[str, str]]:
    """Plan generation (goal -> steps) from the successful plans (failed ones are left out)."""
    return _from_plans(
        plans,
        lambda p: (f"Goal: {format_goal(p.goal)}.\nPlan:", f" {_steps(p.actions)}.\n", "plan"),
    )


def make_activity_recognition(plans: Sequence[Plan]) -> list[dict[str, str]]:
    """Activity recognition (steps -> goal) from the successful plans."""
    return _from_plans(
        plans,
        lambda p: (f"Steps: {_steps(p.actions)}.\nGoal:", f" {format_goal(p.goal)}.\n", "activity"),
    )


def _moves(env: GridHome, traj: Trajectory) -> dict[str, list[str]]:
    """Each moved object's receptacles in order, starting with where it was."""
    moved: dict[str, list[str]] = {}
    for state, action in zip(traj.states, traj.actions, strict=False):
        if action[0] == "grab" and action[1] not in moved:
            moved[action[1]] = [env.location(action[1], state)[1]]
        elif action[0] == "put":
            moved[action[1]].append(action[2])
    return moved


def _check_runs(env: Any, trajectories: Any) -> list[Trajectory]:
    if not isinstance(env, GridHome):
        raise TypeError(f"env must be a GridHome, got {describe(env)}")
    return _check_items(trajectories, "trajectories", Trajectory)


def make_counting_qa(env: GridHome, trajectories: Sequence[Trajectory]) -> list[dict[str, str]]:
    """Counting QA: after a random walk, how many objects were moved and how many rooms
    visited."""
    out = []
    for t in _check_runs(env, trajectories):
        steps = _steps(t.actions)
        n_moved = len(_moves(env, t))
        rooms = {env.rooms[s[0]] for s in t.states}
        question = "Steps: {}.\nQ: how many {} were {}?\nA:"
        out.append(
            _example(question.format(steps, "objects", "moved"), f" {n_moved}\n", "counting")
        )
        out.append(
            _example(question.format(steps, "rooms", "visited"), f" {len(rooms)}\n", "counting")
        )
    return out


def make_path_tracking_qa(
    env: GridHome, trajectories: Sequence[Trajectory]
) -> list[dict[str, str]]:
    """Object path tracking: where each moved object went, in order (``"hands"`` while held)."""
    out = []
    for t in _check_runs(env, trajectories):
        steps = _steps(t.actions)
        for obj, path in _moves(env, t).items():
            places = []
            for place in path:
                places += [place, "hands"]
            held_at_end = env.location(obj, t.states[-1])[0] == "held"
            places = places if held_at_end else places[:-1]
            question = f"Steps: {steps}.\nQ: where did the {obj} go, in order?\nA:"
            out.append(_example(question, f" {', '.join(places)}\n", "path"))
    return out


def tokenize_examples(
    examples: Sequence[dict[str, str]], tokenizer: Any, *, max_length: int = 256
) -> dict[str, Any]:
    """A right-padded batch of ``examples``: ``input_ids``, ``attention_mask`` and ``labels``
    (int64 tensors (n, T), T the longest example up to ``max_length``; labels -100 on the prompt
    and the padding). ``tokenizer`` is a Hugging Face tokenizer or anything with
    ``encode(text)``; a too-long example is cut from the left of its prompt."""
    import torch

    if isinstance(examples, dict):
        examples = [examples]
    if not isinstance(examples, Sequence) or isinstance(examples, str):
        raise TypeError(f"examples must be a sequence of dicts, got {describe(examples)}")
    if not examples:
        raise ValueError("examples must not be empty")
    if isinstance(tokenizer, str | bytes) or not callable(getattr(tokenizer, "encode", None)):
        raise TypeError(f"tokenizer must have an encode(text) method, got {describe(tokenizer)}")
    max_length = check_int(max_length, "max_length", minimum=2)
    rows = []
    for i, ex in enumerate(examples):
        if not (
            isinstance(ex, dict)
            and isinstance(ex.get("prompt"), str)
            and isinstance(ex.get("target"), str)
        ):
            raise TypeError(
                f"examples[{i}] must be a dict with str 'prompt' and 'target', got {describe(ex)}"
            )
        full = list(tokenizer.encode(ex["prompt"] + ex["target"]))
        n_prompt = len(tokenizer.encode(ex["prompt"]))
        if n_prompt >= len(full):
            raise ValueError(f"examples[{i}] has an empty target")
        labels = [-100] * n_prompt + full[n_prompt:]
        if len(full) > max_length:
            cut = len(full) - max_length
            full, labels = full[cut:], labels[cut:]
        rows.append((full, labels))
    width = max(len(f) for f, _ in rows)
    pad = getattr(tokenizer, "pad_token_id", None)
    pad = 0 if pad is None else int(pad)
    ids = np.full((len(rows), width), pad, dtype=np.int64)
    labels = np.full((len(rows), width), -100, dtype=np.int64)
    mask = np.zeros((len(rows), width), dtype=np.int64)
    for r, (f, lab) in enumerate(rows):
        ids[r, : len(f)] = f
        labels[r, : len(lab)] = lab
        mask[r, : len(f)] = 1
    return {
        "input_ids": torch.from_numpy(ids),
        "attention_mask": torch.from_numpy(mask),
        "labels": torch.from_numpy(labels),
    }
