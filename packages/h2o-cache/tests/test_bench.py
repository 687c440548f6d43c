"""bench.py and reproduce.py run (tiny configurations) so they cannot rot."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _load(name):
    spec = importlib.util.spec_from_file_location(f"h2o_{name}", ROOT / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


def test_bench_quick(tmp_path):
    bench = _load("bench")
    out = tmp_path / "b.json"
    assert bench.main(["--quick", "--json", str(out)]) == 0
    res = json.loads(out.read_text())
    assert res["package"] == "h2o-cache" and len(res["rows"]) == 3
    assert all(r[4].endswith("x") for r in res["rows"])


@pytest.mark.slow
def test_reproduce_claims_run_on_a_tiny_config(tmp_path, monkeypatch):
    pytest.importorskip("papershelf_tinylm")
    monkeypatch.setenv("PAPERSHELF_TINYLM_CACHE", str(tmp_path / "cache"))
    rep = _load("reproduce")
    rows = rep.claims(False, n_seqs=2, steps=2)
    assert len(rows) == 7
    assert {"claim", "paper", "measured", "holds", "note"} <= set(rows[0])
    mask_row = next(r for r in rows if r["claim"].startswith("mask mode"))
    assert mask_row["holds"] is True  # exactness does not depend on training


def test_marker_batch_layout():
    pytest.importorskip("papershelf_tinylm")
    import numpy as np

    rep = _load("reproduce")
    ids, tgt = rep.marker_batch_v2(np.random.default_rng(0), 4, 128)
    assert ids.shape == tgt.shape == (4, 128)
    for row, t in zip(ids, tgt):
        assert row[0] in rep.HEADERS
        marks = row == rep.MARKER
        assert marks.sum() > 3 and np.all(t[marks] == row[0])  # a marker's target is the header
        assert not np.isin(row[1:], rep.HEADERS).any()  # the header is never repeated in the input
        assert np.all(t[:-1][~marks[:-1]] == row[1:][~marks[:-1]]) and t[-1] == -100
