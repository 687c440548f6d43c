"""The evaluation harness: encoders in, per-sample similarities, flags and the table out."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import numpy as np

from ._checks import check_bool, check_callable, check_int, check_option, describe
from .data import Triplet, load_triplets
from .metrics import accuracy, cosine, itt_correct, tot_correct

__all__ = ["TASKS", "Report", "evaluate", "evaluate_triplets"]

#: The two tasks: text-only (TOT) and image-to-text (ITT, with its ITT-P1/ITT-P2 halves).
TASKS: tuple[str, ...] = ("tot", "itt")
_METRICS_OF = {"tot": ("tot",), "itt": ("itt", "itt_p1", "itt_p2")}
_SIMS_OF = {"tot": ("p1_p2", "p1_neg", "p2_neg"), "itt": ("img_p1", "img_p2", "img_neg")}


@dataclass(frozen=True)
class Report:
    """What :func:`evaluate` measured.

    - ``table[category][metric] = (correct, total, accuracy)``, metrics ``"tot"`` and/or
      ``"itt"``, ``"itt_p1"``, ``"itt_p2"`` (per category, as the paper reports; no average).
    - ``flags[category][metric]``: bool array, one flag per evaluated triplet, in id order.
    - ``ids[category]``: the ids of those triplets (int array, ascending).
    - ``similarities[category][name]``: float64 arrays in the same order; names ``p1_p2``,
      ``p1_neg``, ``p2_neg`` (TOT) and ``img_p1``, ``img_p2``, ``img_neg`` (ITT).
    - ``n_excluded`` / ``excluded``: how many and which ``(category, id)`` were dropped by
      ``exclude_degenerate`` (N string-identical to P1 or P2).
    """

    tasks: tuple[str, ...]
    table: dict[str, dict[str, tuple[int, int, float]]]
    flags: dict[str, dict[str, np.ndarray]]
    ids: dict[str, np.ndarray]
    similarities: dict[str, dict[str, np.ndarray]]
    n_excluded: int
    excluded: tuple[tuple[str, int], ...]

    @property
    def categories(self) -> tuple[str, ...]:
        return tuple(self.table)

    def to_dict(self) -> dict[str, Any]:
        """Plain Python types (lists, floats), e.g. for JSON."""
        return {
            "tasks": list(self.tasks),
            "table": {c: {m: list(v) for m, v in t.items()} for c, t in self.table.items()},
            "n_excluded": self.n_excluded,
            "excluded": [list(e) for e in self.excluded],
            "samples": self.to_records(),
        }

    def to_json(self, **kwargs: Any) -> str:
        """The report as JSON (``to_dict``); ``kwargs`` go to ``json.dumps``."""
        return json.dumps(self.to_dict(), **kwargs)

    def to_records(self) -> list[dict[str, Any]]:
        """One dict per evaluated triplet: category, id, similarities and flags
        (``pandas.DataFrame(report.to_records())`` makes a table of it)."""
        rows = []
        for c in self.table:
            names = list(self.similarities[c])
            metrics = list(self.flags[c])
            for i, tid in enumerate(self.ids[c].tolist()):
                row: dict[str, Any] = {"category": c, "id": tid}
                row.update({n: float(self.similarities[c][n][i]) for n in names})
                row.update({m: bool(self.flags[c][m][i]) for m in metrics})
                rows.append(row)
        return rows


def _check_tasks(tasks: Any) -> tuple[str, ...]:
    if isinstance(tasks, str):
        return (check_option(tasks, "tasks", TASKS),)
    if not isinstance(tasks, list | tuple):
        raise TypeError(f"tasks must be a tuple of task names {list(TASKS)}, got {describe(tasks)}")
    if not tasks:
        raise ValueError("tasks must name at least one task, got an empty sequence")
    for t in tasks:
        check_option(t, "tasks", TASKS)
    if len(set(tasks)) != len(tasks):
        raise ValueError(f"tasks must not repeat a task, got {list(tasks)}")
    return tuple(t for t in TASKS if t in tasks)


def _encoded(out: Any, n: int, what: str, name: str) -> np.ndarray:
    if hasattr(out, "detach"):  # a torch tensor from a user's encoder
        out = out.detach().float().cpu().numpy()
    try:
        arr = np.asarray(out, dtype=np.float64)
    except (TypeError, ValueError) as e:
        raise TypeError(f"{name}.{what} must return an (n, d) array of numbers ({e})") from None
    if arr.ndim != 2 or arr.shape[0] != n:
        raise ValueError(
            f"{name}.{what} returned shape {arr.shape} for {n} inputs; expected ({n}, d)"
        )
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name}.{what} returned NaN or infinite values")
    return arr


def _triplet_list(triplets: Any) -> list[Triplet]:
    if isinstance(triplets, str | bytes) or not isinstance(triplets, list | tuple):
        raise TypeError(f"triplets must be a list of Triplet, got {describe(triplets)}")
    if not triplets:
        raise ValueError("triplets must not be empty")
    seen = set()
    for i, t in enumerate(triplets):
        if not isinstance(t, Triplet):
            raise TypeError(f"triplets[{i}] must be a Triplet, got {describe(t)}")
        key = (t.category, t.id)
        if key in seen:
            raise ValueError(f"triplets[{i}] repeats category {t.category!r} id {t.id}")
        seen.add(key)
    return list(triplets)


def evaluate_triplets(
    triplets,
    text_encoder,
    *,
    image_encoder=None,
    image_source=None,
    tasks=("tot",),
    batch_size: int = 64,
    exclude_degenerate: bool = False,
) -> Report:
    """:func:`evaluate` on a list of :class:`Triplet` (any subset, e.g. a few ids, or data of
    your own). Categories come in the order of their first triplet; within one, id order."""
    triplets = _triplet_list(triplets)
    if not callable(getattr(text_encoder, "encode_text", None)):
        raise TypeError(
            f"text_encoder must have an encode_text method, got {describe(text_encoder)}"
        )
    tasks = _check_tasks(tasks)
    batch_size = check_int(batch_size, "batch_size", minimum=1)
    exclude_degenerate = check_bool(exclude_degenerate, "exclude_degenerate")
    if image_encoder is not None and not callable(getattr(image_encoder, "encode_image", None)):
        raise TypeError(
            f"image_encoder must have an encode_image method, got {describe(image_encoder)}"
        )
    if image_source is not None:
        check_callable(image_source, "image_source")
    if "itt" in tasks:
        if image_encoder is None:
            if not callable(getattr(text_encoder, "encode_image", None)):
                raise ValueError(
                    "image_encoder is needed for the 'itt' task (the text_encoder has no "
                    "encode_image method)"
                )
            image_encoder = text_encoder
        if image_source is None:
            raise ValueError("image_source (filename -> image) is needed for the 'itt' task")

    by_cat: dict[str, list[Triplet]] = {}
    for t in triplets:
        by_cat.setdefault(t.category, []).append(t)
    excluded: list[tuple[str, int]] = []
    table, flags, ids, sims = {}, {}, {}, {}
    for cat, items in by_cat.items():
        items = sorted(items, key=lambda t: t.id)
        if exclude_degenerate:
            excluded += [(cat, t.id) for t in items if t.is_degenerate]
            items = [t for t in items if not t.is_degenerate]
        names = [n for task in tasks for n in _SIMS_OF[task]]
        cols: dict[str, list[np.ndarray]] = {n: [] for n in names}
        for start in range(0, len(items), batch_size):
            chunk = items[start : start + batch_size]
            b = len(chunk)
            texts = [t.p1 for t in chunk] + [t.p2 for t in chunk] + [t.neg for t in chunk]
            emb = _encoded(text_encoder.encode_text(texts), 3 * b, "encode_text", "text_encoder")
            e1, e2, en = emb[:b], emb[b : 2 * b], emb[2 * b :]
            if "tot" in tasks:
                cols["p1_p2"].append(cosine(e1, e2))
                cols["p1_neg"].append(cosine(e1, en))
                cols["p2_neg"].append(cosine(e2, en))
            if "itt" in tasks:
                images = [image_source(t.image_file) for t in chunk]
                v = _encoded(image_encoder.encode_image(images), b, "encode_image", "image_encoder")
                if v.shape[1] != emb.shape[1]:
                    raise ValueError(
                        f"image_encoder features have dimension {v.shape[1]} but text_encoder "
                        f"features {emb.shape[1]}; ITT needs one joint space"
                    )
                cols["img_p1"].append(cosine(v, e1))
                cols["img_p2"].append(cosine(v, e2))
                cols["img_neg"].append(cosine(v, en))
        s = {n: (np.concatenate(c) if c else np.zeros(0)) for n, c in cols.items()}
        f: dict[str, np.ndarray] = {}
        if "tot" in tasks:
            f["tot"] = tot_correct(s["p1_p2"], s["p1_neg"], s["p2_neg"])
        if "itt" in tasks:
            f.update(itt_correct(s["img_p1"], s["img_p2"], s["img_neg"]))
        table[cat] = {m: accuracy(v) for m, v in f.items()}
        flags[cat] = f
        ids[cat] = np.array([t.id for t in items], dtype=np.int64)
        sims[cat] = s
    return Report(
        tasks=tasks,
        table=table,
        flags=flags,
        ids=ids,
        similarities=sims,
        n_excluded=len(excluded),
        excluded=tuple(excluded),
    )


def evaluate(
    text_encoder,
    *,
    image_encoder=None,
    image_source=None,
    categories=None,
    tasks=("tot",),
    batch_size: int = 64,
    exclude_degenerate: bool = False,
) -> Report:
    """Score an encoder on the shipped SUGARCREPE++ triplets.

    Parameters
    ----------
    text_encoder
        Any object with ``encode_text(list[str]) -> (n, d)`` (a VLM's text tower for ITT).
    image_encoder
        Any object with ``encode_image(list[image]) -> (n, d)`` in the text encoder's space;
        needed for ``"itt"`` (None: the text encoder, if it has ``encode_image``).
    image_source
        ``filename -> image`` (e.g. :class:`ImageFolder` over COCO val2017); needed for ``"itt"``.
    categories
        None (all five), a category name or a list of them (see ``CATEGORIES``).
    tasks
        ``("tot",)``, ``("itt",)`` or both.
    batch_size
        Triplets per encoder call: each call gets the batch's P1s, then P2s, then Ns
        (``batch_size=1`` is the authors' one-triplet-at-a-time protocol).
    exclude_degenerate
        Drop triplets whose N equals P1 or P2 (swap_obj ids 2 and 8); ``n_excluded`` says how many.

    Similarities are cosines (``torch.nn.CosineSimilarity(eps=1e-6)`` semantics) and every
    comparison is strict, so ties count as wrong.

    >>> from sugarcrepe_pp import BagOfWordsEncoder
    >>> r = evaluate(BagOfWordsEncoder(), categories="swap_obj")
    >>> r.table["swap_obj"]["tot"][:2]
    (12, 245)
    """
    triplets = load_triplets(categories)
    return evaluate_triplets(
        triplets,
        text_encoder,
        image_encoder=image_encoder,
        image_source=image_source,
        tasks=tasks,
        batch_size=batch_size,
        exclude_degenerate=exclude_degenerate,
    )
