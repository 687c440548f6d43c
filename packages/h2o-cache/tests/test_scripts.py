"""reproduce.py and bench.py run at a tiny scale (the shared smoke test), plus the checks
specific to this package's scripts."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from papershelf_harness.testing import check_scripts, load_script

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_scripts(tmp_path, monkeypatch):
    monkeypatch.setenv("PAPERSHELF_TINYLM_CACHE", str(tmp_path / "tinylm"))
    res = check_scripts(
        __file__, tmp_path, reproduce=["--quick", "--threads", "1"], bench=["--quick"]
    )
    claims = res["reproduce"]["claims"]
    assert len(claims) == 7
    mask_row = next(c for c in claims if c["claim"].startswith("mask mode"))
    assert mask_row["holds"] is True  # exactness does not depend on training
    rows = res["bench"]["rows"]
    assert len(rows) == 3 and all(r[4].endswith("x") for r in rows)


def test_marker_batch_layout():
    rep = load_script(ROOT / "reproduce.py")
    ids, tgt = rep.marker_batch_v2(np.random.default_rng(0), 4, 128)
    assert ids.shape == tgt.shape == (4, 128)
    for row, t in zip(ids, tgt):
        assert row[0] in rep.HEADERS
        marks = row == rep.MARKER
        assert marks.sum() > 3 and np.all(t[marks] == row[0])  # a marker's target is the header
        assert not np.isin(row[1:], rep.HEADERS).any()  # the header is never repeated in the input
        assert np.all(t[:-1][~marks[:-1]] == row[1:][~marks[:-1]]) and t[-1] == -100
