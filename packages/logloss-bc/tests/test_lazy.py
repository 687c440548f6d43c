"""The numpy core never imports torch or gymnasium; the torch names without torch say how to get
them."""

import logloss_bc

from papershelf_harness.testing import check_lazy_extra


def test_torch_names_are_a_lazy_extra():
    check_lazy_extra(
        "logloss_bc",
        names=logloss_bc.TORCH_NAMES,
        extra="logloss-bc[torch]",
        heavy=("torch", "gymnasium"),
    )
