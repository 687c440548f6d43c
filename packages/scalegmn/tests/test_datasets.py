"""Loaders on synthetic files in the DWS/NFN INR and Small CNN Zoo formats: values recovered
exactly (the CNN zoo's TensorFlow layout is written here by numpy transposes), malformed
records rejected with a ValueError naming the file and the field."""

import csv
import gzip
import json

import numpy as np
import pytest
import scalegmn as S
import torch
from conftest import gen
from scalegmn.datasets import load_cnn_zoo, load_inr_dataset

INR_DIMS = (2, 4, 3, 1)


def _state_dict(seed, dims=INR_DIMS):
    g = gen(seed)
    sd = {}
    for i in range(1, len(dims)):
        sd[f"seq.{i - 1}.weight"] = torch.randn(dims[i], dims[i - 1], generator=g)
        sd[f"seq.{i - 1}.bias"] = torch.randn(dims[i], generator=g)
    return sd


def write_inr_dataset(tmp_path, n=5, *, edit=None):
    root = tmp_path / "inrs"
    root.mkdir()
    paths, sds = [], []
    for k in range(n):
        sd = _state_dict(k)
        p = root / f"img_{k}" / "model_final.pth"
        p.parent.mkdir()
        if edit is not None and k == 2:
            sd = edit(sd)
        torch.save(sd, p)
        paths.append(str(p.relative_to(tmp_path)))
        sds.append(sd)
    labels = [k % 3 for k in range(n)]
    doc = {
        "train": {"path": paths[:3], "label": labels[:3]},
        "test": {"path": paths[3:], "label": labels[3:]},
    }
    splits = tmp_path / "splits.json"
    splits.write_text(json.dumps(doc))
    return splits, sds, labels


def test_inr_dataset_roundtrip(tmp_path):
    splits, sds, labels = write_inr_dataset(tmp_path)
    tr = load_inr_dataset(splits)
    te = load_inr_dataset(splits, split="test")
    assert len(tr) == 3 and len(te) == 2 and tr.layer_dims == INR_DIMS
    assert tr.labels.tolist() == labels[:3] and te.labels.tolist() == labels[3:]
    for k in range(3):
        assert torch.equal(tr.weights[1][k], sds[k]["seq.1.weight"])
        assert torch.equal(tr.biases[2][k], sds[k]["seq.2.bias"])
    assert tr.paths[0].endswith("img_0/model_final.pth")
    # usable as-is by the model
    m = S.ScaleGMN(INR_DIMS, out_dim=3, d_hidden=4, num_layers=1)
    assert m(tr.weights, tr.biases).shape == (3, 3)


@pytest.mark.parametrize(
    ("edit", "match"),
    [
        (lambda sd: {**sd, "seq.1.weight": torch.zeros(3, 5)}, "seq.1.weight"),
        (lambda sd: {**sd, "seq.0.bias": torch.tensor([1.0, float("nan"), 0, 0])}, "seq.0.bias"),
        (lambda sd: {**sd, "seq.2.bias": torch.zeros(2)}, "seq.2.bias"),
        (lambda sd: {**sd, "seq.0.weight": torch.zeros(4, 2, 1)}, "seq.0.weight"),
        (lambda sd: _state_dict(0, (2, 5, 3, 1)), "layout"),
        (lambda sd: [1, 2], "state dict"),
    ],
)
def test_inr_dataset_malformed_state_dict(tmp_path, edit, match):
    splits, _, _ = write_inr_dataset(tmp_path, edit=edit)
    with pytest.raises(ValueError, match=match) as err:
        load_inr_dataset(splits)
    assert "img_2" in str(err.value)  # names the file


@pytest.mark.parametrize(
    ("doc", "match"),
    [
        ({"test": {}}, "no split 'train'"),
        ({"train": {"path": ["a"]}}, "train.label"),
        ({"train": {"path": ["a", "b"], "label": [0]}}, "train.label has 1"),
        ({"train": {"path": ["inrs/x.pth"], "label": [-1]}}, r"train.label\[0\]"),
        ({"train": {"path": ["inrs/x.pth"], "label": [0]}}, r"train.path\[0\]"),
        ({"train": {"path": [], "label": []}}, "empty"),
    ],
)
def test_inr_dataset_malformed_splits(tmp_path, doc, match):
    splits = tmp_path / "splits.json"
    splits.write_text(json.dumps(doc))
    with pytest.raises(ValueError, match=match) as err:
        load_inr_dataset(splits)
    assert "splits.json" in str(err.value)
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(ValueError, match="bad.json"):
        load_inr_dataset(bad)
    with pytest.raises(ValueError, match="split"):
        load_inr_dataset(splits, split="validation")
    with pytest.raises(TypeError, match="splits_path"):
        load_inr_dataset(3)


# ---------------------------------------------------------------------------------- CNN zoo

CONV = [(4, 1, 3, 3), (5, 4, 3, 3)]
DENSE = [(3, 5)]


def write_cnn_zoo(tmp_path, n=6, *, gz=True, layout_rows=None, metric_rows=None, data=None):
    """Torch-layout parameters, written the way the Small CNN Zoo stores them (TensorFlow
    kernels [k_h, k_w, c_in, c_out] / [d_in, d_out], flattened row-major, one row per net)."""
    g = gen(5)
    ws = [torch.randn(n, *s, generator=g, dtype=torch.float64) for s in CONV + DENSE]
    bs = [torch.randn(n, s[0], generator=g, dtype=torch.float64) for s in CONV + DENSE]
    blocks, layout, start = [], [], 0
    names = ["sequential/conv2d", "sequential/conv2d_1", "sequential/dense"]
    for name, w, b in zip(names, ws, bs, strict=True):
        a = w.numpy()
        tf = a.transpose(0, 3, 4, 2, 1) if a.ndim == 5 else a.transpose(0, 2, 1)
        for var, arr in ((f"{name}/kernel:0", tf), (f"{name}/bias:0", b.numpy())):
            flat = arr.reshape(n, -1)
            layout.append([var, start, start + flat.shape[1], flat.shape[1], str(arr.shape[1:])])
            blocks.append(flat)
            start += flat.shape[1]
    np.save(tmp_path / "weights.npy", np.concatenate(blocks, axis=1) if data is None else data)
    header = ["varname", "start_idx", "end_idx", "size", "shape"]
    with open(tmp_path / "layout.csv", "w", newline="") as f:
        csv.writer(f).writerows([header, *(layout_rows or layout)])
    acc = torch.rand(n, generator=g).tolist()
    rows = [["step", "test_accuracy", "config.activation"]] + [
        [str(86 if k % 2 else 40), f"{acc[k]!r}", "relu" if k < 4 else "tanh"] for k in range(n)
    ]
    text = "\n".join(",".join(r) for r in (metric_rows or rows)) + "\n"
    if gz:
        (tmp_path / "metrics.csv.gz").write_bytes(gzip.compress(text.encode()))
    else:
        (tmp_path / "metrics.csv").write_text(text)
    return ws, bs, acc, layout


def test_cnn_zoo_roundtrip(tmp_path):
    ws, bs, acc, _ = write_cnn_zoo(tmp_path)
    z = load_cnn_zoo(tmp_path)
    assert len(z) == 6 and z.layer_dims == (1, 4, 5, 3)
    for a, b in zip(z.weights + z.biases, ws + bs, strict=True):
        assert torch.equal(a, b)
    assert z.test_accuracy.tolist() == acc
    assert z.metrics["config.activation"][4] == "tanh"
    f = load_cnn_zoo(tmp_path, step=86, activation="relu")  # rows 1 and 3
    assert len(f) == 2 and torch.equal(f.weights[1], ws[1][[1, 3]])
    assert f.test_accuracy.tolist() == [acc[1], acc[3]] and f.metrics["step"] == ("86", "86")
    # the loaded CNNs feed the model and keep the function the original parameters had
    x = torch.rand(2, 1, 6, 6, dtype=torch.float64, generator=gen(0))
    assert torch.equal(S.forward_cnn(z.weights, z.biases, x), S.forward_cnn(ws, bs, x))
    m = S.ScaleGMN(z.layer_dims, out_dim=1, d_hidden=4, num_layers=1, kernel_size=3)
    assert m(z.weights, z.biases).shape == (6, 1)


def test_cnn_zoo_plain_csv_and_explicit_paths(tmp_path):
    write_cnn_zoo(tmp_path, gz=False)
    z = load_cnn_zoo(
        tmp_path,
        weights=tmp_path / "weights.npy",
        metrics=tmp_path / "metrics.csv",
        layout=str(tmp_path / "layout.csv"),
    )
    assert len(z) == 6


def _layout_edit(i, col, value):
    def edit(layout):
        rows = [list(r) for r in layout]
        rows[i][col] = value
        return rows

    return edit


@pytest.mark.parametrize(
    ("kind", "edit", "match"),
    [
        ("layout", _layout_edit(0, 4, "(3, x)"), "layout.csv: field shape in row 1"),
        ("layout", _layout_edit(1, 2, 9999), "layout.csv: row 2"),
        ("layout", _layout_edit(2, 0, "sequential/conv2d_1/gamma:0"), "field varname in row 3"),
        ("layout", _layout_edit(3, 1, "abc"), "field start_idx in row 4"),
        ("metrics", lambda rows: rows[:-1], "metrics.csv.gz: 5 rows"),
        (
            "metrics",
            lambda rows: [rows[0], *rows[1:3], ["86", "1.7", "relu"], *rows[4:]],
            "field test_accuracy in row 3",
        ),
        (
            "metrics",
            lambda rows: [["step", "acc", "x"], *rows[1:]],
            "missing column 'test_accuracy'",
        ),
        ("metrics", lambda rows: [rows[0], ["86", "0.5"], *rows[2:]], "row 1 has 2 fields"),
    ],
)
def test_cnn_zoo_malformed(tmp_path, kind, edit, match):
    _, _, acc, layout = write_cnn_zoo(tmp_path)
    if kind == "layout":
        write_cnn_zoo(tmp_path, layout_rows=edit(layout))
    else:
        rows = [["step", "test_accuracy", "config.activation"]] + [
            [str(86 if k % 2 else 40), repr(acc[k]), "relu"] for k in range(6)
        ]
        write_cnn_zoo(tmp_path, metric_rows=edit(rows))
    with pytest.raises(ValueError, match=match):
        load_cnn_zoo(tmp_path)


def test_cnn_zoo_bad_arrays_and_arguments(tmp_path):
    _, _, _, layout = write_cnn_zoo(tmp_path)
    good = np.load(tmp_path / "weights.npy")
    bad = good.copy()
    bad[2, 5] = np.nan
    write_cnn_zoo(tmp_path, data=bad)
    with pytest.raises(ValueError, match="weights.npy: network 2"):
        load_cnn_zoo(tmp_path)
    write_cnn_zoo(tmp_path, data=good[0])
    with pytest.raises(ValueError, match="weights.npy: expected a 2-D"):
        load_cnn_zoo(tmp_path)
    write_cnn_zoo(tmp_path)
    with pytest.raises(ValueError, match="no rows left"):
        load_cnn_zoo(tmp_path, activation="gelu")
    with pytest.raises(ValueError, match="directory"):
        load_cnn_zoo(tmp_path / "missing")
    with pytest.raises(TypeError, match="directory"):
        load_cnn_zoo(None)
    with pytest.raises(ValueError, match="step"):
        load_cnn_zoo(tmp_path, step=-1)
    with pytest.raises(TypeError, match="activation"):
        load_cnn_zoo(tmp_path, activation=1)
    (tmp_path / "metrics.csv.gz").unlink()
    with pytest.raises(ValueError, match="metrics.csv"):
        load_cnn_zoo(tmp_path)
