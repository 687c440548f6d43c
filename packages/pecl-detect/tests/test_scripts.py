"""reproduce.py and bench.py run at a tiny scale and write valid JSON (needs torch/shapely,
installed by the reproduce/bench groups; skipped in the torch-free fast env)."""

import pytest

from papershelf_harness.testing import check_scripts


def test_scripts(tmp_path):
    pytest.importorskip("torch")
    pytest.importorskip("shapely")
    check_scripts(__file__, tmp_path, reproduce=["--quick"], bench=["--quick"])
