"""bench.py runs (quick config) and writes its JSON."""

import importlib.util
import json
from pathlib import Path


def test_bench_quick(tmp_path):
    spec = importlib.util.spec_from_file_location(
        "dp_robust_bench", Path(__file__).resolve().parents[1] / "bench.py"
    )
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    out = tmp_path / "b.json"
    assert mod.main(["--quick", "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    assert data["rows"] and data["columns"][0] == "config"
