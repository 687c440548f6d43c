"""reproduce.py and bench.py run at a tiny scale and write valid JSON; the claim functions hold."""

from pathlib import Path

import numpy as np

from papershelf_harness.testing import check_scripts, load_script

ROOT = Path(__file__).resolve().parents[1]


def test_scripts(tmp_path):
    out = check_scripts(__file__, tmp_path, reproduce=["--quick"], bench=["--quick"])
    assert len(out["reproduce"]["claims"]) == 7
    assert set(out["reproduce"]["details"]) == {"paper_design_rmse", "brief_design_mae"}
    assert len(out["bench"]["rows"]) == 3  # two pairs and one matrix at --quick


def test_reproduce_claims_small():
    rep = load_script(ROOT / "reproduce.py")
    for claim in (rep.claim_monotone_exact(), rep.claim_spearman(), rep.claim_resolution()):
        assert claim["holds"] is True, claim
    cells, nonlin, lin, _ = rep.accuracy_brief_design(False, reps=3)
    assert nonlin.shape == (5,) and np.all(np.isfinite(nonlin)) and len(cells) == 18
    rmse, per_func, wins, nfun, _, _ = rep.accuracy_paper_design(False, reps=1)
    assert set(rmse) == set(rep.COEFS) and nfun == len(per_func)
