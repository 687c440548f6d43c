"""DOTA txt I/O, dota_map, the prototype bank and the closed loop, against hand values,
brute force and closed forms."""

import numpy as np
import pytest
from pecl_detect import (
    DetectorBackend,
    ProgressiveLoop,
    PrototypeBank,
    ToyDetector,
    dota_map,
    make_toy_saod,
    read_dota,
    sinkhorn,
    voc_ap,
    write_dota,
)

DOTA_TXT = """imagesource:GoogleEarth
gsd:0.146343590398
2753 2408 2861 2385 2888 2468 2805 2502 plane 0
3445 3391 3484 3409 3478 3422 3437 3402 large-vehicle 1

1 2 3 4 5 6 7 8 ship
"""


def test_read_dota_parses_header_records_and_default_difficult(tmp_path):
    p = tmp_path / "P0001.txt"
    p.write_text(DOTA_TXT)
    lab = read_dota(p)
    assert len(lab) == 3 and lab.classes == ("plane", "large-vehicle", "ship")
    assert lab.meta == {"imagesource": "GoogleEarth", "gsd": "0.146343590398"}
    assert lab.difficult.tolist() == [False, True, False]
    assert lab.polys.shape == (3, 4, 2)
    assert lab.polys[0].tolist() == [[2753, 2408], [2861, 2385], [2888, 2468], [2805, 2502]]


@pytest.mark.parametrize(
    "line, what",
    [
        ("1 2 3 4 5 6 7 8", "9 or 10 fields"),
        ("1 2 3 4 5 6 7 8 plane 0 extra", "9 or 10 fields"),
        ("1 2 3 x 5 6 7 8 plane 0", "numbers"),
        ("1 2 3 nan 5 6 7 8 plane 0", "finite"),
        ("1 2 3 4 5 6 7 8 plane 2", "difficult"),
    ],
)
def test_read_dota_names_file_and_line_of_a_malformed_record(tmp_path, line, what):
    p = tmp_path / "bad.txt"
    p.write_text("gsd:0.1\n1 1 2 1 2 2 1 2 ship 0\n" + line + "\n")
    with pytest.raises(ValueError, match=rf"bad\.txt, line 3: .*{what}"):
        read_dota(p)


def test_write_then_read_round_trips_bit_for_bit(tmp_path):
    rng = np.random.default_rng(0)
    polys = rng.uniform(0, 1024, (5, 4, 2))
    classes = ["plane", "ship", "ship", "harbor", "small-vehicle"]
    diff = np.array([0, 1, 0, 0, 1], bool)
    p = tmp_path / "out.txt"
    write_dota(p, polys, classes, difficult=diff, meta={"gsd": "0.5"})
    lab = read_dota(p)
    assert np.array_equal(lab.polys, polys) and lab.classes == tuple(classes)
    assert np.array_equal(lab.difficult, diff) and lab.meta == {"gsd": "0.5"}
    write_dota(p, np.zeros((0, 8)), [])
    assert len(read_dota(p)) == 0
    with pytest.raises(ValueError, match="classes"):
        write_dota(p, polys, ["a b"] * 5)
    with pytest.raises(ValueError, match="classes"):
        write_dota(p, polys, ["a"] * 4)
    with pytest.raises(TypeError, match="path"):
        read_dota(3)


def _box(x, y):
    return [x, y, 10.0, 10.0, 0.0]


def test_dota_map_hand_example():
    # class 1: 3 non-difficult gts in two images, 1 difficult; ranked detections:
    # 0.9 TP, 0.8 FP (duplicate of the same gt), 0.7 ignored (difficult), 0.6 TP, 0.5 FP (no overlap)
    gts = [
        dict(
            boxes=[_box(0, 0), _box(100, 0), _box(200, 0)],
            labels=[1, 1, 1],
            difficult=[False, False, True],
        ),  # fmt: skip
        dict(boxes=[_box(0, 0)], labels=[1]),
    ]
    dets = [
        dict(
            boxes=[_box(0, 0), _box(1, 0), _box(200, 0), _box(500, 500)],
            scores=[0.9, 0.8, 0.7, 0.5],
            labels=[1, 1, 1, 1],
        ),  # fmt: skip
        dict(boxes=[_box(0.5, 0)], scores=[0.6], labels=[1]),
    ]
    tp = np.array([1, 0, 0, 1, 0])
    fp = np.array([0, 1, 0, 0, 1])
    rec = np.cumsum(tp) / 3
    prec = np.cumsum(tp) / (np.cumsum(tp) + np.cumsum(fp))
    res = dota_map(dets, gts)
    assert res.n_positives == {1: 3}
    assert res.per_class[1] == pytest.approx(voc_ap(rec, prec))
    # by hand: recall 1/3 at precision 1, 2/3 at 2/3 -> 11-pt (4 * 1 + 3 * 2/3 + 4 * 0) / 11
    assert res.mean_ap == pytest.approx((4 + 2) / 11)
    assert dota_map(dets, gts, use_07=False).mean_ap == pytest.approx(1 / 3 + 1 / 3 * 2 / 3)


def test_dota_map_perfect_detector_and_classes():
    rng = np.random.default_rng(1)
    gts, dets = [], []
    for _ in range(4):
        n = 6
        b = np.column_stack([rng.uniform(0, 1000, (n, 2)), rng.uniform(5, 30, (n, 2)),
                             rng.uniform(-1.5, 1.5, n)])  # fmt: skip
        lab = rng.integers(1, 4, n)
        gts.append(dict(boxes=b, labels=lab))
        dets.append(dict(boxes=b, scores=rng.uniform(size=n), labels=lab))
    res = dota_map(dets, gts)
    assert res.mean_ap == 1.0 and set(res.per_class) == {1, 2, 3}
    res = dota_map(dets, gts, classes=[1, 7])
    assert res.per_class[1] == 1.0 and np.isnan(res.per_class[7]) and res.mean_ap == 1.0
    # every detection moved off its box (disjoint): all false positives
    moved = [dict(d, boxes=np.asarray(d["boxes"]) + [5000, 0, 0, 0, 0]) for d in dets]
    assert dota_map(moved, gts).mean_ap == 0.0
    with pytest.raises(ValueError, match="gts"):
        dota_map(dets, gts[:2])


def test_sinkhorn_balances_prototypes():
    rng = np.random.default_rng(0)
    s = rng.normal(size=(40, 5))
    q = sinkhorn(s, n_iter=200, epsilon=0.5)
    np.testing.assert_allclose(q.sum(axis=1), 1.0)
    np.testing.assert_allclose(q.sum(axis=0), 40 / 5, rtol=1e-6)  # every prototype gets B/K
    # one iteration of the release's scalings, written out
    L = np.exp(s / 0.05).T
    L = L / L.sum()
    L = L / L.sum(axis=1, keepdims=True) / 5
    L = L / L.sum(axis=0, keepdims=True) / 40
    np.testing.assert_allclose(sinkhorn(s, n_iter=1), (L * 40).T, rtol=1e-9)


def test_prototype_bank_update_closed_form():
    rng = np.random.default_rng(2)
    init = rng.normal(size=(2, 3, 4))
    bank = PrototypeBank(2, 4, k=3, momentum=0.9, init=init)
    unit = init / np.linalg.norm(init, axis=-1, keepdims=True)
    feats = rng.normal(size=(12, 4))
    labels = np.array([0] * 6 + [1] * 6)
    correct = np.ones(12, bool)
    correct[0] = False
    idx = bank.update(feats, labels, correct=correct)
    assert idx[0] == -1
    f = feats / np.linalg.norm(feats, axis=1, keepdims=True)
    expect = unit.copy()
    for c in range(2):
        for j in range(3):
            m = (labels == c) & (idx == j)
            if m.any():
                s = f[m].sum(axis=0)
                expect[c, j] = 0.9 * unit[c, j] + 0.1 * s / np.linalg.norm(s)
    expect /= np.linalg.norm(expect, axis=-1, keepdims=True)
    np.testing.assert_allclose(bank.prototypes, expect, atol=1e-12)
    cm = expect.mean(axis=1)
    cm /= np.linalg.norm(cm, axis=1, keepdims=True)
    np.testing.assert_allclose(bank.class_mean(), cm)
    np.testing.assert_allclose(bank.similarity(feats, labels), np.sum(f * cm[labels], axis=1))
    # momentum 0 and one prototype: the prototype is the normalised mean feature
    b1 = PrototypeBank(1, 4, k=1, momentum=0.0, rng=0)
    b1.update(feats, np.zeros(12, int))
    m = f.sum(axis=0)
    np.testing.assert_allclose(b1.prototypes[0, 0], m / np.linalg.norm(m))
    with pytest.raises(ValueError, match="labels"):
        bank.update(feats, np.full(12, 2))


def test_toy_detector_is_the_penalised_logistic_regression_optimum():
    w = make_toy_saod(6, rng=0)
    det = ToyDetector(3, n_iter=3000, l2=0.05).fit(w.images, w.annotations)
    assert isinstance(det, DetectorBackend)
    # stationarity of the weighted L2-penalised softmax regression (gradient ~ 0)
    F = np.vstack([im["feats"] for im in w.images])
    A = np.column_stack([(F - F.mean(0)) / F.std(0), np.ones(len(F))])
    y = np.zeros(len(F), int)
    for k, (im, t) in enumerate(zip(w.images, w.annotations, strict=True)):
        off = sum(len(x["feats"]) for x in w.images[:k])
        for b, lab in zip(t["boxes"], t["labels"], strict=True):
            y[off + int(np.flatnonzero(np.all(im["boxes"] == b, axis=1))[0])] = lab
    Y = np.eye(4)[y]
    P = det.classify(F)
    wts = det.sample_weights_
    assert wts[y > 0].sum() == pytest.approx(0.25)  # the RoI sampler's positive fraction
    W = det.weights.copy()
    W[-1] = 0
    g = A.T @ ((P - Y) * wts[:, None]) + 0.05 * W
    assert np.abs(g).max() < 1e-6
    # trained on the full truth (fg 25 of 40 rows: plain 1/n weights) it finds the objects
    full = ToyDetector(3).fit(w.images, w.truth)
    assert np.allclose(full.sample_weights_, 1 / len(F))
    cands = full.predict(w.images)
    res_map = dota_map(cands, w.truth)
    assert res_map.mean_ap > 0.8


def test_progressive_loop_with_a_fixed_policy():
    w = make_toy_saod(12, rng=0)
    tr, ev = (w.images[:8], w.annotations[:8]), (w.images[8:], w.truth[8:])
    loop = ProgressiveLoop(ToyDetector(3, n_iter=200), lambda s: int(s[0] >= 0.3), rounds=2)
    res = loop.run(tr, eval_set=ev)
    assert [h.round for h in res.history] == [0, 1, 2]
    assert res.history[0].n_pseudo == 0 and res.history[1].n_pseudo > 0
    # round 0 is the detector fitted on the annotations alone
    base = ToyDetector(3, n_iter=200).fit(*tr)
    assert res.history[0].mean_ap == pytest.approx(dota_map(base.predict(ev[0]), ev[1]).mean_ap)
    # the pseudo-labels are exactly what the policy picks: confidence >= 0.3, none annotated
    n_sel = sum(int(np.sum(p["scores"] >= 0.3)) for p in res.pseudo_labels)
    assert n_sel == res.history[-1].n_pseudo
    assert all(np.all(p["scores"] >= 0.3) for p in res.pseudo_labels)
    # a policy that selects nothing leaves the detector as in round 0
    res0 = ProgressiveLoop(ToyDetector(3, n_iter=200), lambda s: 0, rounds=1).run(tr, eval_set=ev)
    assert res0.history[1].mean_ap == res0.history[0].mean_ap
    with pytest.raises(TypeError, match="detector"):
        ProgressiveLoop(object(), lambda s: 0)
    with pytest.raises(TypeError, match="explorer"):
        ProgressiveLoop(ToyDetector(3), 3)


def test_patch_origins_hand_values():
    from pecl_detect import patch_origins

    assert patch_origins(2000) == [0, 824, 976]  # 0, +824, then moved back to end at 2000
    assert patch_origins(1024) == [0] and patch_origins(500) == [0]
    assert patch_origins(1848) == [0, 824]


def test_patchify_boxes_axis_aligned_closed_form():
    from pecl_detect import enlarge_obb, patchify_boxes

    boxes = np.array([
        [100.0, 100.0, 40.0, 20.0, 0.0],    # inside the first patch only
        [900.0, 500.0, 40.0, 20.0, 0.0],    # x in [880, 920]: inside patches at x0 0 and 824
        [1014.0, 100.0, 40.0, 20.0, 0.0],   # x in [994, 1034]: 30/40 = 0.75 in the first patch
        [1019.0, 300.0, 40.0, 20.0, 0.0],   # 25/40 = 0.625 < 0.7 in the first patch
    ])  # fmt: skip
    patches = patchify_boxes(boxes, (1848, 1024))
    assert [(p.x0, p.y0) for p in patches] == [(0, 0), (824, 0)]
    first, second = patches
    assert first.indices.tolist() == [0, 1, 2] and first.truncated.tolist() == [False, False, True]
    assert second.indices.tolist() == [1, 2, 3] and not second.truncated.any()
    np.testing.assert_allclose(second.boxes[0], [76.0, 500.0, 40.0, 20.0, 0.0])
    np.testing.assert_allclose(enlarge_obb(boxes[0]), [100, 100, 48, 28, 0])


def _f1(sel, y):
    return 2 * np.sum(sel & y) / max(np.sum(sel) + np.sum(y), 1)


def test_threshold_baselines_against_brute_force():
    from pecl_detect import (
        DOTA_RELEASE_THRESHOLDS,
        global_threshold,
        oracle_best_threshold,
        per_class_threshold,
        top_k_per_class,
    )

    rng = np.random.default_rng(3)
    s = np.round(rng.uniform(size=60), 1)  # many ties
    lab = rng.integers(1, 4, 60)
    y = rng.uniform(size=60) < s * np.array([0.0, 1.0, 0.6, 0.3])[lab]
    assert np.array_equal(global_threshold(s, 0.5), s >= 0.5)
    t = np.array([0.3, 0.5, 0.9])
    assert np.array_equal(per_class_threshold(s, lab, t), s >= t[lab - 1])
    assert len(DOTA_RELEASE_THRESHOLDS) == 15 and DOTA_RELEASE_THRESHOLDS[11] == 0.88
    top = top_k_per_class(s, lab, 3)
    for c in (1, 2, 3):
        m = lab == c
        assert top[m].sum() == 3 and s[m][top[m]].min() >= s[m][~top[m]].max()
    # global oracle: brute force over every distinct score
    t_best, f_best = oracle_best_threshold(s, y)
    brute = max(_f1(s >= v, y) for v in np.unique(s))
    assert f_best == pytest.approx(brute) and _f1(s >= t_best, y) == pytest.approx(brute)
    # per-class oracle: each class's threshold is the best given the others (coordinate optimum)
    ts, f_cls = oracle_best_threshold(s, y, labels=lab)
    sel = s >= np.array([ts[c] for c in lab])
    assert _f1(sel, y) == pytest.approx(f_cls) and f_cls >= f_best - 1e-12
    for c in (1, 2, 3):
        m = lab == c
        for v in [*np.unique(s[m]), np.inf]:
            trial = sel.copy()
            trial[m] = s[m] >= v
            assert _f1(trial, y) <= f_cls + 1e-12
    with pytest.raises(ValueError, match="labels"):
        per_class_threshold(s, lab, t[:2])
