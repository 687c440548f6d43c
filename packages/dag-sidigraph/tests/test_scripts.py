"""reproduce.py and bench.py run at a tiny scale and write valid JSON."""

import importlib.util

from papershelf_harness.testing import check_scripts

HAS_NETWORKX = importlib.util.find_spec("networkx") is not None


def test_scripts(tmp_path):
    # bench.py's peer networkx is in the bench group and test-networkx (tests_extras) only
    check_scripts(
        __file__, tmp_path, reproduce=["--quick"], bench=["--quick"] if HAS_NETWORKX else None
    )
