"""Lexical overlap: the property SUGARCREPE++ was built for (P2 rewords P1, N reuses its words)."""

from __future__ import annotations

from ._validation import check_str
from .data import load_triplets

__all__ = ["PAIRS", "dataset_stats", "jaccard"]

#: The three caption pairs of a triplet, as (name, first field, second field).
PAIRS: tuple[tuple[str, str, str], ...] = (
    ("p1_neg", "p1", "neg"),
    ("p1_p2", "p1", "p2"),
    ("p2_neg", "p2", "neg"),
)


def _tokens(text: str, name: str) -> frozenset[str]:
    toks = frozenset(check_str(text, name).lower().split())
    return toks


def jaccard(a: str, b: str) -> float:
    """Jaccard similarity ``|A & B| / |A | B|`` of the sets of lower-cased whitespace tokens
    of ``a`` and ``b`` (punctuation stays attached, as in ``str.split``). Empty or
    whitespace-only strings are a ValueError.

    >>> jaccard("A cat on a mat", "the cat ON the mat.")  # {cat, on} of 6 distinct tokens
    0.3333333333333333
    """
    x = _tokens(a, "a")
    y = _tokens(b, "b")
    return len(x & y) / len(x | y)


def dataset_stats(categories=None, *, root=None) -> dict[str, dict[str, float]]:
    """Mean pairwise Jaccard per category: ``{category: {"p1_neg", "p1_p2", "p2_neg", "n"}}``
    over the shipped data (or ``root``, as in :func:`load_triplets`)."""
    out: dict[str, dict[str, float]] = {}
    by_cat: dict[str, list] = {}
    for t in load_triplets(categories, root=root):
        by_cat.setdefault(t.category, []).append(t)
    for cat, ts in by_cat.items():
        row = {
            name: sum(jaccard(getattr(t, f1), getattr(t, f2)) for t in ts) / len(ts)
            for name, f1, f2 in PAIRS
        }
        row["n"] = len(ts)
        out[cat] = row
    return out
