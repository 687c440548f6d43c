"""The attribution task: a model, a per-example loss, checkpoints and the attributed parameters."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import torch
from torch.func import grad, vmap

from ._checks import check_callable, check_int, describe
from ._validation import as_batches

__all__ = ["AttributionTask"]


def _load(ckpt: Any, i: int) -> Mapping[str, torch.Tensor]:
    if isinstance(ckpt, str | os.PathLike):
        ckpt = torch.load(ckpt, map_location="cpu", weights_only=True)
    if not isinstance(ckpt, Mapping):
        raise TypeError(
            f"checkpoints must be None, a state_dict (name -> tensor), a path or a list of "
            f"them; checkpoint {i} is {describe(ckpt)}"
        )
    for k, v in ckpt.items():
        if not isinstance(k, str) or not isinstance(v, torch.Tensor):
            raise TypeError(
                f"checkpoints: checkpoint {i} must map parameter names to tensors, "
                f"got {k!r} -> {describe(v)}"
            )
    return ckpt


class AttributionTask:
    """What to attribute: ``loss_func(params, (x, y))``, the model, its checkpoints, the layers.

    Parameters
    ----------
    loss_func
        ``loss_func(params, batch)`` returns the loss of ONE example as a one-element tensor.
        ``params`` is a ``name -> tensor`` dict of the model's parameters for
        ``torch.func.functional_call(model, params, x)`` (dattri's convention); ``batch`` is
        the tuple of the example's tensors, each with a leading batch dimension of size 1 (the
        same shapes dattri passes, so a loss written for a mini-batch works unchanged). If
        ``loss_func`` raises on that, the examples are passed without the batch dimension
        instead (the ``torch.func`` per-sample-gradient tutorial's convention), decided once on
        the first example. The package vmaps it over the examples of a batch.
    model
        The ``torch.nn.Module`` that ``loss_func`` evaluates. Put in ``eval()`` mode here.
    checkpoints
        ``None`` (the model's current weights, read when attributing), a ``state_dict``, a
        path to one (``torch.load``), or a list of them. Buffers in a checkpoint (e.g.
        BatchNorm statistics) are copied into the model before that checkpoint is used.
    layers
        ``None`` (every parameter with ``requires_grad``) or parameter names (a str or a list),
        the parameters attributed; a module name such as ``"fc"`` selects all its parameters.
        The others are held fixed.
    """

    def __init__(
        self,
        loss_func: Callable,
        model: torch.nn.Module,
        *,
        checkpoints: Any = None,
        layers: str | Sequence[str] | None = None,
    ) -> None:
        self.loss_func = check_callable(loss_func, "loss_func")
        if not isinstance(model, torch.nn.Module):
            raise TypeError(f"model must be a torch.nn.Module, got {describe(model)}")
        self.model = model
        self._unbatched: bool | None = None  # how examples reach loss_func (see _probe)
        model.eval()
        names = [n for n, p in model.named_parameters() if p.requires_grad]
        if not names:
            raise ValueError("model must have at least one parameter with requires_grad")
        self._all_names = names
        self._buffer_names = {n for n, _ in model.named_buffers()}
        self.param_names = self._select_layers(layers, names)
        self.layers = None if layers is None else list(self.param_names)
        shapes = dict(model.named_parameters())
        self._shapes = {n: tuple(shapes[n].shape) for n in self.param_names}
        self.n_params = int(sum(shapes[n].numel() for n in self.param_names))
        if checkpoints is None:
            self._checkpoints: list[Mapping[str, torch.Tensor]] | None = None
        else:
            items = list(checkpoints) if isinstance(checkpoints, list | tuple) else [checkpoints]
            if not items:
                raise ValueError("checkpoints must not be an empty list (use None)")
            self._checkpoints = [self._check_ckpt(_load(c, i), i) for i, c in enumerate(items)]

    # -- set-up ------------------------------------------------------------------------------
    @staticmethod
    def _select_layers(layers: Any, names: list[str]) -> list[str]:
        if layers is None:
            return list(names)
        if isinstance(layers, str):
            layers = [layers]
        if not isinstance(layers, list | tuple) or not all(isinstance(s, str) for s in layers):
            raise TypeError(
                f"layers must be None, a parameter name or a list of names, got {describe(layers)}"
            )
        if not layers:
            raise ValueError("layers must name at least one parameter, got an empty list")
        chosen: set[str] = set()
        for s in layers:
            hit = [n for n in names if n == s or n.startswith(s + ".")]
            if not hit:
                raise ValueError(
                    f"layers: {s!r} is not a trainable parameter or module of the model; "
                    f"parameters are {names}"
                )
            chosen.update(hit)
        return [n for n in names if n in chosen]

    def _check_ckpt(self, ckpt: Mapping[str, torch.Tensor], i: int) -> dict:
        cur = dict(self.model.named_parameters())
        out = {}
        for n in self._all_names:
            if n not in ckpt:
                raise ValueError(f"checkpoints: checkpoint {i} lacks the parameter {n!r}")
            if tuple(ckpt[n].shape) != tuple(cur[n].shape):
                raise ValueError(
                    f"checkpoints: checkpoint {i} has {n!r} of shape {tuple(ckpt[n].shape)}, "
                    f"the model has {tuple(cur[n].shape)}"
                )
            if ckpt[n].is_floating_point() and not bool(torch.isfinite(ckpt[n]).all()):
                raise ValueError(f"checkpoints: checkpoint {i} has NaN or inf in {n!r}")
            out[n] = ckpt[n]
        for n in self._buffer_names:
            if n in ckpt:
                out[n] = ckpt[n]
        return out

    # -- public helpers ----------------------------------------------------------------------
    @property
    def n_checkpoints(self) -> int:
        """How many checkpoints the task averages over (1 when ``checkpoints`` is None)."""
        return 1 if self._checkpoints is None else len(self._checkpoints)

    def params(self, checkpoint: int = 0) -> dict[str, torch.Tensor]:
        """The ``name -> tensor`` dict (detached) of every parameter at ``checkpoint``."""
        k = check_int(checkpoint, "checkpoint", minimum=0, maximum=self.n_checkpoints - 1)
        cur = dict(self.model.named_parameters())
        if self._checkpoints is None:
            return {n: cur[n].detach() for n in self._all_names}
        ck = self._checkpoints[k]
        with torch.no_grad():
            bufs = dict(self.model.named_buffers())
            for n in self._buffer_names:
                if n in ck:
                    bufs[n].copy_(ck[n])
        return {
            n: ck[n].detach().to(device=cur[n].device, dtype=cur[n].dtype) for n in self._all_names
        }

    def flat_params(self, checkpoint: int = 0) -> torch.Tensor:
        """The attributed parameters at ``checkpoint`` as one flat vector (``param_names`` order)."""
        p = self.params(checkpoint)
        return torch.cat([p[n].reshape(-1) for n in self.param_names])

    def _unflatten(self, theta: torch.Tensor) -> dict[str, torch.Tensor]:
        out, i = {}, 0
        for n in self.param_names:
            size = 1
            for s in self._shapes[n]:
                size *= s
            out[n] = theta[i : i + size].reshape(self._shapes[n])
            i += size
        return out

    def _probe(self, full: dict, batch: tuple) -> None:
        """Decide once how an example is passed: with a leading batch dimension of 1 (dattri's
        convention, tried first) or, if ``loss_func`` fails on that, without one."""
        if self._unbatched is not None:
            return
        first = tuple(t[:1] for t in batch)
        try:
            with torch.no_grad():
                self.loss_func(dict(full), first)
            self._unbatched = False
        except Exception as batched_error:
            try:
                with torch.no_grad():
                    self.loss_func(dict(full), tuple(t[0] for t in batch))
            except Exception:
                raise batched_error from None
            self._unbatched = True

    def _example_loss(self, full: dict, theta: torch.Tensor, example: tuple) -> torch.Tensor:
        params = dict(full)
        params.update(self._unflatten(theta))
        if not self._unbatched:
            example = tuple(t.unsqueeze(0) for t in example)
        out = self.loss_func(params, example)
        if not isinstance(out, torch.Tensor):
            raise TypeError(f"loss_func must return a tensor, got {describe(out)}")
        if out.numel() != 1:
            raise ValueError(
                f"loss_func must return the loss of one example (one element), got shape "
                f"{tuple(out.shape)}"
            )
        return out.reshape(())

    def _batch_losses(self, full: dict, theta: torch.Tensor, batch: tuple) -> torch.Tensor:
        self._probe(full, batch)
        return vmap(lambda *ex: self._example_loss(full, theta, ex), randomness="different")(*batch)

    def _grads_and_losses(
        self, full: dict, theta: torch.Tensor, batch: tuple
    ) -> tuple[torch.Tensor, torch.Tensor]:
        self._probe(full, batch)

        def f(th, *ex):
            loss = self._example_loss(full, th, ex)
            return loss, loss.detach()

        g, loss = vmap(
            grad(f, has_aux=True), in_dims=(None, *([0] * len(batch))), randomness="different"
        )(theta, *batch)
        return g.detach(), loss.detach()

    def per_sample_grads(self, batch: Any, *, checkpoint: int = 0) -> torch.Tensor:
        """Per-example gradients ``[n, n_params]`` of ``loss_func`` w.r.t. the attributed
        parameters at ``checkpoint`` (``batch``: a loader, a list of batches or one (x, y))."""
        full = self.params(checkpoint)
        theta = torch.cat([full[n].reshape(-1) for n in self.param_names])
        return torch.cat(
            [self._grads_and_losses(full, theta, b)[0] for b in as_batches(batch, "batch")]
        )

    def losses(self, batch: Any, *, checkpoint: int = 0) -> torch.Tensor:
        """Per-example losses ``[n]`` at ``checkpoint``."""
        full = self.params(checkpoint)
        theta = torch.cat([full[n].reshape(-1) for n in self.param_names])
        with torch.no_grad():
            return torch.cat(
                [self._batch_losses(full, theta, b) for b in as_batches(batch, "batch")]
            )

    def __repr__(self) -> str:
        return (
            f"AttributionTask(n_params={self.n_params}, checkpoints={self.n_checkpoints}, "
            f"layers={self.layers})"
        )
