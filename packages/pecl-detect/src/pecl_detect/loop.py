"""Exploring an image's candidates with a policy (every candidate is visited)."""

from __future__ import annotations

import numpy as np

from ._checks import check_array, check_callable

__all__ = ["explore_image"]


def _action(policy, state: np.ndarray) -> int:
    act = getattr(policy, "act", None)
    out = act(state) if callable(act) else policy(state)
    if isinstance(out, bool | np.bool_):
        out = int(out)
    if not isinstance(out, int | np.integer) or int(out) not in (0, 1):
        raise ValueError(f"policy must return an action 0 or 1, got {out!r}")
    return int(out)


def explore_image(cand, annot, policy) -> np.ndarray:
    """Visit every candidate of one image in order and return the indices ``policy`` selects.

    ``cand``: ``(n, d)`` clues of the candidates (the release: detector confidence,
    re-scored probability, prototype similarity, conformal clue); ``annot``: ``(m, d)`` clues of
    the annotated boxes (``m`` may be 0). The state of candidate ``i`` is
    ``cand[i] || mean(annot rows + cand rows selected so far)``, or ``cand[i] || 0`` when that
    set is empty. ``policy`` is an object with ``act(state) -> 0 | 1`` (e.g. a
    :class:`~pecl_detect.DDPGExplorer`) or a callable ``policy(state) -> 0 | 1``.

    Unlike the release loop (``range(len(state_x) - 1)``) the last candidate is visited too.
    """
    cand = check_array(cand, "cand", ndim=2, allow_empty=True)
    annot = check_array(annot, "annot", ndim=2, allow_empty=True)
    if annot.size and cand.size and annot.shape[1] != cand.shape[1]:
        raise ValueError(
            f"annot must have {cand.shape[1]} columns like cand, got shape {annot.shape}"
        )
    if not callable(getattr(policy, "act", None)):
        check_callable(policy, "policy")
    d = cand.shape[1] if cand.ndim == 2 and cand.shape[1] else annot.shape[1]
    total = annot.sum(axis=0) if annot.shape[0] else np.zeros(d)
    count = annot.shape[0]
    selected: list[int] = []
    for i in range(cand.shape[0]):
        ctx = total / count if count else np.zeros(d)
        state = np.concatenate([cand[i], ctx])
        if _action(policy, state) == 1:
            selected.append(i)
            total = total + cand[i]
            count += 1
    return np.asarray(selected, dtype=np.int64)


def explore_and_learn(cand, annot, explorer, reward) -> np.ndarray:
    """One training episode of the release runner on one image.

    As :func:`explore_image`, but each step samples ``explorer.act(state)``, asks
    ``reward(i, action, selected)`` (``selected``: the indices chosen before ``i``) for the
    reward, stores ``(state, action, reward, next_state)`` and calls ``explorer.update()``.
    ``next_state`` is the next candidate's state (the new context included); after the last
    candidate it is zeros || the final context. Returns the selected indices.
    """
    cand = check_array(cand, "cand", ndim=2)
    annot = check_array(annot, "annot", ndim=2, allow_empty=True)
    if annot.size and annot.shape[1] != cand.shape[1]:
        raise ValueError(
            f"annot must have {cand.shape[1]} columns like cand, got shape {annot.shape}"
        )
    for name in ("act", "store", "update"):
        if not callable(getattr(explorer, name, None)):
            raise TypeError(f"explorer must have an {name}() method, got {type(explorer).__name__}")
    check_callable(reward, "reward")
    d = cand.shape[1]
    total = annot.sum(axis=0) if annot.shape[0] else np.zeros(d)
    count = annot.shape[0]
    selected: list[int] = []
    state = np.concatenate([cand[0], total / count if count else np.zeros(d)])
    for i in range(cand.shape[0]):
        a = _action(explorer, state)
        r = float(reward(i, a, list(selected)))
        if a == 1:
            selected.append(i)
            total = total + cand[i]
            count += 1
        ctx = total / count if count else np.zeros(d)
        nxt = cand[i + 1] if i + 1 < cand.shape[0] else np.zeros(d)
        next_state = np.concatenate([nxt, ctx])
        explorer.store(state, a, r, next_state)
        explorer.update()
        state = next_state
    return np.asarray(selected, dtype=np.int64)
