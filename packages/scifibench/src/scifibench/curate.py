"""The SciFIBench curation pipeline: joint embeddings, mined (kNN) or random negatives,
difficulty, question construction, caption de-duplication and figure-number stripping."""

from __future__ import annotations

import re
from typing import Any, NamedTuple

import numpy as np

from ._checks import (
    check_array,
    check_float,
    check_int,
    check_option,
    check_rng,
    check_same_length,
    describe,
)
from ._question import LETTERS, TASKS, Question
from ._validation import check_sequence, check_strings

__all__ = [
    "FIG2CAP_QUESTION",
    "CAP2FIG_QUESTION",
    "dedupe_captions",
    "difficulty",
    "joint_embedding",
    "knn_negatives",
    "make_questions",
    "random_negatives",
    "strip_figure_number",
    "Tiers",
    "tiered_split",
]

FIG2CAP_QUESTION = "Which of the captions best describes the image?"
CAP2FIG_QUESTION = "Which of the images best matches the caption?"


def _normalise_rows(a: np.ndarray, name: str) -> np.ndarray:
    norms = np.linalg.norm(a, axis=1, keepdims=True)
    zero = np.flatnonzero(norms[:, 0] == 0)
    if zero.size:
        raise ValueError(f"{name} row {int(zero[0])} has zero norm and cannot be normalised")
    return a / norms


def joint_embedding(img, txt):
    """The paper's joint vector: L2-normalise image and text embeddings separately, concatenate.

    ``img`` is ``(n, d_i)``, ``txt`` is ``(n, d_t)``; returns ``(n, d_i + d_t)`` rows of norm
    ``sqrt(2)``. For such rows ``||x_a - x_b||^2 = 4 - 2 (cos_img(a, b) + cos_txt(a, b))``, so
    Euclidean neighbours are the pairs with the largest summed image and text cosines.
    """
    img = check_array(img, "img", ndim=2)
    txt = check_array(txt, "txt", ndim=2)
    check_same_length(img=img, txt=txt)
    return np.hstack([_normalise_rows(img, "img"), _normalise_rows(txt, "txt")])


def _block_rows(n: int) -> int:
    # keep the (block, n) distance block small (~64 MB of float64)
    return max(1, min(n, 8_000_000 // max(n, 1)))


def knn_negatives(X, *, k=4, min_dist=0.0):
    """The ``k`` nearest neighbours of every row of ``X`` by Euclidean distance (the mined
    negatives), self excluded and no neighbour closer than ``min_dist`` (the paper's similarity
    filter against near-duplicates; distance exactly ``min_dist`` is kept).

    Returns an ``(n, k)`` int64 array, each row ordered by increasing distance (ties: lower
    index first). Distances come from the Gram expansion; a row with a near-tie (closer than the
    expansion's error bound) or a neighbour near ``min_dist`` is re-measured exactly as
    ``||x_i - x_j||``, so the result equals a brute-force search. Raises
    ``ValueError`` (naming ``min_dist``, or ``k``) when a row has fewer than ``k`` admissible
    neighbours.
    """
    X = check_array(X, "X", ndim=2)
    n = X.shape[0]
    k = check_int(k, "k", minimum=1)
    if k > n - 1:
        raise ValueError(f"k must be <= n - 1 = {n - 1} (X has {n} rows), got {k}")
    min_dist = check_float(min_dist, "min_dist", minimum=0.0)
    sq = np.einsum("ij,ij->i", X, X)
    # bound on the Gram expansion's error in a squared distance (relative to the largest squared
    # norm; the true error is ~1e-13 of it); exact ties (tol = 0 for all-zero X) are caught too
    tol = 1e-9 * float(sq.max())
    lo2 = min_dist * min_dist
    out = np.empty((n, k), dtype=np.int64)
    block = _block_rows(n)
    m = min(k + 1, n)  # the k best and the runner-up (self, at inf, when k = n - 1)
    for i0 in range(0, n, block):
        i1 = min(n, i0 + block)
        rows = np.arange(i0, i1)
        d2 = sq[i0:i1, None] + sq[None, :] - 2.0 * (X[i0:i1] @ X.T)
        d2[rows - i0, rows] = np.inf
        d2[d2 < lo2 - tol] = np.inf  # surely closer than min_dist
        cand = np.argpartition(d2, m - 1, axis=1)[:, :m]
        vals = np.take_along_axis(d2, cand, axis=1)
        order = np.argsort(vals, axis=1)
        cand = np.take_along_axis(cand, order, axis=1)
        vals = np.take_along_axis(vals, order, axis=1)
        # a row is decided by the screen unless two of its best k + 1 are within tol of each
        # other (a near-tie), one is within tol of min_dist, or fewer than k are admissible
        with np.errstate(invalid="ignore"):
            near_tie = (np.diff(vals, axis=1) <= tol).any(axis=1)
        near_min = (np.abs(vals - lo2) <= tol).any(axis=1) if min_dist > 0 else False
        short = ~np.isfinite(vals[:, k - 1])
        out[i0:i1] = cand[:, :k]
        for r in np.flatnonzero(near_tie | near_min | short):
            i = i0 + int(r)
            full = np.sqrt(((X - X[i]) ** 2).sum(axis=1))  # exact, ties to the lower index
            full[i] = np.inf
            full[full < min_dist] = np.inf
            idx = np.argsort(full, kind="stable")[:k]
            if not np.isfinite(full[idx[-1]]):
                n_ok = int(np.isfinite(full).sum())
                raise ValueError(
                    f"min_dist={min_dist} leaves row {i} with {n_ok} admissible neighbours, "
                    f"fewer than k={k}"
                )
            out[i] = idx
    return out


def random_negatives(n, *, k=4, rng=None):
    """``k`` distinct random negatives per item (the paper's random-negatives ablation):
    an ``(n, k)`` int64 array, row ``i`` drawn uniformly without replacement from the other
    ``n - 1`` items."""
    n = check_int(n, "n", minimum=2)
    k = check_int(k, "k", minimum=1)
    if k > n - 1:
        raise ValueError(f"k must be <= n - 1 = {n - 1}, got {k}")
    gen = check_rng(rng)
    if k > (n - 1) // 2:  # dense: a permutation per row
        out = np.empty((n, k), dtype=np.int64)
        for i in range(n):
            others = np.delete(np.arange(n), i)
            out[i] = gen.choice(others, size=k, replace=False)
        return out
    out = gen.integers(0, n - 1, size=(n, k))
    todo = np.arange(n)
    while True:
        sub = np.sort(out[todo], axis=1)
        dup = (sub[:, 1:] == sub[:, :-1]).any(axis=1) if k > 1 else np.zeros(len(todo), bool)
        todo = todo[dup]
        if not todo.size:
            break
        out[todo] = gen.integers(0, n - 1, size=(todo.size, k))
    out += out >= np.arange(n)[:, None]  # skip self: 0..n-2 -> the others
    return out


def _check_neg(neg: Any, n: int, name: str = "neg") -> np.ndarray:
    neg = check_array(neg, name, ndim=2, dtype="numeric")
    if neg.dtype.kind == "f":
        if not np.all(neg == np.round(neg)):
            raise TypeError(f"{name} must hold integer indices, got non-integral {describe(neg)}")
        neg = neg.astype(np.int64)
    if neg.shape[0] != n:
        raise ValueError(f"{name} has {neg.shape[0]} rows but there are {n} items; they must match")
    if neg.min() < 0 or neg.max() >= n:
        raise ValueError(
            f"{name} must hold indices in [0, {n}), got values in [{neg.min()}, {neg.max()}]"
        )
    return neg


def difficulty(X, neg):
    """Mean L2 distance from each item's joint vector to its negatives' (smaller = harder):
    ``difficulty(X, neg)[i] = mean_j ||X[neg[i, j]] - X[i]||``."""
    X = check_array(X, "X", ndim=2)
    neg = _check_neg(neg, X.shape[0])
    return np.sqrt(((X[neg] - X[:, None, :]) ** 2).sum(axis=-1)).mean(axis=1)


def make_questions(captions, figures, neg, *, task, rng=None):
    """Build one shuffled multiple-choice question per item.

    Item ``i``'s options are item ``i`` and its negatives ``neg[i]`` in a random order;
    ``option_ids[k]`` is the item shown as option ``k`` and ``answer`` the letter of item ``i``.

    - ``task="fig2cap"``: ``images = (figures[i],)``, ``options`` the captions of the option
      items, ``caption = None``.
    - ``task="cap2fig"``: ``images`` the figures of the option items, ``caption = captions[i]``,
      ``options`` the letters ``("A", "B", ...)``.

    ``captions`` are strings, ``figures`` opaque objects (arrays, ids, paths), both of length
    ``n``; ``neg`` is ``(n, k)`` (``k + 1 <= 26``), without self and without repeats per row.
    ``qid = i``; ``category`` is ``""`` (use ``dataclasses.replace`` to set it).
    """
    captions = check_strings(captions, "captions")
    figures = check_sequence(figures, "figures")
    check_same_length(captions=captions, figures=figures)
    n = len(captions)
    neg = _check_neg(neg, n)
    task = check_option(task, "task", TASKS)
    gen = check_rng(rng)
    k = neg.shape[1]
    if k + 1 > 26:
        raise ValueError(f"neg must have at most 25 columns (26 options), got {k}")
    items = np.hstack([np.arange(n)[:, None], neg])
    srt = np.sort(items, axis=1)
    bad = np.flatnonzero((srt[:, 1:] == srt[:, :-1]).any(axis=1))
    if bad.size:
        i = int(bad[0])
        raise ValueError(
            f"neg row {i} repeats an item or contains the item itself: {neg[i].tolist()}"
        )
    out = []
    labels = tuple(LETTERS[: k + 1])
    for i in range(n):
        ids = items[i, gen.permutation(k + 1)]
        answer = LETTERS[int(np.flatnonzero(ids == i)[0])]
        option_ids = tuple(int(j) for j in ids)
        if task == "fig2cap":
            q = Question(
                i,
                task,
                FIG2CAP_QUESTION,
                tuple(captions[j] for j in option_ids),
                answer,
                (figures[i],),
                option_ids,
                None,
                "",
            )
        else:
            q = Question(
                i,
                task,
                CAP2FIG_QUESTION,
                labels,
                answer,
                tuple(figures[j] for j in option_ids),
                option_ids,
                captions[i],
                "",
            )
        out.append(q)
    return out


def dedupe_captions(captions):
    """Indices of the first occurrence of each distinct caption (the paper's step 1: drop
    duplicated captions and their figures), in input order."""
    captions = check_strings(captions, "captions", allow_empty=True)
    seen: set[str] = set()
    keep = []
    for i, c in enumerate(captions):
        if c not in seen:
            seen.add(c)
            keep.append(i)
    return np.asarray(keep, dtype=np.int64)


_FIG_NUMBER = re.compile(
    r"^\s*(?:fig(?:ure)?|fig\.)\s*\.?\s*\(?[0-9]+[a-z]?\)?\s*[:.\-\u2013\u2014]?\s*", re.IGNORECASE
)


def strip_figure_number(caption):
    """Remove a leading figure label (``"Figure 3:"``, ``"Fig. 2."``, ``"FIG 4 -"``), as SciCap's
    normalised captions have none."""
    from ._validation import check_str

    caption = check_str(caption, "caption")
    return _FIG_NUMBER.sub("", caption, count=1)


class Tiers(NamedTuple):
    """Item indices of the three SciFIBench tiers."""

    gold: np.ndarray
    silver: np.ndarray
    bronze: np.ndarray


def tiered_split(difficulty, gold_ids, *, silver_size=5000):
    """Split items into gold / silver / bronze as the paper does (Sec. 3.4).

    ``gold_ids`` are the human-verified items (kept in the given order); ``silver`` the next
    ``silver_size`` hardest of the rest (smallest ``difficulty`` first, ties: lower index);
    ``bronze`` everything else, hardest first. Returns :class:`Tiers` of int64 arrays.
    """
    diff = check_array(difficulty, "difficulty", ndim=1)
    n = diff.shape[0]
    gold = check_array(gold_ids, "gold_ids", ndim=1, dtype="int", allow_empty=True)
    if gold.size and (gold.min() < 0 or gold.max() >= n):
        raise ValueError(f"gold_ids must be indices in [0, {n}), got [{gold.min()}, {gold.max()}]")
    if np.unique(gold).size != gold.size:
        raise ValueError("gold_ids must not repeat an item")
    silver_size = check_int(silver_size, "silver_size", minimum=0)
    order = np.argsort(diff, kind="stable")
    rest = order[~np.isin(order, gold)]
    return Tiers(gold.astype(np.int64), rest[:silver_size], rest[silver_size:])
