"""reproduce.py and bench.py run at a tiny scale and writes valid JSON (about 15 s: marked slow)."""

import pytest

from papershelf_harness.testing import check_scripts


@pytest.mark.slow
def test_scripts(tmp_path):
    out = check_scripts(__file__, tmp_path, reproduce=["--quick"], bench=["--quick"], min_claims=6)
    assert all(c["holds"] is None for c in out["reproduce"]["claims"])  # --quick claims nothing
    # the DER++ weights behind the tuned-DER++ claim: the best of the grid on the validation seed
    tuning = out["reproduce"]["details"]["derpp_tuning"]
    assert tuning["validation_seed"] not in range(5)  # never an evaluation seed (--full: 0..4)
    grid = tuning["grid"]
    assert len(grid) == 6
    best = max(grid, key=lambda r: r["accuracy"])
    assert tuning["chosen"] == {"alpha": best["alpha"], "beta": best["beta"]}
    assert any("tuned weights" in c["claim"] for c in out["reproduce"]["claims"])
