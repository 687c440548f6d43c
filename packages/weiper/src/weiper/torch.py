"""Optional torch adapter (extra ``weiper[torch]``): features from a model, and a
pytorch-ood-style ``WeiPer`` detector.

``extract_features`` captures the input of the model's final linear layer (the penultimate
features z) with a forward pre-hook, so any ``nn.Module`` whose output is produced by an
``nn.Linear`` works without changes. Scoring itself is the numpy core.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import torch
from torch import nn

from papershelf_ood import energy, msp

from ._checks import check_option, check_tensor
from ._core import (
    WeiPerKLD,
    _block_mean,
    _features,
    _logit_blocks,
    _r_delta,
    perturb_class_projections,
)

__all__ = ["WeiPer", "extract_features", "final_linear", "linear_weights"]

_METHODS = ("kld", "msp", "energy")


def final_linear(model, layer=None) -> nn.Linear:
    """The final ``nn.Linear`` of ``model``: ``layer`` itself (a module or the name of a
    submodule), else ``model.fc`` when it is linear, else the last ``nn.Linear`` registered."""
    if not isinstance(model, nn.Module):
        raise TypeError(f"model must be a torch.nn.Module, got {type(model).__name__}")
    if isinstance(layer, str):
        found = dict(model.named_modules()).get(layer)
        if found is None:
            raise ValueError(f"layer {layer!r} is not a submodule name of the model")
        layer = found
    if layer is None:
        fc = getattr(model, "fc", None)
        if isinstance(fc, nn.Linear):
            return fc
        linears = [m for m in model.modules() if isinstance(m, nn.Linear)]
        if not linears:
            raise ValueError("model has no nn.Linear layer; pass layer=")
        return linears[-1]
    if not isinstance(layer, nn.Linear):
        raise TypeError(f"layer must be an nn.Linear, its name or None, got {type(layer).__name__}")
    return layer


def linear_weights(layer) -> tuple[np.ndarray, np.ndarray]:
    """``(W [C, D], b [C])`` of an ``nn.Linear`` as float64 numpy arrays (b zeros if absent)."""
    if not isinstance(layer, nn.Linear):
        raise TypeError(f"layer must be an nn.Linear, got {type(layer).__name__}")
    W = layer.weight.detach().cpu().double().numpy()
    b = (
        layer.bias.detach().cpu().double().numpy()
        if layer.bias is not None
        else np.zeros(W.shape[0])
    )
    return W, b


def _batches(data) -> Iterable[torch.Tensor]:
    if isinstance(data, torch.Tensor):
        yield check_tensor(data, "data", allow_empty=False, dtype="any")
        return
    if not isinstance(data, Iterable):
        raise TypeError(
            f"data must be a tensor or an iterable of batches, got {type(data).__name__}"
        )
    for batch in data:
        x = batch[0] if isinstance(batch, list | tuple) else batch
        yield check_tensor(x, "data", dtype="any")


@torch.no_grad()
def extract_features(model, data, *, layer=None, device=None):
    """Run ``model`` (eval mode, no grad) on ``data`` (a tensor, or an iterable of tensors or
    ``(x, y, ...)`` batches such as a DataLoader) and return ``(Z [n, D], logits [n, C])`` as
    float64 numpy arrays: Z is the input of the final linear layer (see :func:`final_linear`),
    logits the model's output."""
    fc = final_linear(model, layer)
    captured: list[torch.Tensor] = []
    handle = fc.register_forward_pre_hook(lambda _m, args: captured.append(args[0].detach()))
    was_training = model.training
    model.eval()
    outs: list[torch.Tensor] = []
    try:
        for x in _batches(data):
            outs.append(model(x.to(device) if device is not None else x).detach())
    finally:
        handle.remove()
        model.train(was_training)
    if not outs:
        raise ValueError("data must hold at least one batch")
    Z = torch.cat([z.reshape(z.shape[0], -1) for z in captured]).cpu().double().numpy()
    logits = torch.cat(outs).cpu().double().numpy()
    return Z, logits


class WeiPer:
    """A pytorch-ood style detector around a classifier. ``predict(x)`` returns *outlier*
    scores (higher = more likely OOD, pytorch-ood's convention: minus the weiper scores).

    ``method="kld"`` is :class:`weiper.WeiPerKLD` (needs :meth:`fit` on training data;
    ``kld_options`` are its hyper-parameters), ``"msp"``/``"energy"`` are MSP/energy in WeiPer
    space (no fit needed). ``W_tilde`` is drawn once from ``rng`` and reused.
    """

    def __init__(
        self, model, *, layer=None, method="kld", r=100, delta=1.8, rng=None, **kld_options
    ):
        self.model = model
        self.fc = final_linear(model, layer)
        self.method = check_option(method, "method", _METHODS)
        self.r, self.delta = _r_delta(r, delta)
        self.rng = rng
        self.W, self.b = linear_weights(self.fc)
        self.kld = WeiPerKLD(r=self.r, delta=self.delta, rng=rng, **kld_options)
        self._tilde = None

    def fit(self, data, *, device=None):
        """Fit on training inputs (a tensor or a DataLoader); returns self."""
        Z, _ = extract_features(self.model, data, layer=self.fc, device=device)
        return self.fit_features(Z)

    def fit_features(self, Z):
        """Fit on training features Z [n, D] (numpy or tensor); returns self."""
        Z = _as_numpy(Z, "Z")
        if self.method == "kld":
            self.kld.fit(Z, self.W, self.b)
            self._tilde = (self.kld.W_tilde_, self.kld.b_tilde_)
        return self

    def _projections(self):
        if self._tilde is None:
            if self.method == "kld":
                raise RuntimeError('method="kld" needs fit(...) or fit_features(...) first')
            self._tilde = perturb_class_projections(
                self.W, self.b, r=self.r, delta=self.delta, rng=self.rng
            )
        return self._tilde

    def score_features(self, Z) -> np.ndarray:
        """weiper scores [n] of features Z (higher = in-distribution), numpy."""
        W_tilde, b_tilde = self._projections()
        if self.method == "kld":
            return self.kld.score(_as_numpy(Z, "Z"))
        Z = _features(_as_numpy(Z, "Z"), "Z", self.W.shape[1])
        fn = msp if self.method == "msp" else energy
        return np.concatenate(
            [_block_mean(lg, self.r, fn) for _, _, lg in _logit_blocks(Z, W_tilde, b_tilde)]
        )

    def predict_features(self, Z) -> torch.Tensor:
        """Outlier scores (higher = OOD) of features Z, as a float64 tensor."""
        return torch.from_numpy(-self.score_features(Z))

    def predict(self, x, *, device=None) -> torch.Tensor:
        """Outlier scores (higher = OOD) of inputs x, as a float64 tensor."""
        Z, _ = extract_features(self.model, x, layer=self.fc, device=device)
        return self.predict_features(Z)

    def __call__(self, x) -> torch.Tensor:
        return self.predict(x)


def _as_numpy(Z, name: str):
    if isinstance(Z, torch.Tensor):
        return check_tensor(Z, name, ndim=2).detach().cpu().double().numpy()
    return Z
