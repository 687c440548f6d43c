"""bench.py runs in quick mode and writes its JSON."""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def test_bench_quick(tmp_path):
    import bench

    assert bench.main(["--quick", "--json", str(tmp_path / "b.json")]) == 0
    data = json.loads((tmp_path / "b.json").read_text())
    assert data["rows"] and data["columns"][0] == "config"
