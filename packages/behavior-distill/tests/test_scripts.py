"""reproduce.py and bench.py run at a tiny scale and write valid JSON."""

from papershelf_harness.testing import check_scripts


def test_scripts(tmp_path):
    out = check_scripts(__file__, tmp_path, reproduce=["--quick"], bench=["--quick"])
    claims = {c["claim"]: c for c in out["reproduce"]["claims"]}
    # the exact claims are checkable even at the smoke-test scale
    assert all(c["holds"] for c in list(claims.values())[:4])
    diffs = [float(row[-1]) for row in out["bench"]["rows"]]
    assert max(diffs) < 1e-4  # reverse_hvp = unroll in the benchmark too
