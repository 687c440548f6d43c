"""Own data in one call: a ``[T, C]`` array in, the next ``pred_len`` steps out."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from ._checks import check_float, check_generator, check_int, describe
from ._validation import check_series
from .data import StandardScaler, sliding_windows
from .model import SOFTS
from .train import FitResult, fit, predict

__all__ = ["Forecast", "forecast"]


@dataclass(frozen=True)
class Forecast:
    """``values [pred_len, C]`` on the scale of the input, with the trained model and scaler."""

    values: np.ndarray
    model: nn.Module
    scaler: StandardScaler
    fit: FitResult


def forecast(
    series,
    pred_len: int,
    *,
    seq_len: int = 96,
    model: nn.Module | None = None,
    val_fraction: float = 0.1,
    epochs: int = 10,
    lr: float = 3e-4,
    batch_size: int = 32,
    generator: torch.Generator | None = None,
) -> Forecast:
    """Train on ``series [T, C]`` (array or numeric DataFrame) and forecast the next ``pred_len``.

    The series is standardised with the statistics of its first ``1 - val_fraction`` rows; the
    last ``val_fraction`` of the rows is the validation part for early stopping (patience 3).
    ``model`` defaults to ``SOFTS(seq_len, pred_len, d_model=128, d_core=64, d_ff=128,
    e_layers=2)`` (the authors' ETT settings); any module mapping ``[B, seq_len, C]`` to
    ``[B, pred_len, C]`` works. The forecast starts right after the last row.
    """
    arr = check_series(series, "series", ndim=2)
    pred_len = check_int(pred_len, "pred_len", minimum=1)
    seq_len = check_int(seq_len, "seq_len", minimum=1)
    val_fraction = check_float(val_fraction, "val_fraction", minimum=0.0, maximum=0.5)
    generator = check_generator(generator)
    if model is not None and not isinstance(model, nn.Module):
        raise TypeError(f"model must be a torch.nn.Module or None, got {describe(model)}")
    T = arr.shape[0]
    n_val = int(round(T * val_fraction))
    n_train = T - n_val
    if n_train < seq_len + pred_len:
        raise ValueError(
            f"series must have at least seq_len + pred_len = {seq_len + pred_len} training rows "
            f"(T * (1 - val_fraction)), got {n_train}"
        )
    scaler = StandardScaler().fit(arr[:n_train])
    z = scaler.transform(arr)
    train = sliding_windows(z[:n_train], seq_len, pred_len)
    val = None
    if n_val >= pred_len:
        val = sliding_windows(z[n_train - seq_len :], seq_len, pred_len)
    if model is None:
        model = SOFTS(seq_len, pred_len, d_model=128, d_core=64, d_ff=128, e_layers=2)
    result = fit(
        model, train, val, epochs=epochs, lr=lr, batch_size=batch_size, generator=generator
    )
    out = predict(model, z[None, -seq_len:])[0]
    if out.shape != (pred_len, arr.shape[1]):
        raise ValueError(
            f"model must map [B, {seq_len}, C] to [B, {pred_len}, C], got output {out.shape}"
        )
    return Forecast(values=scaler.inverse_transform(out), model=model, scaler=scaler, fit=result)
