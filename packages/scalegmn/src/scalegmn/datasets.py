"""Loaders for the paper's weight datasets from user-supplied local files (nothing is
downloaded).

- :func:`load_inr_dataset`: the DWS / NFN INR datasets (MNIST-, Fashion-MNIST-, CIFAR-10-INRs):
  a JSON splits file ``{"train": {"path": [...], "label": [...]}, "val": ..., "test": ...}``
  whose paths are ``torch.save``-d state dicts of SIRENs (``seq.0.weight`` [d_1, d_0],
  ``seq.0.bias`` [d_1], ...; weights and biases are taken in order, as the authors' loader
  does).
- :func:`load_cnn_zoo`: the Small CNN Zoo (Unterthiner et al., 2020; CIFAR-10-GS, SVHN-GS):
  ``weights.npy`` [N, P] (flattened TensorFlow parameters, one row per network),
  ``metrics.csv`` or ``metrics.csv.gz`` (one row per network, a ``test_accuracy`` column) and
  ``layout.csv`` (columns ``varname, start_idx, end_idx, shape``: where each variable lies in a
  row; ``.../kernel:0`` conv kernels [k_h, k_w, c_in, c_out] or dense kernels [d_in, d_out],
  ``.../bias:0``). Parameters come back in this package's layout (conv [N, c_out, c_in, k_h,
  k_w], linear [N, d_out, d_in]).

Malformed files raise ``ValueError`` naming the file and the field.
"""

from __future__ import annotations

import ast
import csv
import gzip
import io
import json
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from ._checks import check_int, check_option, describe

__all__ = ["CNNZooDataset", "INRDataset", "load_cnn_zoo", "load_inr_dataset"]

SPLITS = ("train", "val", "test")


@dataclass(frozen=True)
class INRDataset:
    """INRs of one split: ``weights[l]`` [N, d_l, d_{l-1}], ``biases[l]`` [N, d_l], integer
    ``labels`` [N], the state-dict ``paths`` and ``layer_dims``."""

    weights: list[torch.Tensor]
    biases: list[torch.Tensor]
    labels: torch.Tensor
    paths: tuple[str, ...]
    layer_dims: tuple[int, ...]

    def __len__(self) -> int:
        return int(self.labels.shape[0])


@dataclass(frozen=True)
class CNNZooDataset:
    """CNNs of a CNN zoo: ``weights`` (conv [N, c_out, c_in, k_h, k_w], then linear [N, d_out,
    d_in]), ``biases``, ``test_accuracy`` [N] (float64), and every column of the metrics file
    as a tuple of strings (``metrics["config.activation"]`` and the like), ``layer_dims``."""

    weights: list[torch.Tensor]
    biases: list[torch.Tensor]
    test_accuracy: torch.Tensor
    metrics: dict[str, tuple[str, ...]]
    layer_dims: tuple[int, ...]

    def __len__(self) -> int:
        return int(self.test_accuracy.shape[0])


def _path(value, name):
    if not isinstance(value, str | Path):
        raise TypeError(f"{name} must be a path (str or pathlib.Path), got {describe(value)}")
    return Path(value)


def _existing(path, name):
    if not path.is_file():
        raise ValueError(f"{name}: no such file {str(path)!r}")
    return path


# ------------------------------------------------------------------------------------- INRs


def load_inr_dataset(splits_path, *, split="train", root=None) -> INRDataset:
    """Load one ``split`` ("train", "val" or "test") of an INR dataset from its JSON splits
    file. Relative state-dict paths are resolved against ``root`` (default: the splits
    file's directory). Every INR must have the same layout."""
    splits_path = _existing(_path(splits_path, "splits_path"), "splits_path")
    check_option(split, "split", SPLITS)
    root = splits_path.parent if root is None else _path(root, "root")
    where = str(splits_path)
    try:
        doc = json.loads(splits_path.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise ValueError(f"{where}: not a JSON file ({err})") from None
    if not isinstance(doc, dict) or split not in doc:
        keys = sorted(doc) if isinstance(doc, dict) else describe(doc)
        raise ValueError(f"{where}: no split {split!r} (found {keys})")
    entry = doc[split]
    for field in ("path", "label"):
        if not isinstance(entry, dict) or not isinstance(entry.get(field), list):
            raise ValueError(f"{where}: field {split}.{field} must be a list")
    paths, labels = entry["path"], entry["label"]
    if len(paths) != len(labels):
        raise ValueError(
            f"{where}: {split}.path has {len(paths)} entries but {split}.label has {len(labels)}"
        )
    if not paths:
        raise ValueError(f"{where}: split {split!r} is empty")
    for i, lab in enumerate(labels):
        if isinstance(lab, bool) or not isinstance(lab, int) or lab < 0:
            raise ValueError(f"{where}: {split}.label[{i}] must be an integer >= 0, got {lab!r}")
    ws_all, bs_all, dims, resolved = [], [], None, []
    for i, p in enumerate(paths):
        if not isinstance(p, str):
            raise ValueError(f"{where}: {split}.path[{i}] must be a string, got {p!r}")
        file = Path(p) if Path(p).is_absolute() else root / p
        if not file.is_file():
            raise ValueError(f"{where}: {split}.path[{i}]: no such file {str(file)!r}")
        ws, bs = _read_state_dict(file)
        d = (ws[0].shape[1], *(w.shape[0] for w in ws))
        if dims is None:
            dims = d
        elif d != dims:
            raise ValueError(
                f"{file}: layout {list(d)} differs from the first INR's {list(dims)} "
                f"({split}.path[{i}])"
            )
        ws_all.append(ws)
        bs_all.append(bs)
        resolved.append(str(file))
    L = len(dims) - 1
    return INRDataset(
        [torch.stack([ws[l] for ws in ws_all]) for l in range(L)],
        [torch.stack([bs[l] for bs in bs_all]) for l in range(L)],
        torch.tensor(labels, dtype=torch.int64),
        tuple(resolved),
        dims,
    )


def _read_state_dict(file):
    try:
        sd = torch.load(file, map_location="cpu", weights_only=True)
    except Exception as err:
        raise ValueError(f"{file}: not a readable torch state dict ({err})") from None
    if not isinstance(sd, dict):
        raise ValueError(f"{file}: expected a state dict (dict of tensors), got {describe(sd)}")
    ws, bs = [], []
    for key, v in sd.items():
        kind = "weight" if "weight" in key else "bias" if "bias" in key else None
        if kind is None:
            continue
        if not isinstance(v, torch.Tensor) or not v.is_floating_point():
            raise ValueError(f"{file}: field {key!r} must be a floating tensor, got {describe(v)}")
        if not bool(torch.isfinite(v).all()):
            raise ValueError(f"{file}: field {key!r} holds NaN or inf")
        want = 2 if kind == "weight" else 1
        if v.ndim != want:
            raise ValueError(f"{file}: field {key!r} must be {want}-D, got shape {tuple(v.shape)}")
        (ws if kind == "weight" else bs).append((key, v))
    if not ws or len(ws) != len(bs):
        raise ValueError(
            f"{file}: expected one bias per weight, got {len(ws)} weights and {len(bs)} biases"
        )
    for i, ((kw, w), (kb, b)) in enumerate(zip(ws, bs, strict=True)):
        if b.shape[0] != w.shape[0]:
            raise ValueError(
                f"{file}: field {kb!r} has {b.shape[0]} entries but {kw!r} has {w.shape[0]} rows"
            )
        if i > 0 and w.shape[1] != ws[i - 1][1].shape[0]:
            raise ValueError(
                f"{file}: field {kw!r} has {w.shape[1]} columns but {ws[i - 1][0]!r} has "
                f"{ws[i - 1][1].shape[0]} rows"
            )
    return [w for _, w in ws], [b for _, b in bs]


# -------------------------------------------------------------------------------- CNN zoo


def _read_csv(file):
    raw = file.read_bytes()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise ValueError(f"{file}: not a UTF-8 CSV file ({err})") from None
    rows = list(csv.reader(io.StringIO(text)))
    if not rows:
        raise ValueError(f"{file}: empty CSV file")
    header = rows[0]
    body = [r for r in rows[1:] if r]
    for i, r in enumerate(body):
        if len(r) != len(header):
            raise ValueError(
                f"{file}: row {i + 1} has {len(r)} fields but the header has {len(header)}"
            )
    return header, body


def _column(file, header, body, name):
    if name not in header:
        raise ValueError(f"{file}: missing column {name!r} (found {header})")
    j = header.index(name)
    return [r[j] for r in body]


def _ints(file, values, field):
    out = []
    for i, v in enumerate(values):
        try:
            out.append(int(v))
        except ValueError:
            raise ValueError(
                f"{file}: field {field} in row {i + 1} must be an integer, got {v!r}"
            ) from None
    return out


def _metrics_file(directory, metrics):
    if metrics is not None:
        return _existing(_path(metrics, "metrics"), "metrics")
    for name in ("metrics.csv.gz", "metrics.csv"):
        if (directory / name).is_file():
            return directory / name
    raise ValueError(f"directory: no metrics.csv.gz or metrics.csv in {str(directory)!r}")


def load_cnn_zoo(
    directory, *, weights=None, metrics=None, layout=None, step=None, activation=None
) -> CNNZooDataset:
    """Load a Small-CNN-Zoo-format dataset from ``directory`` (``weights.npy``,
    ``metrics.csv[.gz]``, ``layout.csv``; each can be given as its own path). ``step``
    (int) keeps only the rows whose ``step`` column equals it (the authors use the final
    checkpoint, step 86 in CIFAR-10-GS); ``activation`` (e.g. "relu", "tanh") keeps the rows
    whose ``config.activation`` column equals it."""
    directory = _path(directory, "directory")
    if not directory.is_dir():
        raise ValueError(f"directory: no such directory {str(directory)!r}")
    wfile = _existing(
        directory / "weights.npy" if weights is None else _path(weights, "weights"), "weights"
    )
    mfile = _metrics_file(directory, metrics)
    lfile = _existing(
        directory / "layout.csv" if layout is None else _path(layout, "layout"), "layout"
    )
    if step is not None:
        step = check_int(step, "step", minimum=0)
    if activation is not None and not isinstance(activation, str):
        raise TypeError(f"activation must be a string or None, got {describe(activation)}")
    try:
        data = np.load(wfile, allow_pickle=False)
    except Exception as err:
        raise ValueError(f"{wfile}: not a readable .npy array ({err})") from None
    if data.ndim != 2 or not np.issubdtype(data.dtype, np.floating):
        raise ValueError(
            f"{wfile}: expected a 2-D float array [networks, parameters], got {data.dtype} "
            f"shape {data.shape}"
        )
    header, body = _read_csv(mfile)
    if len(body) != data.shape[0]:
        raise ValueError(f"{mfile}: {len(body)} rows but {wfile} holds {data.shape[0]} networks")
    acc = []
    for i, v in enumerate(_column(mfile, header, body, "test_accuracy")):
        try:
            a = float(v)
        except ValueError:
            a = math.nan
        if not (0.0 <= a <= 1.0):
            raise ValueError(
                f"{mfile}: field test_accuracy in row {i + 1} must be a number in [0, 1], got {v!r}"
            )
        acc.append(a)
    keep = np.ones(len(body), dtype=bool)
    if step is not None:
        keep &= np.array(_ints(mfile, _column(mfile, header, body, "step"), "step")) == step
    if activation is not None:
        keep &= np.array(_column(mfile, header, body, "config.activation")) == activation
    if not keep.any():
        raise ValueError(
            f"{mfile}: no rows left after filtering (step={step!r}, activation={activation!r})"
        )
    rows = data[keep]
    if not np.isfinite(rows).all():
        bad = int(np.flatnonzero(~np.isfinite(rows).all(axis=1))[0])
        raise ValueError(f"{wfile}: network {bad} (after filtering) holds NaN or inf")
    lheader, lbody = _read_csv(lfile)
    names = _column(lfile, lheader, lbody, "varname")
    starts = _ints(lfile, _column(lfile, lheader, lbody, "start_idx"), "start_idx")
    ends = _ints(lfile, _column(lfile, lheader, lbody, "end_idx"), "end_idx")
    shapes = _column(lfile, lheader, lbody, "shape")
    ws, bs = [], []
    for i, (name, a, b, sh) in enumerate(zip(names, starts, ends, shapes, strict=True)):
        try:
            shape = tuple(ast.literal_eval(sh))
            if not all(isinstance(s, int) and s > 0 for s in shape):
                raise ValueError
        except (ValueError, SyntaxError, TypeError):
            raise ValueError(
                f"{lfile}: field shape in row {i + 1} must be a tuple of positive ints, got {sh!r}"
            ) from None
        if not (0 <= a < b <= data.shape[1]) or b - a != math.prod(shape):
            raise ValueError(
                f"{lfile}: row {i + 1} ({name}): start_idx {a} / end_idx {b} do not hold "
                f"shape {shape} inside rows of {data.shape[1]} parameters"
            )
        arr = torch.from_numpy(np.ascontiguousarray(rows[:, a:b])).reshape(-1, *shape)
        if name.endswith("kernel:0"):
            if arr.ndim == 5:  # [N, k_h, k_w, c_in, c_out] -> [N, c_out, c_in, k_h, k_w]
                arr = arr.permute(0, 4, 3, 1, 2)
            elif arr.ndim == 3:  # [N, d_in, d_out] -> [N, d_out, d_in]
                arr = arr.transpose(1, 2)
            else:
                raise ValueError(
                    f"{lfile}: field shape in row {i + 1} ({name}) must be 4-D (conv) or 2-D "
                    f"(dense), got {shape}"
                )
            ws.append(arr.contiguous())
        elif name.endswith("bias:0"):
            if arr.ndim != 2:
                raise ValueError(
                    f"{lfile}: field shape in row {i + 1} ({name}) must be 1-D, got {shape}"
                )
            bs.append(arr.contiguous())
        else:
            raise ValueError(
                f"{lfile}: field varname in row {i + 1} must end with kernel:0 or bias:0, "
                f"got {name!r}"
            )
    from .cnn import check_cnn

    try:
        ws, bs, _, dims = check_cnn(ws, bs)
    except (TypeError, ValueError) as err:
        raise ValueError(f"{lfile}: the layout does not describe a CNN ({err})") from None
    kept = np.flatnonzero(keep)
    return CNNZooDataset(
        ws,
        bs,
        torch.tensor(acc, dtype=torch.float64)[torch.from_numpy(kept)],
        {h: tuple(r[j] for r in (body[k] for k in kept)) for j, h in enumerate(header)},
        tuple(int(d) for d in dims),
    )
