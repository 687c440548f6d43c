"""bench.py and reproduce.py run (tiny configurations), so they cannot rot."""

import importlib.util
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _load(name):
    spec = importlib.util.spec_from_file_location(name, ROOT / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_bench_quick(tmp_path):
    bench = _load("bench")
    assert bench.main(["--quick", "--json", str(tmp_path / "b.json")]) == 0
    out = json.loads((tmp_path / "b.json").read_text())
    assert out["rows"] and len(out["columns"]) == len(out["rows"][0])


def test_reproduce_claims_run(tmp_path):
    rep = _load("reproduce")
    assert rep.main(["--trials", "2", "--json", str(tmp_path / "r.json")]) == 0
    out = json.loads((tmp_path / "r.json").read_text())
    assert {"claim", "paper", "measured", "holds", "note"} <= set(out["claims"][0])
    assert len(out["claims"]) >= 10
    assert out["claims"][0]["holds"] is True  # exact k-means++ bound on small instances
