"""reproduce.py and bench.py run at a tiny scale and write valid JSON."""

from papershelf_harness.testing import check_scripts


def test_scripts(tmp_path):
    out = check_scripts(__file__, tmp_path, reproduce=["--quick"], bench=["--quick"], min_claims=6)
    claims = out["reproduce"]["claims"]
    # every numpy check holds at the quick scale; the MiniLM one is skipped (None) by --quick
    assert [
        c["holds"] for c in claims if "text:" not in c["claim"] and "scale:" not in c["claim"]
    ] == [True] * 6
