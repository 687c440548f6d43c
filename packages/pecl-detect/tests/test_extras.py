"""The integrations (run by `nox -s tests_extras`): the torch explorer learns a bandit;
obb_iou agrees with shapely's polygon intersection."""

import numpy as np
import pytest
from pecl_detect import obb_iou, obb_to_poly


def test_ddpg_learns_a_trivial_bandit():
    torch = pytest.importorskip("torch")
    torch.set_num_threads(1)
    from pecl_detect import DDPGExplorer, explore_and_learn, explore_image

    ex = DDPGExplorer(
        warmup=64, batch_size=32, lr_actor=0.05, lr_critic=0.05,
        generator=torch.Generator().manual_seed(0),
    )  # fmt: skip
    assert isinstance(ex, torch.nn.Module)
    rng = np.random.default_rng(0)
    p0 = np.mean([ex.probs(rng.uniform(size=8))[1] for _ in range(50)])
    assert ex.update() is None  # nothing stored yet
    for _ in range(10):  # select is +1, skip is -1, whatever the state
        explore_and_learn(rng.uniform(size=(30, 4)), rng.uniform(size=(2, 4)), ex,
                          lambda i, a, sel: 1.0 if a == 1 else -1.0)  # fmt: skip
    assert len(ex) == 300 and ex.n_updates == 300 - 64
    p1 = np.mean([ex.probs(rng.uniform(size=8))[1] for _ in range(50)])
    assert p1 > 0.9 and p1 > p0 + 0.3
    assert ex.act(rng.uniform(size=8), greedy=True) == 1
    sel = explore_image(rng.uniform(size=(5, 4)), np.zeros((0, 4)), ex)
    assert sel.size >= 3
    # the same generator seed gives the same explorer
    a = DDPGExplorer(generator=torch.Generator().manual_seed(3))
    b = DDPGExplorer(generator=torch.Generator().manual_seed(3))
    s = rng.uniform(size=8)
    assert np.array_equal(a.probs(s), b.probs(s))


def test_obb_iou_matches_shapely():
    shapely = pytest.importorskip("shapely")
    from shapely.geometry import Polygon

    rng = np.random.default_rng(4)
    n = 200
    boxes = np.column_stack([rng.uniform(-2, 2, (n, 2)), rng.uniform(0.3, 4, (n, 2)),
                             rng.uniform(-np.pi, np.pi, n)])  # fmt: skip
    other = boxes + np.column_stack([rng.uniform(-1, 1, (n, 2)), rng.uniform(-0.2, 0.2, (n, 2)),
                                     rng.uniform(-1, 1, n)])  # fmt: skip
    other[:, 2:4] = np.abs(other[:, 2:4]) + 0.1
    ours = np.array([obb_iou(a, b) for a, b in zip(boxes, other, strict=True)])
    pa, pb = obb_to_poly(boxes), obb_to_poly(other)
    ref = []
    for x, y in zip(pa, pb, strict=True):
        px, py = Polygon(x), Polygon(y)
        ref.append(px.intersection(py).area / px.union(py).area)
    np.testing.assert_allclose(ours, ref, atol=1e-9)
    assert shapely.__version__
