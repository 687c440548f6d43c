"""reproduce.py (and bench.py, where there is one) run at a tiny scale and write valid JSON."""

from papershelf_harness.testing import check_scripts


def test_scripts(tmp_path):
    out = check_scripts(__file__, tmp_path, reproduce=["--quick"], bench=None)
    claims = out["reproduce"]["claims"]
    # the exact checks hold at any scale; trained ones are judged only by the default run
    exact = [c for c in claims if c["paper"].startswith(("exact", "equal", "[0, 1]", "mid"))]
    assert len(exact) >= 7 and all(c["holds"] for c in exact)
