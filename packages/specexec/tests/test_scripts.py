"""reproduce.py and bench.py run at the --quick scale (tiny random-init Llamas) and write valid JSON."""

from papershelf_harness.testing import check_scripts


def test_scripts(tmp_path):
    out = check_scripts(__file__, tmp_path, reproduce=["--quick"], bench=["--quick"])
    greedy = [c for c in out["reproduce"]["claims"] if "greedy decoding" in c["claim"]]
    assert greedy and greedy[0]["holds"] is True  # exactness must hold on any pair
    assert {"greedy", "t=0.6,p=0.9"} <= set(out["reproduce"]["details"])
