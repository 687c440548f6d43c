"""reproduce.py and bench.py run at a tiny scale and write valid JSON (they need torch and
networkx: run by ``nox -s tests_extras``, skipped in the torch-free suite)."""

import pytest

from papershelf_harness.testing import check_scripts


def test_scripts(tmp_path):
    pytest.importorskip("torch")
    pytest.importorskip("networkx")
    out = check_scripts(__file__, tmp_path, reproduce=["--quick"], bench=["--quick"])
    assert len(out["reproduce"]["claims"]) == 10
