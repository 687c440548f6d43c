"""bench.py and reproduce.py run (tiny configurations) so they cannot rot."""

import importlib.util
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def _load(name):
    spec = importlib.util.spec_from_file_location(f"_rc_{name}", ROOT / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_bench_quick_writes_json(tmp_path):
    bench = _load("bench")
    assert bench.main(["--quick", "--json", str(tmp_path / "b.json")]) == 0
    result = json.loads((tmp_path / "b.json").read_text())
    assert result["package"] == "rearrange-corr"
    assert len(result["rows"]) == 3 and all(
        len(r) == len(result["columns"]) for r in result["rows"]
    )


def test_reproduce_claims_small():
    rep = _load("reproduce")
    for claim in (rep.claim_monotone_exact(), rep.claim_spearman(), rep.claim_resolution()):
        assert claim["holds"] is True, claim
    cells, nonlin, lin, _ = rep.accuracy_brief_design(False, reps=3)
    assert nonlin.shape == (5,) and np.all(np.isfinite(nonlin)) and len(cells) == 18
    rmse, per_func, wins, nfun, _, _ = rep.accuracy_paper_design(False, reps=1)
    assert set(rmse) == set(rep.COEFS) and nfun == len(per_func)
