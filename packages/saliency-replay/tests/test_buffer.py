"""The reservoir buffer against a reference Algorithm R and its inclusion probabilities."""

import numpy as np
import pytest
import saliency_replay as sr
import torch
from scipy.stats import chisquare


def _reference_reservoir(n_stream, size, gen):
    slots = []
    for n in range(n_stream):
        if n < size:
            slots.append(n)
        else:
            j = int(torch.randint(0, n + 1, (1,), generator=gen))
            if j < size:
                slots[j] = n
    return slots


def test_slots_follow_algorithm_r_exactly():
    buf = sr.ReservoirBuffer(7, generator=torch.Generator().manual_seed(3))
    x = torch.arange(40.0).view(40, 1)
    for s in range(0, 40, 6):  # batches of uneven size
        buf.add(x[s : s + 6], torch.arange(s, min(s + 6, 40)))
    ref = _reference_reservoir(40, 7, torch.Generator().manual_seed(3))
    assert buf.y.tolist() == ref
    assert buf.x[:, 0].tolist() == [float(r) for r in ref]
    assert len(buf) == 7 and buf.seen == 40


def test_each_sample_kept_with_probability_size_over_seen():
    runs, n, size = 2000, 30, 6
    counts = np.zeros(n)
    g = torch.Generator().manual_seed(0)
    x, y = torch.zeros(n, 1), torch.arange(n)
    for _ in range(runs):
        buf = sr.ReservoirBuffer(size, generator=g)
        buf.add(x, y)
        counts[buf.y.numpy()] += 1
    assert counts.sum() == runs * size
    assert chisquare(counts, np.full(n, runs * size / n)).pvalue > 0.01


def test_logits_task_ids_and_sampling():
    buf = sr.ReservoirBuffer(5, generator=torch.Generator().manual_seed(0))
    x = torch.randn(3, 2)
    logits = torch.randn(3, 4, requires_grad=True)
    buf.add(x, torch.tensor([0, 1, 2]), logits=logits, task_id=0)
    assert len(buf) == 3 and buf.seen == 3
    assert not buf.logits.requires_grad and torch.equal(buf.logits, logits.detach())
    assert buf.task_id.tolist() == [0, 0, 0]
    s = buf.sample(10)  # min(n, len) distinct samples
    assert sorted(s.y.tolist()) == [0, 1, 2]
    assert torch.equal(s.x[s.y.argsort()], x)
    assert torch.equal(s.logits[s.y.argsort()], logits.detach())
    a = buf.sample(2, generator=torch.Generator().manual_seed(5))
    b = buf.sample(2, generator=torch.Generator().manual_seed(5))
    assert torch.equal(a.y, b.y) and len(set(a.y.tolist())) == 2
    with pytest.raises(ValueError, match="logits"):
        buf.add(x, torch.tensor([0, 1, 2]), task_id=1)
    with pytest.raises(ValueError, match="empty"):
        sr.ReservoirBuffer(3).sample(1)
