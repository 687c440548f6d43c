"""reproduce.py and bench.py run at a tiny scale and writes valid JSON (about 15 s: marked slow)."""

import pytest

from papershelf_harness.testing import check_scripts


@pytest.mark.slow
def test_scripts(tmp_path):
    out = check_scripts(__file__, tmp_path, reproduce=["--quick"], bench=["--quick"], min_claims=6)
    assert all(c["holds"] is None for c in out["reproduce"]["claims"])  # --quick claims nothing
