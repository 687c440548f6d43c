"""reproduce.py and bench.py run at a tiny scale and write valid JSON.

Marked slow: two fresh interpreters importing torch take ~50 s on 2 loaded cores, more than the
rest of the suite together (run by ``nox -s tests_slow``).
"""

import pytest

from papershelf_harness.testing import check_scripts


@pytest.mark.slow
def test_scripts(tmp_path):
    check_scripts(__file__, tmp_path, reproduce=["--quick"], bench=["--quick"])
