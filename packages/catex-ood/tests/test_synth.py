"""OutlierSynthesizer against brute-force k-NN and the anchor rule."""

import catex_ood as cx
import numpy as np
import pytest
import torch

from papershelf_harness.testing import assert_close


def _gen(seed=0):
    return torch.Generator().manual_seed(seed)


def _clusters(n_per=40, C=3, d=6, seed=0):
    g = _gen(seed)
    centres = torch.nn.functional.normalize(torch.randn(C, d, generator=g), dim=1)
    x = centres.repeat_interleave(n_per, 0) + 0.15 * torch.randn(C * n_per, d, generator=g)
    return x, torch.arange(C).repeat_interleave(n_per), centres


def _kth_np(x, ref, k):
    out = []
    for row in x:
        d = sorted(np.linalg.norm(ref - row, axis=1))
        out.append(d[k - 1])
    return np.array(out)


def test_kth_nn_distance_brute_force():
    x, _, _ = _clusters()
    assert_close(cx.kth_nn_distance(x[:10], x, 5), _kth_np(x[:10].numpy(), x.numpy(), 5), atol=1e-5)


def test_fifo_and_ready():
    s = cx.OutlierSynthesizer(2, queue_size=3, k=2, select=1)
    f = torch.arange(10.0).reshape(5, 2)
    s.update(f, torch.tensor([0, 0, 1, 0, 0]))
    assert not s.ready()
    assert torch.equal(s.queue(0), f[[0, 1, 3, 4]][-3:])
    s.update(f[:3] + 100, torch.tensor([1, 1, 1]))
    assert s.ready()
    assert torch.equal(s.queue(1), f[:3] + 100)  # the oldest class-1 row left
    with pytest.raises(ValueError, match="labels"):
        s.update(f, torch.tensor([0, 1, 2, 0, 0]))
    with pytest.raises(ValueError, match="feats"):
        s.update(torch.zeros(2, 3), torch.tensor([0, 1]))


def test_sample_is_the_boundary_point():
    """With select=1 and a tiny sigma, the outlier is the normalised queue point of largest
    in-class k-NN distance (brute force)."""
    x, y, _ = _clusters()
    s = cx.OutlierSynthesizer(
        3, queue_size=40, k=7, select=1, n_candidates=5, sigma=1e-7, generator=_gen(1)
    )
    s.update(x, y)
    feats, labels = s.sample()
    assert labels.tolist() == [0, 1, 2] and feats.shape == (3, 6)
    assert_close(feats.norm(dim=1), torch.ones(3), atol=1e-6)
    for c in range(3):
        q = torch.nn.functional.normalize(x[y == c], dim=1).numpy()
        best = q[np.argmax(_kth_np(q, q, 7))]
        assert_close(feats[c], best, atol=1e-5)


def test_farthest_candidate_wins_and_outliers_are_far():
    x, y, _ = _clusters(n_per=60)
    s = cx.OutlierSynthesizer(
        3, queue_size=60, k=10, select=10, n_candidates=200, sigma=0.3, generator=_gen(2)
    )
    s.update(x, y)
    feats, labels = s.sample()
    xn = torch.nn.functional.normalize(x, dim=1)
    for o, c in zip(feats, labels):
        q = xn[y == c]
        id_kd = _kth_np(q.numpy(), q.numpy(), 10)
        o_kd = _kth_np(o[None].numpy(), q.numpy(), 10)[0]
        assert o_kd > np.percentile(id_kd, 90)


def test_anchor_rule():
    x, y, centres = _clusters()
    s = cx.OutlierSynthesizer(
        3, queue_size=40, k=5, select=5, n_candidates=300, sigma=0.5, generator=_gen(3)
    )
    s.update(x, y)
    T = centres.clone()
    T_pert = torch.nn.functional.normalize(centres + torch.randn(3, 6, generator=_gen(4)), dim=1)
    feats, labels = s.sample((T, T_pert))
    assert len(labels) >= 1
    for o, c in zip(feats, labels):
        assert float(o @ T_pert[c]) > float(o @ T[c])
    none_f, none_l = s.sample((T, T.clone()))  # cos(o, T) > cos(o, T) never holds
    assert none_l.numel() == 0 and none_f.shape == (0, 6)


def test_not_ready_classes_give_nothing():
    x, y, _ = _clusters()
    s = cx.OutlierSynthesizer(4, queue_size=40, k=5, select=5, n_candidates=10)
    assert s.sample()[1].numel() == 0
    s.update(x, y)  # class 3 has no features
    assert not s.ready()
    assert s.sample()[1].tolist() == [0, 1, 2]


def test_options_validated():
    with pytest.raises(ValueError, match="k"):
        cx.OutlierSynthesizer(2, queue_size=10, k=11)
    with pytest.raises(ValueError, match="select"):
        cx.OutlierSynthesizer(2, queue_size=10, k=5, select=11)
    s = cx.OutlierSynthesizer(2)
    assert (s.queue_size, s.k, s.select, s.n_candidates, s.sigma) == (1200, 400, 300, 1000, 0.1)
