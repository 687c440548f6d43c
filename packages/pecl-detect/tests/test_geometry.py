"""obb_iou against closed forms, a rasterised area with a derived error bound, and an
independent Sutherland-Hodgman clipping written here; poly_to_obb/obb_to_poly round trips."""

import math

import numpy as np
import pytest
from pecl_detect import obb_iou, obb_to_poly, poly_to_obb


def _corners_ref(b):
    cx, cy, w, h, t = b
    u = np.array([math.cos(t), math.sin(t)])
    v = np.array([-math.sin(t), math.cos(t)])
    c = np.array([cx, cy])
    return [c + sx * w / 2 * u + sy * h / 2 * v for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1))]


def _clip_area(a, b):
    """Sutherland-Hodgman: clip polygon a by each edge of the convex ccw polygon b."""
    out = list(a)
    for k in range(4):
        p, q = b[k], b[(k + 1) % 4]

        def side(x, p=p, q=q):
            return (q[0] - p[0]) * (x[1] - p[1]) - (q[1] - p[1]) * (x[0] - p[0])

        inp, out = out, []
        for i in range(len(inp)):
            cur, prev = inp[i], inp[i - 1]
            sc, sp = side(cur), side(prev)
            if sc >= 0:
                if sp < 0:
                    out.append(prev + (cur - prev) * (sp / (sp - sc)))
                out.append(cur)
            elif sp >= 0:
                out.append(prev + (cur - prev) * (sp / (sp - sc)))
        if not out:
            return 0.0
    x = np.array([p[0] for p in out])
    y = np.array([p[1] for p in out])
    return 0.5 * abs(np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y))


def _iou_ref(a, b):
    inter = _clip_area(_corners_ref(a), _corners_ref(b))
    return inter / (a[2] * a[3] + b[2] * b[3] - inter)


def _random_boxes(rng, n):
    return np.column_stack(
        [
            rng.uniform(-2, 2, n),
            rng.uniform(-2, 2, n),
            rng.uniform(0.5, 4, n),
            rng.uniform(0.5, 4, n),
            rng.uniform(-np.pi, np.pi, n),
        ]
    )


def test_closed_forms():
    a = np.array([1.0, 2.0, 4.0, 2.0, 0.3])
    assert obb_iou(a, a) == pytest.approx(1.0, abs=1e-12)
    assert obb_iou(a, a + [100, 0, 0, 0, 0]) == 0.0
    sq = np.array([0.0, 0.0, 2.0, 2.0, 0.0])
    for k in (1, 2, 3):  # a square turned by 90 degrees is itself
        assert obb_iou(sq, sq + [0, 0, 0, 0, k * np.pi / 2]) == pytest.approx(1.0, abs=1e-12)
    # a w x h box turned by 90 degrees is the h x w box
    assert obb_iou(a, [1.0, 2.0, 2.0, 4.0, 0.3 + np.pi / 2]) == pytest.approx(1.0, abs=1e-12)
    # axis-aligned: [0,2]x[0,2] vs [1,3]x[0.5,2.5]: inter 1*1.5, union 8 - 1.5
    assert obb_iou([1, 1, 2, 2, 0], [2, 1.5, 2, 2, 0]) == pytest.approx(1.5 / 6.5, abs=1e-12)
    # a square and itself at 45 degrees: the regular octagon, IoU = sqrt(2)/2
    assert obb_iou(sq, sq + [0, 0, 0, 0, np.pi / 4]) == pytest.approx(math.sqrt(0.5), abs=1e-12)
    # nested: a 1x1 inside a 3x3 at any angle
    assert obb_iou([0, 0, 3, 3, 0], [0.2, -0.1, 1, 1, 0.7]) == pytest.approx(1 / 9, abs=1e-12)
    # touching along an edge: zero
    assert obb_iou([0, 0, 2, 2, 0], [2, 0, 2, 2, 0]) == pytest.approx(0.0, abs=1e-12)


def test_against_sutherland_hodgman_and_shapes():
    rng = np.random.default_rng(0)
    a, b = _random_boxes(rng, 40), _random_boxes(rng, 30)
    m = obb_iou(a, b)
    assert m.shape == (40, 30)
    ref = np.array([[_iou_ref(x, y) for y in b] for x in a])
    np.testing.assert_allclose(m, ref, atol=1e-10)
    assert (ref > 0.05).sum() > 100  # the sample has real overlaps
    assert obb_iou(a[0], b).shape == (30,)
    assert isinstance(obb_iou(a[0], b[0]), float)
    np.testing.assert_allclose(m, obb_iou(b, a).T, atol=1e-12)  # symmetric


def test_against_rasterised_area():
    """Area on a grid of spacing d: a convex set of perimeter P is mis-measured by at most the
    cells its boundary crosses, fewer than 2 (P / d + 2), so |A_hat - A| <= 2 P d + 4 d^2."""
    rng = np.random.default_rng(1)
    d = 0.004
    xs = np.arange(-4.5, 4.5, d) + d / 2
    gx, gy = np.meshgrid(xs, xs)

    def inside(b):
        cx, cy, w, h, t = b
        px, py = gx - cx, gy - cy
        return (np.abs(px * np.cos(t) + py * np.sin(t)) <= w / 2) & (
            np.abs(-px * np.sin(t) + py * np.cos(t)) <= h / 2
        )

    for _ in range(3):
        a, b = _random_boxes(rng, 2)
        a[2:4], b[2:4] = a[2:4] * 0.5 + 1.5, b[2:4] * 0.5 + 1.5  # sides in [1.75, 3.5]
        a[:2] = rng.uniform(-1, 1, 2)  # inside the grid (|corner| <= 2 + 2.48)
        b[:2] = a[:2] + rng.uniform(-1, 1, 2)  # make them overlap
        ia, ib = inside(a), inside(b)
        inter_hat, union_hat = (ia & ib).sum() * d * d, (ia | ib).sum() * d * d
        perim = 2 * (a[2] + a[3] + b[2] + b[3])
        err = 2 * perim * d + 4 * d * d  # bound on each of inter and union (both <= perim)
        iou = obb_iou(a, b)
        bound = (err + iou * err) / (union_hat - err)
        assert bound < 0.05  # the bound is tight enough to catch a wrong IoU
        assert abs(iou - inter_hat / union_hat) <= bound


def test_poly_round_trips():
    rng = np.random.default_rng(2)
    boxes = _random_boxes(rng, 20)
    polys = obb_to_poly(boxes)
    assert polys.shape == (20, 4, 2)
    back = poly_to_obb(polys)
    np.testing.assert_allclose(back[:, :4], boxes[:, :4], atol=1e-9)
    dtheta = (back[:, 4] - boxes[:, 4] + np.pi / 2) % np.pi - np.pi / 2  # equal modulo pi
    np.testing.assert_allclose(dtheta, 0.0, atol=1e-9)
    assert np.all((back[:, 4] >= -np.pi / 2) & (back[:, 4] < np.pi / 2))
    np.testing.assert_allclose(obb_iou(back, boxes).diagonal(), 1.0, atol=1e-9)
    # 8-vector input, reversed (clockwise) order and another start vertex: the same rectangle
    p = polys[0]
    for q in (p.reshape(8), p[::-1], np.roll(p, 1, axis=0)):
        assert obb_iou(poly_to_obb(q), boxes[0]) == pytest.approx(1.0, abs=1e-9)


def test_obb_to_poly_convention():
    p = obb_to_poly([0.0, 0.0, 4.0, 2.0, np.pi / 2])  # w along +y
    np.testing.assert_allclose(p, [[1, -2], [1, 2], [-1, 2], [-1, -2]], atol=1e-12)
    # a general quadrilateral: its minimum-area box contains it
    q = np.array([[0, 0], [3, 0.5], [2.5, 2], [0.2, 1.5]])
    box = poly_to_obb(q)
    assert box[2] * box[3] <= 3.0 * 2.0 + 1e-9  # no larger than the axis-aligned box
    c = obb_to_poly(box)
    inter = obb_iou(box, box)
    assert inter == pytest.approx(1.0)
    for pt in q:  # every corner inside the box
        rel = pt - box[:2]
        u = np.array([np.cos(box[4]), np.sin(box[4])])
        v = np.array([-u[1], u[0]])
        assert abs(rel @ u) <= box[2] / 2 + 1e-9 and abs(rel @ v) <= box[3] / 2 + 1e-9
    assert c.shape == (4, 2)
