"""reproduce.py runs at a tiny scale (the micro pair, cached by the test session) and writes
valid JSON."""

from papershelf_harness.testing import check_scripts


def test_scripts(tmp_path):
    out = check_scripts(__file__, tmp_path, reproduce=["--quick"], bench=None)
    claims = out["reproduce"]["claims"]
    assert [c["claim"][:14] for c in claims] == ["held-out loss:", "draft/target a"]
    assert "micro pair" in claims[0]["note"]
