"""evaluate() against an independent per-triplet loop written like the authors' scripts
(encode one triplet, cosine, strict comparisons), the exact bag-of-words table, and the ITT
wiring with a toy image encoder."""

import json
import math
import re
from collections import Counter

import numpy as np
import pytest
import sugarcrepe_pp as scpp
from sugarcrepe_pp import (
    CATEGORIES,
    BagOfWordsEncoder,
    Report,
    evaluate,
    evaluate_triplets,
    load_triplets,
)

BOW_TOT = {
    "swap_obj": 12,
    "swap_att": 98,
    "replace_obj": 363,
    "replace_att": 132,
    "replace_rel": 382,
}
SIZES = {
    "swap_obj": 245,
    "swap_att": 666,
    "replace_obj": 1652,
    "replace_att": 788,
    "replace_rel": 1406,
}


def _bag(text):
    return Counter(re.findall(r"[a-z0-9']+", text.lower()))


def _cos_bags(x, y):
    # exact rational arithmetic would be overkill: integer dot products, one division
    dot = sum(v * y[k] for k, v in x.items())
    nx = math.sqrt(sum(v * v for v in x.values()))
    ny = math.sqrt(sum(v * v for v in y.values()))
    return dot / (max(nx, 1e-6) * max(ny, 1e-6))


def _naive_tot(triplets):
    """The authors' loop: one triplet at a time, ``p1_p2 > p2_ref and p1_p2 > p1_ref``."""
    out = []
    for t in triplets:
        b1, b2, bn = _bag(t.p1), _bag(t.p2), _bag(t.neg)
        p1_p2, p1_ref, p2_ref = _cos_bags(b1, b2), _cos_bags(b1, bn), _cos_bags(b2, bn)
        out.append(int(p1_p2 > p2_ref and p1_p2 > p1_ref))
    return out


@pytest.fixture(scope="module")
def bow_report():
    return evaluate(BagOfWordsEncoder())


def test_bow_table_is_exact(bow_report):
    r = bow_report
    assert isinstance(r, Report)
    assert list(r.table) == list(CATEGORIES)
    for c in CATEGORIES:
        correct, total, acc = r.table[c]["tot"]
        assert (correct, total) == (BOW_TOT[c], SIZES[c])
        assert acc == correct / total
    assert r.n_excluded == 0 and r.excluded == ()


def test_bow_flags_match_the_naive_loop(bow_report):
    for c in CATEGORIES:
        ts = load_triplets(c)
        assert bow_report.flags[c]["tot"].astype(int).tolist() == _naive_tot(ts)
        assert bow_report.ids[c].tolist() == [t.id for t in ts]


def test_bow_similarities_hand_computed():
    # "a dog on a red mat" vs "the red mat under a dog": bags {a:2, dog, on, red, mat} and
    # {the, red, mat, under, a, dog}: dot = 2+1+1+1 = 5, norms sqrt(8) and sqrt(6)
    t = scpp.Triplet(
        0, "toy", "x.jpg", "A dog on a red mat.", "The red mat under a dog", "a mat on a red dog"
    )
    r = evaluate_triplets([t], BagOfWordsEncoder())
    s = r.similarities["toy"]
    assert s["p1_p2"][0] == pytest.approx(5 / math.sqrt(8 * 6))
    assert s["p1_neg"][0] == pytest.approx(1.0)  # same bag
    assert s["p2_neg"][0] == pytest.approx(5 / math.sqrt(6 * 8))
    assert r.flags["toy"]["tot"].tolist() == [False]
    assert r.table["toy"]["tot"] == (0, 1, 0.0)


def test_bag_of_words_encoder_counts():
    enc = BagOfWordsEncoder()
    vocab = enc.vocabulary
    x = enc.encode_text(["A cat's cat, 2 CATS!", "zzzunknownzzz"])
    assert x.shape == (2, len(vocab)) and x.dtype == np.float32
    nz = {vocab[j]: x[0, j] for j in np.flatnonzero(x[0])}
    assert nz == {"a": 1.0, "cat's": 1.0, "cat": 1.0, "2": 1.0, "cats": 1.0}
    assert not x[1].any()
    assert enc.count_oov(["zzzunknownzzz a"]) == 1
    custom = BagOfWordsEncoder(vocabulary=["b", "a"])
    assert custom.encode_text(["a b a c"]).tolist() == [[1.0, 2.0]]


def test_bags_equal_in_swap_categories():
    # the reason swaps defeat an order-blind model
    eq = {
        c: sum(_bag(t.p1) == _bag(t.neg) for t in load_triplets(c))
        for c in ("swap_obj", "swap_att")
    }
    assert eq == {"swap_obj": 161, "swap_att": 384}


@pytest.mark.parametrize("batch_size", [1, 5, 64, 1000])
def test_batching_does_not_change_results(batch_size, bow_report):
    r = evaluate(BagOfWordsEncoder(), categories="swap_obj", batch_size=batch_size)
    assert np.array_equal(r.flags["swap_obj"]["tot"], bow_report.flags["swap_obj"]["tot"])
    for k, v in r.similarities["swap_obj"].items():
        assert np.array_equal(v, bow_report.similarities["swap_obj"][k])


def test_exclude_degenerate(bow_report):
    r = evaluate(BagOfWordsEncoder(), categories=["swap_obj", "swap_att"], exclude_degenerate=True)
    assert r.n_excluded == 2 and r.excluded == (("swap_obj", 2), ("swap_obj", 8))
    assert 2 not in r.ids["swap_obj"].tolist() and len(r.ids["swap_obj"]) == 243
    keep = np.array([i not in (2, 8) for i in range(245)])
    assert np.array_equal(r.flags["swap_obj"]["tot"], bow_report.flags["swap_obj"]["tot"][keep])
    assert r.table["swap_obj"]["tot"][:2] == (12, 243)
    assert r.table["swap_att"]["tot"][:2] == (98, 666)


def test_flags_in_id_order_for_a_shuffled_subset():
    ts = load_triplets("replace_att")[:30]
    shuffled = [ts[i] for i in np.random.default_rng(1).permutation(30)]
    r = evaluate_triplets(shuffled, BagOfWordsEncoder(), batch_size=4)
    assert r.ids["replace_att"].tolist() == list(range(30))
    assert r.flags["replace_att"]["tot"].astype(int).tolist() == _naive_tot(ts)


# ---- ITT with a toy image encoder -------------------------------------------------------------


class ProjectedBoW:
    """A toy joint space: bag-of-words counts times a fixed random (V, 48) projection."""

    def __init__(self, seed=0):
        self.bow = BagOfWordsEncoder()
        self.proj = np.random.default_rng(seed).normal(size=(len(self.bow.vocabulary), 48))

    def encode_text(self, texts):
        # row by row over the non-zero counts: each text's vector is bit-identical whatever
        # batch it comes in (a batched BLAS product may round rows differently and split ties)
        rows = []
        for counts in self.bow.encode_text(texts).astype(np.float64):
            nz = np.flatnonzero(counts)
            rows.append(counts[nz] @ self.proj[nz])
        return np.stack(rows)


class ToyImages:
    """A synthetic (4, 4, 3) float "image" per file: the projected bag of words of that
    triplet's P1 (70%) or N (30%), plus noise."""

    def __init__(self, triplets, space, seed=0):
        rng = np.random.default_rng(seed)
        self.space = space
        self.by_file = {}
        for t in triplets:
            self.by_file.setdefault(
                t.image_file, (t.p1 if rng.random() < 0.7 else t.neg, rng.normal(size=48))
            )
        self.calls = []

    def __call__(self, filename):
        self.calls.append(filename)
        text, noise = self.by_file[filename]
        return (self.space.encode_text([text])[0] + 2.0 * noise).reshape(4, 4, 3)


class ToyImageEncoder:
    """Flattens a toy image into the joint space."""

    def __init__(self):
        self.batches = []

    def encode_image(self, images):
        self.batches.append(len(images))
        return np.stack([np.asarray(im, dtype=np.float64).reshape(-1) for im in images])


def _naive_itt(triplets, images, space):
    out = {"itt": [], "itt_p1": [], "itt_p2": []}
    for t in triplets:
        v = images(t.image_file).reshape(-1)
        t1, t2, tn = space.encode_text([t.p1, t.p2, t.neg])

        def c(a, b):
            return float(a @ b) / (max(np.linalg.norm(a), 1e-6) * max(np.linalg.norm(b), 1e-6))

        a, b, n = c(v, t1), c(v, t2), c(v, tn)
        out["itt"].append(a > n and b > n)
        out["itt_p1"].append(a > n)
        out["itt_p2"].append(b > n)
    return out


@pytest.mark.parametrize("batch_size", [1, 7, 64])
def test_itt_flags_match_a_direct_loop(batch_size):
    ts = load_triplets("swap_att")[:50] + load_triplets("replace_obj")[:40]
    space = ProjectedBoW()
    images = ToyImages(ts, space)
    image_encoder = ToyImageEncoder()
    r = evaluate_triplets(
        ts,
        space,
        image_encoder=image_encoder,
        image_source=images,
        tasks=("tot", "itt"),
        batch_size=batch_size,
    )
    assert max(image_encoder.batches) <= batch_size
    assert images.calls == [t.image_file for t in ts]
    for cat, n in (("swap_att", 50), ("replace_obj", 40)):
        sub = [t for t in ts if t.category == cat]
        ref = _naive_itt(sub, images, space)
        for m in ("itt", "itt_p1", "itt_p2"):
            assert r.flags[cat][m].tolist() == ref[m], (cat, m)
            assert r.table[cat][m][:2] == (sum(ref[m]), n)
    # the toy image leans to P1 70% of the time: ITT-P1 must be well above chance
    assert r.table["replace_obj"]["itt_p1"][2] > 0.6


def test_itt_uses_the_text_encoder_as_image_encoder_when_it_has_one():
    ts = load_triplets("swap_obj")[:10]

    class Both(ProjectedBoW):
        def encode_image(self, ims):
            return ToyImageEncoder().encode_image(ims)

    images = ToyImages(ts, Both())

    r = evaluate_triplets(ts, Both(), image_source=images, tasks=("itt",))
    assert set(r.flags["swap_obj"]) == {"itt", "itt_p1", "itt_p2"}
    assert set(r.similarities["swap_obj"]) == {"img_p1", "img_p2", "img_neg"}


def test_itt_needs_an_image_encoder_and_source():
    with pytest.raises(ValueError, match="image_encoder"):
        evaluate(
            BagOfWordsEncoder(), categories="swap_obj", tasks=("itt",), image_source=lambda f: f
        )
    with pytest.raises(ValueError, match="image_source"):
        evaluate(
            BagOfWordsEncoder(),
            categories="swap_obj",
            tasks=("itt",),
            image_encoder=ToyImageEncoder(),
        )


def test_bad_encoder_outputs_are_value_errors():
    class Wrong:
        def encode_text(self, texts):
            return np.ones((len(texts) - 1, 4))

    class NaN:
        def encode_text(self, texts):
            return np.full((len(texts), 4), np.nan)

    ts = load_triplets("swap_obj")[:3]
    with pytest.raises(ValueError, match="text_encoder.encode_text returned shape"):
        evaluate_triplets(ts, Wrong())
    with pytest.raises(ValueError, match="text_encoder.encode_text returned NaN"):
        evaluate_triplets(ts, NaN())


def test_report_serialisation(bow_report):
    d = json.loads(evaluate(BagOfWordsEncoder(), categories="swap_obj").to_json())
    assert d["table"]["swap_obj"]["tot"][:2] == [12, 245]
    assert len(d["samples"]) == 245
    s = d["samples"][3]
    assert s["category"] == "swap_obj" and s["id"] == 3
    assert s["tot"] == bool(bow_report.flags["swap_obj"]["tot"][3])
    assert s["p1_p2"] == pytest.approx(bow_report.similarities["swap_obj"]["p1_p2"][3])
