"""Exploring an image's candidates with a policy (every candidate is visited)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np

from ._checks import check_array, check_callable, check_float, check_int, check_rng

__all__ = [
    "Candidates",
    "DetectorBackend",
    "LoopResult",
    "ProgressiveLoop",
    "RoundRecord",
    "ToyDetector",
    "explore_and_learn",
    "explore_image",
]


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


# --------------------------------------------------------------------------------------------
# the progressive closed loop: detector backend protocol, toy detector, loop


@dataclass(frozen=True)
class Candidates:
    """A detector's candidates on one image: ``boxes`` ``(n, 5)``, ``scores`` ``(n,)``,
    ``labels`` ``(n,)`` in ``1..K``, ``probs`` ``(n, K + 1)`` class probabilities (index 0 =
    background) and ``feats`` ``(n, d)`` RoI features."""

    boxes: np.ndarray
    scores: np.ndarray
    labels: np.ndarray
    probs: np.ndarray
    feats: np.ndarray

    def __len__(self) -> int:
        return int(self.scores.size)


@runtime_checkable
class DetectorBackend(Protocol):
    """What :class:`ProgressiveLoop` needs from a detector.

    ``fit(images, boxes)``: train on the images with, per image, a dict ``{"boxes": (m, 5),
    "labels": (m,)}`` (classes ``1..K``; everything else is background).
    ``predict(images) -> list[Candidates]``. Optional ``classify(feats) -> (n, K + 1)``
    probabilities of arbitrary features (used for the prototypes' calibration probabilities,
    as the release feeds its prototypes to the classification head).
    """

    def fit(self, images, boxes) -> None: ...

    def predict(self, images) -> list: ...


def _image_field(img, key, i):
    if not isinstance(img, dict) or key not in img:
        raise ValueError(f"images[{i}] must be a dict with {key!r}, got {type(img).__name__}")
    return img[key]


def _check_annotations(boxes, n_images, name="boxes"):
    if not isinstance(boxes, list | tuple):
        raise TypeError(
            f"{name} must be a list with one dict per image, got {type(boxes).__name__}"
        )
    if len(boxes) != n_images:
        raise ValueError(f"{name} has {len(boxes)} entries but there are {n_images} images")
    out = []
    for i, a in enumerate(boxes):
        if not isinstance(a, dict) or "boxes" not in a or "labels" not in a:
            raise ValueError(f"{name}[{i}] must be a dict with 'boxes' and 'labels'")
        b = check_array(a["boxes"], f"{name}[{i}].boxes", ndim=2, allow_empty=True).reshape(-1, 5)
        lab = check_array(a["labels"], f"{name}[{i}].labels", ndim=1, dtype="int", allow_empty=True)
        if lab.size != b.shape[0]:
            raise ValueError(f"{name}[{i}].labels has {lab.size} entries but {b.shape[0]} boxes")
        out.append((b, lab))
    return out


class ToyDetector:
    """A detector for tests and miniatures: multinomial logistic regression over the fixed
    region proposals of each image.

    An image is a dict ``{"boxes": (n, 5) proposals, "feats": (n, d) features}``. ``fit``
    labels each proposal with the class of the annotation it overlaps best (IoU ``>=
    match_iou``), else background (the SAOD failure: unannotated objects train as
    background), standardises the features and minimises a weighted cross-entropy plus
    ``l2 * |W|^2 / 2`` (bias not penalised) by gradient descent. As the R-CNN RoI sampler's
    positive fraction, foreground rows carry ``pos_fraction`` of the total weight when they
    are rarer than that (else every row weighs ``1/n``). ``predict`` returns, per image,
    the proposals whose best foreground probability is ``>= min_score``, labelled by that class.
    """

    def __init__(self, n_classes, *, l2=1e-2, n_iter=500, min_score=0.05, match_iou=0.5,
                 pos_fraction=0.25):  # fmt: skip
        self.n_classes = check_int(n_classes, "n_classes", minimum=1)
        self.pos_fraction = check_float(pos_fraction, "pos_fraction", minimum=0.0, maximum=1.0,
                                        min_inclusive=False, max_inclusive=False)  # fmt: skip
        self.l2 = check_float(l2, "l2", minimum=0.0, min_inclusive=False)
        self.n_iter = check_int(n_iter, "n_iter", minimum=1)
        self.min_score = check_float(min_score, "min_score", minimum=0.0, maximum=1.0)
        self.match_iou = check_float(match_iou, "match_iou", minimum=0.0, maximum=1.0)
        self.weights = None

    def _images(self, images):
        if not isinstance(images, list | tuple) or not images:
            raise TypeError(
                f"images must be a non-empty list of dicts, got {type(images).__name__}"
            )
        out, d = [], None
        for i, img in enumerate(images):
            b = check_array(_image_field(img, "boxes", i), f"images[{i}].boxes", ndim=2,
                            allow_empty=True).reshape(-1, 5)  # fmt: skip
            f = check_array(_image_field(img, "feats", i), f"images[{i}].feats", ndim=2,
                            allow_empty=True)  # fmt: skip
            f = f.reshape(b.shape[0], -1) if f.size == 0 else f
            if f.shape[0] != b.shape[0]:
                raise ValueError(f"images[{i}].feats has {f.shape[0]} rows but {b.shape[0]} boxes")
            if d is not None and f.size and f.shape[1] != d:
                raise ValueError(f"images[{i}].feats has {f.shape[1]} columns, expected {d}")
            d = f.shape[1] if f.size else d
            out.append((b, f))
        return out

    def _design(self, f):
        return np.column_stack([(f - self.mean_) / self.scale_, np.ones(f.shape[0])])

    def fit(self, images, boxes) -> ToyDetector:
        from .geometry import obb_iou

        imgs = self._images(images)
        ann = _check_annotations(boxes, len(imgs))
        X, y = [], []
        for (b, f), (ab, al) in zip(imgs, ann, strict=True):
            lab = np.zeros(b.shape[0], dtype=np.int64)
            if ab.shape[0] and b.shape[0]:
                if al.min() < 1 or al.max() > self.n_classes:
                    raise ValueError(f"boxes labels must lie in [1, {self.n_classes}], got {al}")
                iou = np.asarray(obb_iou(b, ab)).reshape(b.shape[0], ab.shape[0])
                best = np.argmax(iou, axis=1)
                hit = iou[np.arange(b.shape[0]), best] >= self.match_iou
                lab[hit] = al[best[hit]]
            X.append(f)
            y.append(lab)
        F, y = np.vstack(X), np.concatenate(y)
        if F.shape[0] == 0:
            raise ValueError("images must hold at least one proposal")
        self.mean_ = F.mean(axis=0)
        self.scale_ = np.where(F.std(axis=0) > 0, F.std(axis=0), 1.0)
        A = self._design(F)
        n, C = A.shape[0], self.n_classes + 1
        Y = np.zeros((n, C))
        Y[np.arange(n), y] = 1.0
        fg = y > 0
        wts = np.full(n, 1.0 / n)
        if 0 < fg.sum() < self.pos_fraction * n:
            wts[fg] = self.pos_fraction / fg.sum()
            wts[~fg] = (1 - self.pos_fraction) / (~fg).sum()
        W = np.zeros((A.shape[1], C))
        mask = np.ones_like(W)
        mask[-1] = 0.0  # bias not penalised
        step = 1.0 / (0.5 * np.linalg.eigvalsh(A.T @ (A * wts[:, None])).max() + self.l2)
        for _ in range(self.n_iter):
            W = W - step * self._grad(A, Y, W, mask, wts)
        self.weights = W
        self.sample_weights_ = wts
        return self

    def _grad(self, A, Y, W, mask, wts):
        return A.T @ ((_softmax(A @ W) - Y) * wts[:, None]) + self.l2 * W * mask

    def classify(self, feats) -> np.ndarray:
        """``(n, K + 1)`` class probabilities of features (index 0 = background)."""
        if self.weights is None:
            raise RuntimeError("ToyDetector.classify before fit")
        f = check_array(feats, "feats", ndim=2, allow_empty=True)
        return _softmax(self._design(f.reshape(-1, self.mean_.size)) @ self.weights)

    def predict(self, images) -> list[Candidates]:
        if self.weights is None:
            raise RuntimeError("ToyDetector.predict before fit")
        out = []
        for b, f in self._images(images):
            p = self.classify(f) if f.size else np.zeros((0, self.n_classes + 1))
            lab = np.argmax(p[:, 1:], axis=1) + 1 if p.size else np.zeros(0, np.int64)
            score = p[np.arange(p.shape[0]), lab] if p.size else np.zeros(0)
            k = score >= self.min_score
            out.append(Candidates(b[k], score[k], lab[k].astype(np.int64), p[k], f[k]))
        return out


def _softmax(z):
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


@dataclass(frozen=True)
class RoundRecord:
    """One round of :class:`ProgressiveLoop`: ``round`` (0 = annotations only),
    ``n_pseudo`` pseudo-labels the detector was trained with, ``mean_ap`` / ``per_class_ap``
    on the evaluation set (NaN / empty without one)."""

    round: int
    n_pseudo: int
    mean_ap: float
    per_class_ap: dict


@dataclass(frozen=True)
class LoopResult:
    """``history``: one :class:`RoundRecord` per round; ``pseudo_labels``: the last round's
    pseudo-labels, per image ``{"boxes", "labels", "scores"}``."""

    history: tuple
    pseudo_labels: list


class ProgressiveLoop:
    """PECL's progressive closed loop: explore and select pseudo-labels with the current
    detector, retrain the detector on annotations plus pseudo-labels, regenerate candidates.

    ``detector``: a :class:`DetectorBackend`; ``explorer``: a :class:`~pecl_detect.DDPGExplorer`
    (trained ``train_epochs`` passes per round on the multi-clue reward, then used greedily) or
    any policy ``policy(state) -> 0 | 1`` / object with ``act`` (used as is; e.g.
    ``lambda s: int(s[0] >= 0.5)`` is the fixed global confidence threshold). Per candidate the
    state holds the four clues (detector confidence, the class probability, prototype
    similarity, conformal clue) and the mean clues of the annotated boxes (``1, 1, sim,
    conformal``) plus the pseudo-labels selected so far. Candidates overlapping an annotated
    box of their class with IoU ``> iou_discard`` are discarded first. Prototypes: a
    :class:`~pecl_detect.PrototypeBank` per round, started from the annotated instances'
    features (the candidates that match them) and updated with ``proto_momentum``; their
    calibration probabilities come from ``detector.classify`` when the backend has it, else
    from the annotated instances' probabilities.
    """

    def __init__(self, detector, explorer, *, rounds=3, iou_discard=0.7, margin=0.35, k=10,
                 proto_momentum=0.5, train_epochs=1, rng=None):  # fmt: skip
        for name in ("fit", "predict"):
            if not callable(getattr(detector, name, None)):
                raise TypeError(
                    f"detector must have a {name}() method (DetectorBackend), "
                    f"got {type(detector).__name__}"
                )
        if not callable(getattr(explorer, "act", None)):
            check_callable(explorer, "explorer")
        self.detector = detector
        self.explorer = explorer
        self.rounds = check_int(rounds, "rounds", minimum=0)
        self.iou_discard = check_float(iou_discard, "iou_discard", minimum=0.0, maximum=1.0)
        self.margin = check_float(margin, "margin")
        self.k = check_int(k, "k", minimum=1)
        self.proto_momentum = check_float(proto_momentum, "proto_momentum", minimum=0.0,
                                          maximum=1.0)  # fmt: skip
        self.train_epochs = check_int(train_epochs, "train_epochs", minimum=0)
        self.rng = check_rng(rng)

    def _evaluate(self, eval_set):
        from .metrics import dota_map

        if eval_set is None:
            return float("nan"), {}
        images, truth = eval_set
        res = dota_map(self.detector.predict(images), list(truth))
        return res.mean_ap, dict(res.per_class)

    def run(self, train_set, *, eval_set=None) -> LoopResult:
        """``train_set``: ``(images, annotations)`` (annotations: per image ``{"boxes",
        "labels"}``); ``eval_set``: optional ``(images, truth)`` for the held-out mAP
        (:func:`~pecl_detect.dota_map`) after every round."""
        for v, name in ((train_set, "train_set"), (eval_set, "eval_set")):
            if v is None and name == "eval_set":
                continue
            if not isinstance(v, list | tuple) or len(v) != 2:
                raise TypeError(
                    f"{name} must be a pair (images, annotations), got {type(v).__name__}"
                )
        images, annotations = train_set
        if not isinstance(images, list | tuple):
            raise TypeError(
                f"train_set images must be a list of images, got {type(images).__name__}"
            )
        if not images:
            raise ValueError("train_set images must be a non-empty list, got an empty one")
        ann = _check_annotations(list(annotations), len(images), "train_set annotations")
        self.detector.fit(images, list(annotations))
        m, per = self._evaluate(eval_set)
        history = [RoundRecord(0, 0, m, per)]
        pseudo = [dict(boxes=np.zeros((0, 5)), labels=np.zeros(0, np.int64), scores=np.zeros(0))
                  for _ in images]  # fmt: skip
        for r in range(1, self.rounds + 1):
            pseudo = self._select(images, ann)
            merged = [
                dict(
                    boxes=np.vstack([a[0], p["boxes"]]), labels=np.concatenate([a[1], p["labels"]])
                )
                for a, p in zip(ann, pseudo, strict=True)
            ]
            self.detector.fit(images, merged)
            m, per = self._evaluate(eval_set)
            history.append(RoundRecord(r, int(sum(p["labels"].size for p in pseudo)), m, per))
        return LoopResult(tuple(history), pseudo)

    def _select(self, images, ann):
        from .clues import conformal_clue, multi_clue_reward
        from .geometry import obb_iou
        from .prototypes import PrototypeBank

        cands = self.detector.predict(images)
        # the annotated instances, seen through their best-matching candidate of their class
        items = []
        for cand, (ab, al) in zip(cands, ann, strict=True):
            n = len(cand)
            iou = (np.asarray(obb_iou(cand.boxes, ab)).reshape(n, ab.shape[0])
                   if n and ab.shape[0] else np.zeros((n, ab.shape[0])))  # fmt: skip
            same = cand.labels[:, None] == al[None, :]
            drop = np.any((iou > self.iou_discard) & same, axis=1)
            match = np.full(ab.shape[0], -1)
            for j in range(ab.shape[0]):
                col = np.where(cand.labels == al[j], iou[:, j], -1.0) if n else np.zeros(0)
                if col.size and col.max() > self.iou_discard:
                    match[j] = int(np.argmax(col))
            items.append((cand, al, match, ~drop))
        K = self._n_classes(cands)
        d = next((c.feats.shape[1] for c in cands if len(c)), 1)
        ann_f = [c.feats[m[m >= 0]] for c, _, m, _ in items]
        ann_l = [al[m >= 0] for _, al, m, _ in items]
        ann_p = [c.probs[m[m >= 0]] for c, _, m, _ in items]
        F = np.vstack(ann_f) if ann_f else np.zeros((0, d))
        L = np.concatenate(ann_l) if ann_l else np.zeros(0, np.int64)
        P = np.vstack(ann_p) if ann_p else np.zeros((0, K + 1))
        init = self.rng.normal(size=(K, self.k, d))
        for c in range(1, K + 1):
            fc = F[L == c]
            if fc.shape[0]:
                init[c - 1] = fc[self.rng.integers(0, fc.shape[0], self.k)]
        bank = PrototypeBank(K, d, k=self.k, momentum=self.proto_momentum, init=init)
        if L.size:
            bank.update(F, L - 1)
        classify = getattr(self.detector, "classify", None)
        if callable(classify):
            proto_p = [np.asarray(classify(bank.prototypes[c])) for c in range(K)]
        else:
            proto_p = [P[L == c + 1] if np.any(L == c + 1) else np.full((1, K + 1), 1 / (K + 1))
                       for c in range(K)]  # fmt: skip
        episodes = []
        for cand, al, match, keep in items:
            idx = np.flatnonzero(keep)
            lab = cand.labels[idx]
            pc = cand.probs[idx, lab] if idx.size else np.zeros(0)
            sim = bank.similarity(cand.feats[idx], lab - 1) if idx.size else np.zeros(0)
            cp = np.array([conformal_clue(pc[t], proto_p[lab[t] - 1][:, lab[t]], margin=self.margin)
                           for t in range(idx.size)])  # fmt: skip
            clues = (
                np.column_stack([cand.scores[idx], pc, sim, cp]) if idx.size else np.zeros((0, 4))
            )
            ma = match[match >= 0]
            a_lab = al[match >= 0]
            a_pc = cand.probs[ma, a_lab] if ma.size else np.zeros(0)
            a_sim = bank.similarity(cand.feats[ma], a_lab - 1) if ma.size else np.zeros(0)
            a_cp = np.array([conformal_clue(a_pc[t], proto_p[a_lab[t] - 1][:, a_lab[t]],
                                            margin=self.margin) for t in range(ma.size)])  # fmt: skip
            a_clues = (np.column_stack([np.ones(ma.size), np.ones(ma.size), a_sim, a_cp])
                       if ma.size else np.zeros((0, 4)))  # fmt: skip
            episodes.append((cand, idx, clues, a_clues, cand.probs[ma], a_lab))

        def reward_for(cand, idx, a_probs, a_lab):
            def reward(i, action, selected):
                c = int(cand.labels[idx[i]])
                sel = [idx[j] for j in selected if cand.labels[idx[j]] == c]
                group = np.vstack([proto_p[c - 1], a_probs[a_lab == c], cand.probs[sel]])
                return float(multi_clue_reward(cand.probs[idx[i]], c, group,
                                               float(cand.scores[idx[i]]), action))  # fmt: skip

            return reward

        ex = self.explorer
        trainable = all(callable(getattr(ex, n, None)) for n in ("act", "store", "update"))
        if trainable:
            for _ in range(self.train_epochs):
                for e in self.rng.permutation(len(episodes)):
                    cand, idx, clues, a_clues, a_probs, a_lab = episodes[e]
                    if idx.size:
                        explore_and_learn(clues, a_clues, ex, reward_for(cand, idx, a_probs, a_lab))
            policy = _Greedy(ex)
        else:
            policy = ex
        out = []
        for cand, idx, clues, a_clues, _, _ in episodes:
            sel = idx[explore_image(clues, a_clues, policy)] if idx.size else np.zeros(0, np.int64)
            out.append(dict(boxes=cand.boxes[sel].reshape(-1, 5), labels=cand.labels[sel],
                            scores=cand.scores[sel]))  # fmt: skip
        return out

    def _n_classes(self, cands) -> int:
        K = getattr(self.detector, "n_classes", None)
        if isinstance(K, int) and K >= 1:
            return K
        for c in cands:
            if len(c):
                return c.probs.shape[1] - 1
        raise ValueError("detector must expose n_classes or predict at least one candidate")


class _Greedy:
    def __init__(self, ex):
        self.ex = ex

    def act(self, s):
        try:
            return self.ex.act(s, greedy=True)
        except TypeError:
            return self.ex.act(s)
