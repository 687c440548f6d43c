"""The core never imports torch; the torch names load on first access or say how to get them."""

import importlib.util
import subprocess
import sys

import dag_sidigraph
import pytest


def test_core_does_not_import_torch():
    code = (
        "import sys, dag_sidigraph as d; d.minimal_sidigraph(d.balanced_tree(2, 2));"
        " d.PairSampler(d.balanced_tree(2, 2)).sample(); print('torch' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.skipif(importlib.util.find_spec("torch") is not None, reason="torch is installed")
def test_torch_names_without_torch_say_which_extra():
    for name in dag_sidigraph.TORCH_NAMES:
        with pytest.raises(ImportError, match=r"dag-sidigraph\[torch\]"):
            getattr(dag_sidigraph, name)


def test_unknown_attribute_is_an_attribute_error():
    with pytest.raises(AttributeError):
        dag_sidigraph.no_such_name  # noqa: B018
    assert "SimVec" in dir(dag_sidigraph)
