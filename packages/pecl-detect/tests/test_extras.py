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


def _hand_critic(ex, torch):
    """Q(s, p) = 20 relu(p_select - 0.9) - p_select: select is better at the one-hot actions
    (Q = 1 vs 0) but the slope at a soft action p_select < 0.9 is -1."""
    lin = [m for m in ex.critic if isinstance(m, torch.nn.Linear)]
    with torch.no_grad():
        for m in lin:
            m.weight.zero_()
            m.bias.zero_()
        lin[0].weight[0, ex.state_dim + 1] = 1.0
        lin[0].bias[0] = -0.9
        lin[0].weight[1, ex.state_dim + 1] = 1.0
        lin[1].weight[0, 0] = 1.0
        lin[1].weight[1, 1] = 1.0
        lin[2].weight[0, 0] = 20.0
        lin[2].weight[0, 1] = -1.0


@pytest.mark.parametrize("actor_loss, direction", [("expected", 1), ("soft", -1)])
def test_actor_follows_the_critic_at_the_one_hot_actions(actor_loss, direction):
    # the cause of the collapse of 0.1.0 (the release's Q(s, pi(s))): the actor climbed the
    # critic's slope at the soft action, a point the critic is never fitted on
    torch = pytest.importorskip("torch")
    from pecl_detect import DDPGExplorer

    ex = DDPGExplorer(warmup=0, batch_size=8, lr_actor=0.5, lr_critic=1e-12,
                      actor_loss=actor_loss, generator=torch.Generator().manual_seed(1))  # fmt: skip
    _hand_critic(ex, torch)
    states = np.random.default_rng(0).uniform(size=(8, 8))
    for s in states:
        ex.store(s, 0, 0.0, s)
    before = np.mean([ex.probs(s)[1] for s in states])
    for _ in range(5):
        ex.update()
    after = np.mean([ex.probs(s)[1] for s in states])
    assert direction * (after - before) > 0.01


def test_ddpg_learns_a_state_dependent_bandit():
    # 0.1.0 (release actor loss): greedy accuracy 0.47, i.e. it selected everything
    torch = pytest.importorskip("torch")
    torch.set_num_threads(1)
    from pecl_detect import DDPGExplorer, explore_and_learn

    ex = DDPGExplorer(lr_actor=0.05, lr_critic=0.05, generator=torch.Generator().manual_seed(0))
    rng = np.random.default_rng(0)
    for _ in range(80):  # select is right iff the candidate's first clue exceeds 0.5
        cand = rng.uniform(size=(30, 4))
        explore_and_learn(cand, rng.uniform(size=(2, 4)), ex,
                          lambda i, a, sel, c=cand: 1.0 if (a == 1) == (c[i, 0] > 0.5) else -1.0)  # fmt: skip
    s = rng.uniform(size=(400, 8))
    acc = np.mean([ex.act(x, greedy=True) == int(x[0] > 0.5) for x in s])
    assert acc > 0.85


def test_save_and_load_restore_the_explorer_exactly(tmp_path):
    torch = pytest.importorskip("torch")
    from pecl_detect import DDPGExplorer

    rng = np.random.default_rng(2)
    a = DDPGExplorer(
        warmup=10, batch_size=8, lr_actor=0.01, generator=torch.Generator().manual_seed(0)
    )
    for _ in range(30):
        a.store(rng.uniform(size=8), int(rng.integers(2)), float(rng.choice([-1, 1])),
                rng.uniform(size=8))  # fmt: skip
        a.update()
    path = tmp_path / "explorer.pt"
    a.save(path)
    b = DDPGExplorer(generator=torch.Generator().manual_seed(99)).load(path)
    assert (b.warmup, b.batch_size, b.lr_actor, b.n_updates, len(b)) == (
        10,
        8,
        0.01,
        a.n_updates,
        30,
    )
    s = rng.uniform(size=8)
    assert np.array_equal(a.probs(s), b.probs(s))
    # same buffer, optimiser and generator state: the next updates and samples agree bit for bit
    assert a.update() == b.update()
    assert [a.act(s) for _ in range(20)] == [b.act(s) for _ in range(20)]
    for pa, pb in zip(a.state_dict().values(), b.state_dict().values(), strict=True):
        assert torch.equal(pa, pb)
    with pytest.raises(ValueError, match="hidden"):
        DDPGExplorer(hidden=8).load(path)
    (tmp_path / "junk.pt").write_text("not a checkpoint")
    with pytest.raises(ValueError, match="path"):
        b.load(tmp_path / "junk.pt")
    with pytest.raises(TypeError, match="path"):
        b.save(3)


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
