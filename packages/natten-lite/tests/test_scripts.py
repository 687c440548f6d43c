"""reproduce.py and bench.py run at the smoke-test scale and write valid JSON (performance itself
is never asserted in tests)."""

from papershelf_harness.testing import check_scripts


def test_scripts(tmp_path):
    results = check_scripts(__file__, tmp_path, reproduce=["--quick"], bench=["--quick"])
    claims = results["reproduce"]["claims"]
    # the exact claims (semantics, tile-count simulation) hold at any scale
    assert all(c["holds"] for c in claims if c["holds"] is not None), claims
    assert len(results["bench"]["rows"]) == 2
