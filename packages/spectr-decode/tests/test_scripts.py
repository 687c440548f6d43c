"""reproduce.py and bench.py run at the --quick scale (torch-free: tabular Markov pair, K-SEQ
timings) and write valid JSON; the cost-model arithmetic behind one claim."""

import math
import sys
from pathlib import Path

from papershelf_harness.testing import check_scripts

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import reproduce


def test_scripts(tmp_path):
    out = check_scripts(__file__, tmp_path, reproduce=["--quick"], bench=["--quick"])
    claims = {c["claim"]: c for c in out["reproduce"]["claims"]}
    assert claims["K-SEQ acceptance >= (1-1/e) x LP optimum (Thm 3)"]["holds"] is True
    assert claims["greedy SpecTr output = target greedy decoding"]["holds"] is True
    assert "±" in claims["SpecTr vs speculative decoding, tokens per target call"]["measured"]
    assert out["reproduce"]["details"]["k=4,L=4"]["tokens_per_call_se"] > 0


def test_cost_model():
    assert reproduce.cost_model_speedup(3.0, 4, c=0.05) == 3.0 / 1.2
    assert reproduce.cost_model_speedup(1.0, 0) == 1.0
    assert reproduce.mean_se([1.0, 3.0]) == (2.0, 1.0)
    assert math.isclose(reproduce.lp_guarantee(1, seed=1)[0], reproduce.lp_guarantee(1, seed=1)[0])
