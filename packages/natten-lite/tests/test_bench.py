"""bench.py --quick runs and writes its JSON (performance itself is never asserted in tests)."""

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
    data = json.loads((tmp_path / "b.json").read_text())
    assert data["package"] == "natten-lite" and len(data["rows"]) == 2


def test_reproduce_claims_run_small():
    rep = _load("reproduce")
    sem = rep._semantics(3)
    assert sem["holds"] is True
    sims = rep._simulation()
    assert all(r["holds"] for r in sims), sims
