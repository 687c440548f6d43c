"""reproduce.py (and bench.py, where there is one) run at a tiny scale and write valid JSON."""

from papershelf_harness.testing import check_scripts


def test_scripts(tmp_path):
    check_scripts(__file__, tmp_path, reproduce=["--quick"], bench=["--quick"])
