"""train_scorer: MSE updates, gradient accumulation, the schedule and reproducibility."""

import copy

import numpy as np
import pytest
import torch
from cappy_scorer import train_scorer

from papershelf_harness.testing import assert_close

PAIRS = [
    ("the cat", "sat on the mat", 1.0),
    ("the cat", "no", 0.0),
    ("a dog", "ran fast", 1.0),
    ("a dog", "maybe", 0.0),
    ("yes", "yes", 0.8),
    ("copy this", "copy this", 1.0),
    ("copy this", "copy", 0.5),
]


def params(s):
    return torch.cat([p.detach().flatten() for p in s.model.parameters()])


def test_first_loss_is_mse_of_the_untrained_scorer(make_scorer):
    s = make_scorer(seed=1)
    before = s.score([p[0] for p in PAIRS], [p[1] for p in PAIRS])
    mse = np.mean((before - np.array([p[2] for p in PAIRS])) ** 2)
    losses = train_scorer(s, PAIRS, lr=1e-3, batch_size=len(PAIRS), grad_accum=1)
    assert losses.shape == (1,) and losses.dtype == np.float64
    assert losses[0] == pytest.approx(mse, rel=1e-5)


def test_accumulation_equals_one_big_batch(make_scorer):
    g = lambda: torch.Generator().manual_seed(0)  # noqa: E731
    a, b, c = make_scorer(seed=2), make_scorer(seed=2), make_scorer(seed=2)
    la = train_scorer(a, PAIRS * 2, lr=1e-3, batch_size=2, grad_accum=4, generator=g())
    lb = train_scorer(b, PAIRS * 2, lr=1e-3, batch_size=8, grad_accum=1, generator=g())
    assert len(la) == len(lb) == 2  # 14 pairs: updates of 8 and 6 pairs
    assert_close(la, lb, rtol=1e-5)
    assert_close(params(a), params(b), rtol=1e-4, atol=1e-6)
    # a different accumulation changes the updates: the comparison above can fail
    lc = train_scorer(c, PAIRS * 2, lr=1e-3, batch_size=2, grad_accum=1, generator=g())
    assert len(lc) == 7


def test_number_of_updates_and_learning(make_scorer):
    s = make_scorer(seed=3)
    losses = train_scorer(s, PAIRS, lr=3e-3, epochs=40, batch_size=4, grad_accum=1, warmup=0.1)
    assert len(losses) == 40 * 2
    assert losses[-10:].mean() < 0.2 * losses[:2].mean()
    got = s.score([p[0] for p in PAIRS], [p[1] for p in PAIRS])
    assert np.abs(got - np.array([p[2] for p in PAIRS])).max() < 0.25


def test_generator_makes_training_reproducible_and_leaves_global_rng(make_scorer):
    cfg_dropout = make_scorer(seed=4)
    for m in cfg_dropout.model.modules():
        if isinstance(m, torch.nn.Dropout):
            m.p = 0.3
    a, b = copy.deepcopy(cfg_dropout), copy.deepcopy(cfg_dropout)
    state = torch.random.get_rng_state()
    train_scorer(a, PAIRS, lr=1e-3, batch_size=3, generator=torch.Generator().manual_seed(5))
    assert torch.equal(torch.random.get_rng_state(), state)
    train_scorer(b, PAIRS, lr=1e-3, batch_size=3, generator=torch.Generator().manual_seed(5))
    assert torch.equal(params(a), params(b))
    assert not a.model.training  # eval mode (from_config) is restored


def test_zero_lr_schedule_start_is_avoided(make_scorer):
    # one update with warm-up still moves the weights (the schedule never multiplies by 0)
    s = make_scorer(seed=6)
    before = params(s).clone()
    train_scorer(s, PAIRS, lr=1e-3, batch_size=8, warmup=1.0)
    assert not torch.equal(before, params(s))
