"""The core never imports torch; the torch names load on first access or say how to get them."""

import dag_sidigraph

from papershelf_harness.testing import check_lazy_extra


def test_torch_names_are_a_lazy_extra():
    """Importing the core, ``import *`` and a sidigraph plus a pair sample load no torch; every
    torch name is in ``dir``, and without torch is an ImportError naming dag-sidigraph[torch]."""
    check_lazy_extra(
        "dag_sidigraph",
        names=dag_sidigraph.TORCH_NAMES,
        extra="dag-sidigraph[torch]",
        run=(
            "m.minimal_sidigraph(m.balanced_tree(2, 2))\n"
            "m.PairSampler(m.balanced_tree(2, 2)).sample()"
        ),
    )
