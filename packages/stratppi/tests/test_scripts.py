"""reproduce.py and bench.py run at a tiny scale and write valid JSON (they cannot rot)."""

from papershelf_harness.testing import check_scripts


def test_scripts(tmp_path):
    out = check_scripts(
        __file__, tmp_path, reproduce=["--trials", "10"], bench=["--quick"], min_claims=8
    )
    assert [r[0] for r in out["bench"]["rows"]][:2] == [
        "mean n=200,N=2000,int strata",
        "mean n=200,N=2000,str strata",
    ]
