"""reproduce.py and bench.py run at a tiny scale and write valid JSON; with and without matplotlib."""

import sys
from pathlib import Path

import numpy as np
import pytest

from papershelf_harness.testing import check_scripts, load_script

REPRODUCE = Path(__file__).resolve().parents[1] / "reproduce.py"


def test_scripts(tmp_path):
    out = check_scripts(__file__, tmp_path, reproduce=["--quick"], bench=["--quick"])
    assert len(out["reproduce"]["claims"]) == 9
    assert all(len(r) == 4 for r in out["bench"]["rows"])


def test_reproduce_claim_functions_hold_at_small_scale(tmp_path):
    rep = load_script(REPRODUCE)
    rng = np.random.default_rng(0)
    assert rep.claim_latecomer(50, rng)["holds"]
    assert rep.claim_figure2()["holds"]
    rows = rep.claim_regions(6, 300, tmp_path / "r.png")
    assert rows[0]["holds"]


def test_reproduce_without_matplotlib(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib -> ImportError
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    rep = load_script(REPRODUCE)
    rows = rep.claim_regions(5, 200, tmp_path / "r.png")
    assert "no matplotlib" in rows[0]["note"] and not (tmp_path / "r.png").exists()
    import genai_pricing_game as gp

    with pytest.raises(ImportError, match=r"genai-pricing-game\[plot\]"):
        gp.plot_two_task_regions(path=tmp_path / "x.png")
    assert rep.claim_figure2()["holds"]
