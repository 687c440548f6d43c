"""The torch-free parts of reproduce.py run (the LM parts need the bench group)."""

import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import reproduce


def test_lp_guarantee_claim_runs_and_holds():
    worst, mean = reproduce.lp_guarantee(2, seed=1)
    assert 1 - 1 / math.e <= worst <= mean <= 1 + 1e-9


def test_cost_model():
    assert reproduce.cost_model_speedup(3.0, 4, c=0.05) == 3.0 / 1.2
    assert reproduce.cost_model_speedup(1.0, 0) == 1.0
