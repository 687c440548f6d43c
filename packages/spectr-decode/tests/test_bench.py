import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import bench


def test_bench_quick_runs(tmp_path):
    out = tmp_path / "b.json"
    assert bench.main(["--quick", "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    assert data["rows"] and data["columns"][0] == "config"
