"""reproduce.py and bench.py run at a tiny scale (--quick) and write valid JSON."""

from papershelf_harness.testing import check_scripts


def test_scripts(tmp_path):
    out = check_scripts(__file__, tmp_path, reproduce=["--quick"], bench=["--quick"], min_claims=10)
    assert out["reproduce"]["claims"][0]["holds"] is True  # exact k-means++ bound, small instances
