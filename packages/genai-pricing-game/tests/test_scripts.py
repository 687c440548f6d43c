"""bench.py and reproduce.py run (tiny configurations), with and without matplotlib."""

import importlib.util
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _load(name):
    spec = importlib.util.spec_from_file_location(f"_gp_{name}", ROOT / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_bench_quick(tmp_path):
    bench = _load("bench")
    assert bench.main(["--quick", "--json", str(tmp_path / "b.json")]) == 0
    out = json.loads((tmp_path / "b.json").read_text())
    assert out["rows"] and all(len(r) == 4 for r in out["rows"])


def test_reproduce_claim_functions_run(tmp_path):
    import numpy as np

    rep = _load("reproduce")
    rng = np.random.default_rng(0)
    assert rep.claim_latecomer(50, rng)["holds"]
    assert rep.claim_figure2()["holds"]
    rows = rep.claim_regions(6, 300, tmp_path / "r.png")
    assert rows[0]["holds"]


def test_reproduce_without_matplotlib(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib -> ImportError
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    rep = _load("reproduce")
    rows = rep.claim_regions(5, 200, tmp_path / "r.png")
    assert "no matplotlib" in rows[0]["note"] and not (tmp_path / "r.png").exists()
    import genai_pricing_game as gp

    with pytest.raises(ImportError, match=r"genai-pricing-game\[plot\]"):
        gp.plot_two_task_regions(path=tmp_path / "x.png")
    assert rep.claim_figure2()["holds"]
