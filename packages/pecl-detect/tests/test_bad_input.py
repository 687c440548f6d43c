"""Bad input gets a TypeError (wrong type) or ValueError (wrong value) naming the argument.

One case per public argument, by kind (see ``papershelf_harness.suite``); plain tests below
for the rules the kinds do not cover. (DDPGExplorer's arguments go through the same checks;
it needs torch, so it is exercised in tests/test_extras.py.)
"""

import numpy as np
import pytest
from hypothesis import strategies as st
from pecl_detect import (
    ProgressiveLoop,
    PrototypeBank,
    ToyDetector,
    build_state,
    conformal_clue,
    dota_map,
    enlarge_obb,
    entropy_bits,
    evaluator_delta,
    explore_and_learn,
    explore_image,
    global_threshold,
    make_toy_saod,
    multi_clue_reward,
    obb_iou,
    obb_to_poly,
    oracle_best_threshold,
    patch_origins,
    patchify_boxes,
    per_class_threshold,
    poly_to_obb,
    prototype_similarity,
    read_dota,
    sinkhorn,
    sparsify,
    top_k_per_class,
    voc_ap,
    write_dota,
)

from papershelf_harness import suite
from papershelf_harness.suite import (
    Array,
    Flag,
    Int,
    Mismatch,
    Number,
    Option,
    OutOfRange,
    Rng,
    Values,
    keyword,
)
from papershelf_harness.testing import assert_rejects

LAB = np.array([0, 0, 1, 2, 2, 2])
BOX = np.array([0.0, 0.0, 2.0, 1.0, 0.3])
G = np.full((3, 5), 0.2)
P = np.full(5, 0.2)
CAND = np.full((3, 4), 0.5)
ANNOT = np.full((2, 4), 0.5)


def _tmp():
    import tempfile

    return tempfile.mkdtemp() + "/x.txt"


class _Explorer:
    def act(self, s):
        return 0

    def store(self, *a):
        pass

    def update(self):
        pass


POLYS = np.zeros((2, 4, 2))
GT = [dict(boxes=[BOX], labels=[1])]
DET = [dict(boxes=[BOX], scores=[0.5], labels=[1])]
BANK = PrototypeBank(2, 3, k=2, rng=0)
F3 = np.ones((4, 3))
L3 = np.array([0, 1, 0, 1])
WORLD = make_toy_saod(2, counts=(2, 2), separations=(3.0, 3.0), n_background=2, rng=0)
TOY = ToyDetector(2, n_iter=5).fit(WORLD.images, WORLD.annotations)
TRAIN = (WORLD.images, WORLD.annotations)

CASES = [
    Array(
        "write_dota.polys", "polys", lambda v: write_dota(_tmp(), v, ["a", "b"]), (2, 4, 2), (2, 3)
    ),
    Values(
        "write_dota.difficult",
        "difficult",
        lambda v: write_dota(_tmp(), POLYS, ["a", "b"], difficult=v),
        bad=(
            ([True], ValueError),
            ([0, 2], ValueError),
            ([np.nan, 0], ValueError),
            ("ab", TypeError),
            ([[0, 1]], ValueError),
        ),
    ),  # fmt: skip
    Mismatch("write_dota.classes", "classes", lambda: write_dota(_tmp(), POLYS, ["a"])),
    Values("read_dota.path", "path", read_dota, bad=((None, TypeError), (3, TypeError))),
    Mismatch("dota_map.gts", "gts", lambda: dota_map(DET, GT + GT)),
    Values(
        "dota_map.dets",
        "dets",
        lambda v: dota_map(v, GT),
        bad=(
            (None, TypeError),
            ("x", TypeError),
            ([dict(boxes=[BOX])], ValueError),
            ([dict(boxes=[BOX], scores=[0.5, 0.2], labels=[1])], ValueError),
            ([dict(boxes=[[0, 0, 1]], scores=[0.5], labels=[1])], ValueError),
        ),
    ),  # fmt: skip
    keyword(Number, dota_map, "iou_threshold", DET, GT),
    keyword(OutOfRange, dota_map, "iou_threshold", DET, GT, values=st.floats(1.001, 1e6)),
    keyword(Flag, dota_map, "use_07", DET, GT),
    Array("sinkhorn.scores", "scores", sinkhorn, (4, 3), (2,)),
    keyword(Int, sinkhorn, "n_iter", np.ones((2, 2)), minimum=1),
    keyword(Number, sinkhorn, "epsilon", np.ones((2, 2))),
    Int("PrototypeBank.n_classes", "n_classes", lambda v: PrototypeBank(v, 3), minimum=1),
    Int("PrototypeBank.dim", "dim", lambda v: PrototypeBank(2, v), minimum=1),
    keyword(Int, PrototypeBank, "k", 2, 3, minimum=1),
    keyword(Number, PrototypeBank, "momentum", 2, 3),
    keyword(OutOfRange, PrototypeBank, "momentum", 2, 3, values=st.floats(1.001, 1e6)),
    keyword(Rng, PrototypeBank, "rng", 2, 3),
    Array(
        "PrototypeBank.init",
        "init",
        lambda v: PrototypeBank(1, 3, k=2, init=v),
        (1, 2, 3),
        (3,),
        none_ok=True,
    ),  # fmt: skip
    Array(
        "PrototypeBank.update.feats",
        "feats",
        lambda v: BANK.update(v, L3),
        (4, 3),
        (2,),
        empty_ok=True,
    ),  # fmt: skip
    Array(
        "PrototypeBank.update.labels",
        "labels",
        lambda v: BANK.update(F3, v),
        (4,),
        (1,),
        empty_ok=True,
    ),  # fmt: skip
    Mismatch("PrototypeBank.update.lengths", "labels", lambda: BANK.update(F3, L3[:3])),
    Array(
        "PrototypeBank.similarity.feats",
        "feats",
        lambda v: BANK.similarity(v, L3),
        (4, 3),
        (2,),
        empty_ok=True,
    ),  # fmt: skip
    Int("ToyDetector.n_classes", "n_classes", lambda v: ToyDetector(v), minimum=1),
    keyword(Number, ToyDetector, "l2", 2),
    keyword(Int, ToyDetector, "n_iter", 2, minimum=1),
    keyword(Number, ToyDetector, "min_score", 2),
    keyword(Number, ToyDetector, "pos_fraction", 2),
    Values(
        "ToyDetector.fit.images",
        "images",
        lambda v: ToyDetector(2).fit(v, WORLD.annotations),
        bad=((None, TypeError), ([], TypeError), ([{"boxes": np.zeros((1, 5))}] * 2, ValueError)),
    ),  # fmt: skip
    Mismatch(
        "ToyDetector.fit.boxes",
        "boxes",
        lambda: ToyDetector(2).fit(WORLD.images, WORLD.annotations[:1]),
    ),
    Array("ToyDetector.classify.feats", "feats", TOY.classify, (2, 8), (2,), empty_ok=True),
    keyword(Int, ProgressiveLoop, "rounds", TOY, lambda s: 0, minimum=0),
    keyword(Number, ProgressiveLoop, "iou_discard", TOY, lambda s: 0),
    keyword(Number, ProgressiveLoop, "margin", TOY, lambda s: 0),
    keyword(Int, ProgressiveLoop, "train_epochs", TOY, lambda s: 0, minimum=0),
    keyword(Rng, ProgressiveLoop, "rng", TOY, lambda s: 0),
    Values(
        "ProgressiveLoop.run.train_set",
        "train_set",
        lambda v: ProgressiveLoop(TOY, lambda s: 0, rounds=0).run(v),
        bad=((None, TypeError), (TRAIN[0], TypeError), (([], []), ValueError)),
    ),  # fmt: skip
    Array("enlarge_obb.obb", "obb", enlarge_obb, (5,), (1, 2)),
    keyword(Number, enlarge_obb, "w_scale", BOX),
    keyword(Number, enlarge_obb, "h_scale", BOX),
    Int("patch_origins.size", "size", patch_origins, minimum=1),
    keyword(Int, patch_origins, "patch", 100, minimum=1),
    keyword(Int, patch_origins, "gap", 100, minimum=0, maximum=1023),
    Array(
        "patchify_boxes.boxes",
        "boxes",
        lambda v: patchify_boxes(v, (100, 100)),
        (2, 5),
        (2,),
        empty_ok=True,
    ),  # fmt: skip
    Array(
        "patchify_boxes.img_size", "img_size", lambda v: patchify_boxes(BOX[None], v), (2,), (1,)
    ),
    keyword(Number, patchify_boxes, "thresh", BOX[None], (100, 100)),
    Array(
        "global_threshold.scores",
        "scores",
        lambda v: global_threshold(v, 0.5),
        (3,),
        (1,),
        empty_ok=True,
    ),  # fmt: skip
    Array(
        "per_class_threshold.thresholds",
        "thresholds",
        lambda v: per_class_threshold([0.5], [1], v),
        (2,),
        (1,),
    ),  # fmt: skip
    Mismatch(
        "per_class_threshold.labels", "labels", lambda: per_class_threshold([0.5], [1, 1], [0.5])
    ),
    Int("top_k_per_class.k", "k", lambda v: top_k_per_class([0.5], [1], v), minimum=0),
    Mismatch(
        "oracle_best_threshold.truth", "truth", lambda: oracle_best_threshold([0.5], [True, False])
    ),
    keyword(Option, oracle_best_threshold, "objective", [0.5], [True], valid=frozenset({"f1"})),
    Int("make_toy_saod.n_images", "n_images", make_toy_saod, minimum=1),
    keyword(Number, make_toy_saod, "ratio", 2),
    keyword(Rng, make_toy_saod, "rng", 2),
    Array("sparsify.labels", "labels", lambda v: sparsify(v, 0.5), (6,), (1,), empty_ok=True),
    Number("sparsify.ratio", "ratio", lambda v: sparsify(LAB, v)),
    OutOfRange(
        "sparsify.ratio.range",
        "ratio",
        lambda v: sparsify(LAB, v),
        st.one_of(
            st.floats(max_value=0.0, allow_nan=False),
            st.floats(min_value=1.001, allow_nan=False, allow_infinity=False),
        ),
    ),  # fmt: skip
    Rng("sparsify.rng", "rng", lambda v: sparsify(LAB, 0.5, rng=v)),
    Option(
        "sparsify.level",
        "level",
        lambda v: sparsify([LAB], 0.5, level=v),
        frozenset({"instance", "image"}),
    ),  # fmt: skip
    Array("obb_to_poly.obb", "obb", obb_to_poly, (5,), (1, 2)),
    Array("poly_to_obb.poly", "poly", poly_to_obb, (4, 2), (1, 2, 3)),
    Array("obb_iou.a", "a", lambda v: obb_iou(v, BOX), (5,), (1, 2)),
    Array("obb_iou.b", "b", lambda v: obb_iou(BOX, v), (5,), (1, 2)),
    Array("voc_ap.rec", "rec", lambda v: voc_ap(v, [1.0, 0.5, 0.5]), (3,), (1,)),
    Array("voc_ap.prec", "prec", lambda v: voc_ap([0.1, 0.2, 0.3], v), (3,), (1,)),
    Mismatch("voc_ap.lengths", "prec", lambda: voc_ap([0.1, 0.2], [1.0])),
    Flag("voc_ap.use_07", "use_07", lambda v: voc_ap([0.5], [1.0], use_07=v)),
    Array("conformal_clue.p", "p", lambda v: conformal_clue(v, P), (3,), (0, 1)),
    Number("conformal_clue.p.number", "p", lambda v: conformal_clue(v, P)),
    OutOfRange(
        "conformal_clue.p.range",
        "p",
        lambda v: conformal_clue(v, P),
        st.floats(min_value=1.0001, max_value=1e9),
    ),  # fmt: skip
    Array("conformal_clue.calib", "calib", lambda v: conformal_clue(0.5, v), (4,), (1,)),
    Number("conformal_clue.margin", "margin", lambda v: conformal_clue(0.5, P, margin=v)),
    Array("evaluator_delta.prob", "prob", lambda v: evaluator_delta(v, 1, G, 0.5), (5,), (1,)),
    Int("evaluator_delta.c", "c", lambda v: evaluator_delta(P, v, G, 0.5), minimum=1, maximum=4),
    Array("evaluator_delta.group", "group", lambda v: evaluator_delta(P, 1, v, 0.5), (3, 5), (2,)),
    Mismatch(
        "evaluator_delta.group.columns",
        "group",
        lambda: evaluator_delta(P, 1, np.full((3, 4), 0.25), 0.5),
    ),  # fmt: skip
    Number("evaluator_delta.p_det", "p_det", lambda v: evaluator_delta(P, 1, G, v)),
    OutOfRange(
        "evaluator_delta.p_det.range",
        "p_det",
        lambda v: evaluator_delta(P, 1, G, v),
        st.floats(min_value=1.0001, max_value=1e9),
    ),  # fmt: skip
    Int(
        "multi_clue_reward.action",
        "action",
        lambda v: multi_clue_reward(P, 1, G, 0.5, v),
        minimum=0,
        maximum=1,
    ),  # fmt: skip
    Array(
        "multi_clue_reward.prob", "prob", lambda v: multi_clue_reward(v, 1, G, 0.5, 1), (5,), (1,)
    ),
    Array(
        "explore_image.cand",
        "cand",
        lambda v: explore_image(v, ANNOT, lambda s: 0),
        (3, 4),
        (2,),
        empty_ok=True,
    ),  # fmt: skip
    Array(
        "explore_image.annot",
        "annot",
        lambda v: explore_image(CAND, v, lambda s: 0),
        (2, 4),
        (2,),
        empty_ok=True,
    ),  # fmt: skip
    Mismatch(
        "explore_image.columns", "annot", lambda: explore_image(CAND, np.zeros((2, 3)), lambda s: 0)
    ),  # fmt: skip
    Array(
        "explore_and_learn.cand",
        "cand",
        lambda v: explore_and_learn(v, ANNOT, _Explorer(), lambda i, a, s: 1.0),
        (3, 4),
        (2,),
    ),  # fmt: skip
    Array("build_state.cand", "cand", lambda v: build_state(v, ANNOT), (4,), (1,)),
    Array(
        "build_state.accepted",
        "accepted",
        lambda v: build_state(CAND[0], v),
        (2, 4),
        (2,),
        empty_ok=True,
    ),  # fmt: skip
    Array(
        "prototype_similarity.feats", "feats", lambda v: prototype_similarity(v, G), (2, 5), (2,)
    ),
    Array(
        "prototype_similarity.prototypes",
        "prototypes",
        lambda v: prototype_similarity(np.ones((2, 5)), v),
        (3, 5),
        (2, 3),
    ),  # fmt: skip
    Array("entropy_bits.v", "v", entropy_bits, (5,), (1,)),
]

globals().update(suite.bad_input_suite(CASES))


def test_values_outside_the_unit_interval():
    assert_rejects(ValueError, "rec", voc_ap, [0.5, 1.5], [1.0, 1.0])
    assert_rejects(ValueError, "calib", conformal_clue, 0.5, [0.5, -0.1])
    assert_rejects(ValueError, "prob", evaluator_delta, P + 1, 1, G, 0.5)
    assert_rejects(ValueError, "obb", obb_to_poly, [0, 0, -1, 1, 0])


def test_policies_and_labels():
    assert_rejects(TypeError, "policy", explore_image, CAND, ANNOT, 3)
    assert_rejects(TypeError, "explorer", explore_and_learn, CAND, ANNOT, object(), lambda *a: 1)
    assert_rejects(TypeError, "labels", sparsify, np.array([0.5, 1.0]), 0.5)
    assert sparsify([], 0.5).size == 0  # an image without objects
    assert_rejects(ValueError, "labels", sparsify, [], 0.5, level="image")
    with pytest.raises(ValueError, match="policy"):
        explore_image(CAND, ANNOT, lambda s: 0.5)
