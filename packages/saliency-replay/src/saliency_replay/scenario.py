"""Class-incremental splits and the continual-learning metrics."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ._checks import check_array, check_int, check_tensor, describe


class Task(NamedTuple):
    """One task of a split: its samples and its (sorted) classes."""

    x: object
    y: object
    classes: tuple[int, ...]


def _is_tensor(v):
    return type(v).__module__.startswith("torch") and hasattr(v, "detach")


def split_dataset(X, y, *, n_tasks, classes_per_task=None):
    """Split ``(X, y)`` into ``n_tasks`` class-disjoint tasks: task ``t`` holds the samples of the
    sorted classes ``t*k .. (t+1)*k - 1`` (``k = classes_per_task``, default
    ``n_classes // n_tasks``, which must then divide evenly). ``X``/``y``: numpy arrays or torch
    tensors (kept as given). Returns a list of :class:`Task` ``(x, y, classes)``; ``classes``
    is the task-IL mask."""
    if _is_tensor(X):
        check_tensor(X, "X", dtype="any")
        n = X.shape[0] if X.ndim else 0
    else:
        Xa = check_array(X, "X", dtype="any")
        if Xa.ndim == 0:
            raise ValueError(f"X must have a sample axis, got shape {Xa.shape}")
        n = Xa.shape[0]
    if _is_tensor(y):
        check_tensor(y, "y", ndim=1, dtype="integer")
        ya = y.detach().cpu().numpy()
    else:
        ya = check_array(y, "y", ndim=1, dtype="int")
    if ya.shape[0] != n:
        raise ValueError(f"y must have one label per sample of X ({n}), got {ya.shape[0]}")
    n_tasks = check_int(n_tasks, "n_tasks", minimum=1)
    classes = np.unique(ya)
    if classes_per_task is None:
        if len(classes) % n_tasks:
            raise ValueError(
                f"n_tasks must divide the {len(classes)} classes when classes_per_task is None, "
                f"got {n_tasks}"
            )
        k = len(classes) // n_tasks
    else:
        k = check_int(classes_per_task, "classes_per_task", minimum=1)
        if k * n_tasks > len(classes):
            raise ValueError(
                f"classes_per_task * n_tasks must be at most the {len(classes)} classes, "
                f"got {k} * {n_tasks}"
            )
    if len(classes) < n_tasks:
        raise ValueError(f"n_tasks must be at most the {len(classes)} classes, got {n_tasks}")
    X_in = X if _is_tensor(X) else np.asarray(X)
    y_in = y if _is_tensor(y) else np.asarray(ya)
    tasks = []
    for t in range(n_tasks):
        cls = classes[t * k : (t + 1) * k]
        idx = np.flatnonzero(np.isin(ya, cls))
        if _is_tensor(X_in) or _is_tensor(y_in):
            import torch

            tidx = torch.as_tensor(idx, dtype=torch.long)
        xi = X_in[tidx.to(X_in.device)] if _is_tensor(X_in) else X_in[idx]
        yi = y_in[tidx.to(y_in.device)] if _is_tensor(y_in) else y_in[idx]
        tasks.append(Task(xi, yi, tuple(int(c) for c in cls)))
    return tasks


def _check_acc(acc):
    a = check_array(acc, "acc", ndim=2)
    if a.shape[0] != a.shape[1]:
        raise ValueError(
            f"acc must be square [T, T] (acc[i, j]: task j after task i), got {a.shape}"
        )
    return a


def average_accuracy(acc):
    """Final average accuracy: the mean of the last row of the accuracy matrix ``acc[i, j]``
    (accuracy on task ``j`` after training on task ``i``)."""
    a = _check_acc(acc)
    return float(a[-1].mean())


def forgetting(acc):
    """Mean over tasks ``j < T-1`` of ``max_{l >= j} acc[l, j] - acc[T-1, j]`` (the maximum runs
    over rows ``j .. T-1``, as the issue writes it). Needs ``T >= 2``."""
    a = _check_acc(acc)
    T = a.shape[0]
    if T < 2:
        raise ValueError(f"acc must cover at least 2 tasks for forgetting, got shape {a.shape}")
    return float(np.mean([a[j:, j].max() - a[T - 1, j] for j in range(T - 1)]))


def accuracy(learner, x, y, *, classes=None, batch_size=512):
    """Accuracy of ``learner.logits`` on ``(x, y)`` (torch tensors); ``classes`` restricts the
    argmax to those classes (task-IL)."""
    import torch

    if not hasattr(learner, "logits"):
        raise TypeError(f"learner must have a logits(x) method, got {describe(learner)}")
    check_tensor(x, "x", ndim=4)
    check_tensor(y, "y", ndim=1, dtype="integer")
    if y.shape[0] != x.shape[0]:
        raise ValueError(f"y must have length {x.shape[0]}, got {y.shape[0]}")
    bs = check_int(batch_size, "batch_size", minimum=1)
    if classes is not None:
        classes = check_array(classes, "classes", ndim=1, dtype="int")
        if classes.min() < 0:
            raise ValueError(f"classes must be non-negative class indices, got {classes.min()}")
    correct = 0
    for i in range(0, x.shape[0], bs):
        out = learner.logits(x[i : i + bs])
        if classes is not None:
            if classes.max() >= out.shape[1]:
                raise ValueError(
                    f"classes must be below the {out.shape[1]} outputs, got {classes.max()}"
                )
            keep = torch.full((out.shape[1],), float("-inf"))
            keep[torch.as_tensor(classes)] = 0.0
            out = out + keep
        correct += int((out.argmax(1) == y[i : i + bs]).sum())
    return correct / x.shape[0]


def run_stream(learner, train_tasks, test_tasks, *, batch_size=8, saliency=None, generator=None):
    """Train ``learner`` online (one pass, batches of ``batch_size`` in a shuffled order) over
    ``train_tasks`` and return the accuracy matrix ``acc[i, j]`` (task ``j``'s test accuracy
    after task ``i``, class-IL) as a numpy array. ``saliency``: a callable ``x -> target maps``
    for a :class:`SER` learner (``observe(x, y, saliency(x))``); ``None`` calls
    ``observe(x, y)``. ``end_task()`` is called after each task."""
    import torch

    from ._checks import check_callable, check_generator

    bs = check_int(batch_size, "batch_size", minimum=1)
    generator = check_generator(generator)
    if saliency is not None:
        check_callable(saliency, "saliency")
    for name, tasks in (("train_tasks", train_tasks), ("test_tasks", test_tasks)):
        if isinstance(tasks, str | bytes) or not hasattr(tasks, "__len__") or not len(tasks):
            raise TypeError(
                f"{name} must be a non-empty list of (x, y) tasks, got {describe(tasks)}"
            )
    if len(train_tasks) != len(test_tasks):
        raise ValueError(
            f"test_tasks must have one task per train task ({len(train_tasks)}), got {len(test_tasks)}"
        )
    T = len(train_tasks)
    acc = np.zeros((T, T))
    for i, task in enumerate(train_tasks):
        x, y = task[0], task[1]
        order = torch.randperm(x.shape[0], generator=generator)
        for s in range(0, x.shape[0], bs):
            idx = order[s : s + bs]
            xb, yb = x[idx], y[idx]
            if saliency is None:
                learner.observe(xb, yb)
            else:
                learner.observe(xb, yb, saliency(xb))
        learner.end_task()
        for j, test in enumerate(test_tasks):
            acc[i, j] = accuracy(learner, test[0], test[1])
    return acc
