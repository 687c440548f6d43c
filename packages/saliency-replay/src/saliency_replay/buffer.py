"""A reservoir-sampling replay buffer (Vitter's Algorithm R, one decision per sample)."""

from __future__ import annotations

from typing import NamedTuple

import torch

from ._checks import check_generator, check_int, check_tensor, describe


class BufferSample(NamedTuple):
    """A batch drawn from a :class:`ReservoirBuffer`; ``logits``/``task_id`` are ``None`` when
    the buffer does not store them."""

    x: torch.Tensor
    y: torch.Tensor
    logits: torch.Tensor | None
    task_id: torch.Tensor | None


class ReservoirBuffer:
    """Fixed-size memory filled by reservoir sampling: after ``seen`` stream samples each one is
    held with probability ``size / seen``.

    ``add(x, y, *, logits=None, task_id=None)`` offers each row of the batch in turn (sample
    ``n`` of the stream fills slot ``n`` while the buffer is not full, then replaces slot
    ``j ~ U{0..n}`` when ``j < size``). ``logits`` are stored detached (DER/DER++); ``task_id``
    is an int or a per-sample integer tensor. Storing logits or task ids is decided by the
    first ``add`` and must stay the same afterwards. ``sample(n)`` draws ``min(n, len)``
    distinct stored samples uniformly (the Mammoth convention while the buffer fills up).
    """

    def __init__(self, size, *, generator=None):
        self.size = check_int(size, "size", minimum=1)
        self.generator = check_generator(generator)
        self.seen = 0
        self._x = self._y = self._logits = self._task = None

    def __len__(self):
        return min(self.seen, self.size)

    def _filled(self, store):
        return None if store is None else store[: len(self)]

    x = property(lambda self: self._filled(self._x), doc="The stored inputs [len, ...].")
    y = property(lambda self: self._filled(self._y), doc="The stored labels [len].")
    logits = property(lambda self: self._filled(self._logits), doc="Stored logits or None.")
    task_id = property(lambda self: self._filled(self._task), doc="Stored task ids or None.")

    def _alloc(self, like, n_extra_shape, dtype):
        return torch.zeros((self.size, *n_extra_shape), dtype=dtype, device=like.device)

    def add(self, x, y, *, logits=None, task_id=None):
        check_tensor(x, "x", ndim=(1, 2, 3, 4, 5))
        b = x.shape[0]
        check_tensor(y, "y", ndim=1, dtype="integer")
        if y.shape[0] != b:
            raise ValueError(f"y must have one label per sample ({b}), got {y.shape[0]}")
        if logits is not None:
            check_tensor(logits, "logits", ndim=2)
            if logits.shape[0] != b:
                raise ValueError(
                    f"logits must have one row per sample ({b}), got {logits.shape[0]}"
                )
        if task_id is not None:
            if isinstance(task_id, torch.Tensor):
                check_tensor(task_id, "task_id", ndim=1, dtype="integer")
                if task_id.shape[0] != b:
                    raise ValueError(f"task_id must have length {b}, got {task_id.shape[0]}")
                if bool((task_id < 0).any()):
                    raise ValueError("task_id must be non-negative")
            else:
                task_id = torch.full((b,), check_int(task_id, "task_id", minimum=0))
        if self._x is None:
            self._x = self._alloc(x, x.shape[1:], x.dtype)
            self._y = self._alloc(x, (), y.dtype)
            if logits is not None:
                self._logits = self._alloc(x, logits.shape[1:], logits.dtype)
            if task_id is not None:
                self._task = self._alloc(x, (), torch.int64)
        else:
            if tuple(x.shape[1:]) != tuple(self._x.shape[1:]):
                raise ValueError(
                    f"x must have sample shape {tuple(self._x.shape[1:])}, got {tuple(x.shape[1:])}"
                )
            for name, given, stored in (
                ("logits", logits, self._logits),
                ("task_id", task_id, self._task),
            ):
                if (given is None) != (stored is None):
                    raise ValueError(
                        f"{name} must be given on every add or on none (first add decided), "
                        f"got {describe(given)}"
                    )
            if logits is not None and logits.shape[1:] != self._logits.shape[1:]:
                raise ValueError(
                    f"logits must have {self._logits.shape[1]} columns, got {logits.shape[1]}"
                )
        for i in range(b):
            if self.seen < self.size:
                j = self.seen
            else:
                j = int(torch.randint(0, self.seen + 1, (1,), generator=self.generator))
            self.seen += 1
            if j < self.size:
                self._x[j] = x[i].detach()
                self._y[j] = y[i]
                if logits is not None:
                    self._logits[j] = logits[i].detach()
                if task_id is not None:
                    self._task[j] = task_id[i]

    def sample(self, n, *, generator=None):
        n = check_int(n, "n", minimum=1)
        generator = check_generator(generator)
        if len(self) == 0:
            raise ValueError("sample: the buffer is empty (add samples first)")
        g = self.generator if generator is None else generator
        m = min(n, len(self))
        idx = torch.randperm(len(self), generator=g)[:m].to(self._x.device)
        return BufferSample(
            self._x[idx],
            self._y[idx],
            None if self._logits is None else self._logits[idx],
            None if self._task is None else self._task[idx],
        )
