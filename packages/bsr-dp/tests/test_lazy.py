"""The numpy core never imports torch; DPMFSGD without torch says how to get it."""

from papershelf_harness.testing import check_lazy_extra


def test_dpmfsgd_is_a_lazy_extra():
    check_lazy_extra("bsr_dp", names=["DPMFSGD"], extra="bsr-dp[torch]")
