"""bench.py and reproduce.py run (tiny configurations)."""

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
    assert data["rows"] and len(data["rows"][0]) == len(data["columns"])


def test_reproduce_claims_tiny():
    rows = _load("reproduce").claims(full=False, tiny=True)
    assert len(rows) == 7
    for r in rows:
        assert set(r) == {"claim", "paper", "measured", "holds", "note"}
    # near-optimality holds even at n = 200 (the DP-SGD gain, 4x there, grows with n)
    assert rows[1]["holds"] and rows[3]["holds"]
