"""reproduce.py runs at a tiny scale and writes valid JSON (about 30 s on the loaded machine)."""

import pytest

from papershelf_harness.testing import check_scripts


@pytest.mark.slow
def test_scripts(tmp_path):
    check_scripts(__file__, tmp_path, reproduce=["--quick"], bench=None)
