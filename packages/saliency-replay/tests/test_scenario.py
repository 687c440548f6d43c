"""Splits and continual-learning metrics against hand-computed values."""

import numpy as np
import pytest
import saliency_replay as sr
import torch

ACC = np.array([[0.9, 0.0, 0.0], [0.6, 0.8, 0.0], [0.5, 0.7, 0.95]])


def test_average_accuracy_and_forgetting_by_hand():
    assert sr.average_accuracy(ACC) == pytest.approx((0.5 + 0.7 + 0.95) / 3)
    # task 0: max(0.9, 0.6, 0.5) - 0.5 = 0.4; task 1: max(0.8, 0.7) - 0.7 = 0.1
    assert sr.forgetting(ACC) == pytest.approx(0.25)
    acc = np.array([[0.5, 0.0], [0.8, 0.9]])  # later improvement: max over l >= j
    assert sr.forgetting(acc) == pytest.approx(0.0)
    with pytest.raises(ValueError, match="acc"):
        sr.forgetting([[1.0]])


def test_split_dataset_numpy_and_torch():
    y = np.array([3, 0, 1, 2, 5, 4, 0, 3, 5])
    X = np.arange(9.0)[:, None] * np.ones((1, 2))
    tasks = sr.split_dataset(X, y, n_tasks=3)
    assert [t.classes for t in tasks] == [(0, 1), (2, 3), (4, 5)]
    for t in tasks:
        keep = np.isin(y, t.classes)
        assert np.array_equal(t.y, y[keep]) and np.array_equal(t.x, X[keep])
    two = sr.split_dataset(torch.tensor(X), torch.tensor(y), n_tasks=2, classes_per_task=2)
    assert [t.classes for t in two] == [(0, 1), (2, 3)]
    assert isinstance(two[0].x, torch.Tensor) and two[1].y.tolist() == [3, 2, 3]
    with pytest.raises(ValueError, match="n_tasks"):
        sr.split_dataset(X, y, n_tasks=4)


class _Fixed:
    """A learner predicting a fixed class: accuracy is the share of that class."""

    def __init__(self):
        self.seen = []

    def observe(self, x, y):
        self.seen.append(len(y))

    def end_task(self):
        pass

    def logits(self, x):
        out = torch.zeros(x.shape[0], 4)
        out[:, 1] = 1.0
        return out


def test_run_stream_and_accuracy():
    x = torch.zeros(10, 1, 2, 2)
    y = torch.tensor([0, 1, 1, 0, 2, 3, 3, 2, 2, 1])
    learner = _Fixed()
    tasks = sr.split_dataset(x, y, n_tasks=2)
    acc = sr.run_stream(learner, tasks, tasks, batch_size=3)
    assert learner.seen == [3, 2, 3, 2]  # 5 samples per task, batches of 3
    assert np.allclose(acc, [[3 / 5, 0.0], [3 / 5, 0.0]])
    # task-IL masking: restricted to task 1's classes {2, 3}, argmax falls on class 2
    assert sr.accuracy(learner, tasks[1].x, tasks[1].y, classes=(2, 3)) == pytest.approx(3 / 5)
