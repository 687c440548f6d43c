"""The torch extra: SimVec, BoxEmbedding and train (skipped where torch is not installed)."""

from __future__ import annotations

import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import dag_sidigraph  # noqa: E402
from _reference import dfs_intervals  # noqa: E402
from dag_sidigraph import (  # noqa: E402
    PairSampler,
    auf1c,
    balanced_tree,
    best_f1,
    minimal_sidigraph,
)
from dag_sidigraph.models import BoxEmbedding, SimVec, TrainHistory, train  # noqa: E402

from papershelf_harness.testing import assert_rejects  # noqa: E402


def test_lazy_top_level_names():
    assert dag_sidigraph.BoxEmbedding is BoxEmbedding
    assert dag_sidigraph.SimVec is SimVec and dag_sidigraph.train is train


def test_box_probability_is_the_volume_ratio_in_the_hard_limit():
    m = BoxEmbedding(2, 2, volume_temp=1e-4, intersection_temp=1e-5)
    m.set_boxes(np.array([[0.0, 0.0], [0.25, 0.5]]), np.array([[0.5, 1.0], [0.75, 0.75]]))
    # B_1 = [0.25, 0.75] x [0.5, 0.75]; B_0 ∩ B_1 = [0.25, 0.5] x [0.5, 0.75]: half of B_1
    p = m.log_prob(torch.tensor([0, 1]), torch.tensor([1, 0])).exp()
    assert p[0].item() == pytest.approx(0.5, abs=1e-3)
    # P(1 -> 0) = |∩| / |B_0| = 0.0625 / 0.5
    assert p[1].item() == pytest.approx(0.125, abs=1e-3)


def test_nested_boxes_reproduce_the_tree():
    adj = balanced_tree(3, 3)
    lo, hi = dfs_intervals(adj)
    m = BoxEmbedding(len(adj), 1, volume_temp=1e-3, intersection_temp=1e-4)
    m.set_boxes(lo[:, None], hi[:, None])
    lp = m.log_prob_matrix().numpy()
    assert lp.shape == (40, 40) and np.all(lp <= 0)
    assert best_f1(lp, adj) == 1.0
    pos, neg = minimal_sidigraph(adj)
    assert np.exp(lp[pos[0], pos[1]]).min() > 0.99
    assert np.exp(lp[neg[0], neg[1]]).max() < 0.05


def test_simvec_log_prob_is_a_logsigmoid_of_the_dot_product():
    m = SimVec(5, 3, generator=torch.Generator().manual_seed(0))
    u, v = torch.tensor([0, 4, 2]), torch.tensor([1, 1, 3])
    want = torch.nn.functional.logsigmoid((m.source[u] * m.target[v]).sum(-1) + m.bias)
    torch.testing.assert_close(m.log_prob(u, v), want)
    torch.testing.assert_close(m(u, v), want)
    np.testing.assert_allclose(m.log_prob_matrix()[u, v].numpy(), want.detach().numpy(), rtol=1e-6)


def test_generator_makes_models_reproducible():
    a = BoxEmbedding(6, 4, generator=torch.Generator().manual_seed(3))
    b = BoxEmbedding(6, 4, generator=torch.Generator().manual_seed(3))
    torch.testing.assert_close(a.boxes()[0], b.boxes()[0])


def test_training_learns_a_small_tree():
    adj = balanced_tree(2, 3)
    torch.manual_seed(0)
    for model in (
        BoxEmbedding(15, 8, generator=torch.Generator().manual_seed(0)),
        SimVec(15, 8, generator=torch.Generator().manual_seed(0)),
    ):
        sampler = PairSampler(adj, positives="closure", negatives="all", k=4, batch_size=32, rng=0)
        hist = train(model, sampler, steps=300, lr=0.05, eval_every=100)
        assert isinstance(hist, TrainHistory)
        assert hist.examples.tolist() == [0, 16000, 32000, 48000]
        assert hist.f1[-1] > 0.9 and hist.f1[-1] > hist.f1[0]
        assert math.isnan(hist.loss[0]) and np.all(np.diff(hist.loss[1:]) < 0.1)
        assert 0 < auf1c(hist) <= 1


def test_train_and_model_bad_input():
    adj = balanced_tree(2, 2)
    sampler = PairSampler(adj)
    m = SimVec(7, 2)
    assert_rejects(ValueError, "sampler", train, SimVec(6, 2), sampler, steps=1)
    assert_rejects(TypeError, "model", train, object(), sampler)
    assert_rejects(TypeError, "sampler", train, m, [(0, 1)])
    assert_rejects(ValueError, "steps", train, m, sampler, steps=0)
    assert_rejects(TypeError, "steps", train, m, sampler, steps=1.5)
    assert_rejects(ValueError, "lr", train, m, sampler, steps=1, lr=-1.0)
    assert_rejects(ValueError, "lr", train, m, sampler, steps=1, lr=math.nan)
    assert_rejects(ValueError, "eval_every", train, m, sampler, steps=1, eval_every=0)
    assert_rejects(ValueError, "optimizer", train, m, sampler, steps=1, optimizer="lbfgs")
    assert_rejects(ValueError, "num_nodes", SimVec, 0, 2)
    assert_rejects(TypeError, "dim", SimVec, 3, 2.0)
    assert_rejects(ValueError, "dim", BoxEmbedding, 3, 0)
    assert_rejects(ValueError, "volume_temp", BoxEmbedding, 3, 2, volume_temp=0.0)
    assert_rejects(ValueError, "intersection_temp", BoxEmbedding, 3, 2, intersection_temp=-1.0)
    assert_rejects(TypeError, "init_side", BoxEmbedding, 3, 2, init_side=0.3)
    assert_rejects(ValueError, "init_side", BoxEmbedding, 3, 2, init_side=(0.5, 0.2))
    assert_rejects(TypeError, "generator", SimVec, 3, 2, generator=0)
    assert_rejects(ValueError, "u", m.log_prob, torch.tensor([7]), torch.tensor([0]))
    assert_rejects(TypeError, "v", m.log_prob, torch.tensor([0]), torch.tensor([0.5]))
    assert_rejects(ValueError, "v", m.log_prob, torch.tensor([0, 1]), torch.tensor([0]))
