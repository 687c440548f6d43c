"""reproduce.py and bench.py run at a tiny scale and write valid JSON (slow: each script is a
fresh process importing transformers, and --quick still pretrains a toy LM for 20 steps)."""

import pytest

from papershelf_harness.testing import check_scripts


@pytest.mark.slow
def test_scripts(tmp_path):
    res = check_scripts(__file__, tmp_path, reproduce=["--quick"], bench=["--quick"])
    assert len(res["reproduce"]["claims"]) == 5
    assert all(row[3].endswith("x") for row in res["bench"]["rows"])
