"""The numpy core never imports torch; the torch names without torch say how to get them."""

import importlib.util
import subprocess
import sys

import pytest


def test_core_and_star_import_do_not_import_torch():
    code = (
        "import sys, logloss_bc; from logloss_bc import *; "
        "assert 'torch' not in sys.modules, 'torch imported'; "
        "assert 'gymnasium' not in sys.modules, 'gymnasium imported'"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.skipif(importlib.util.find_spec("torch") is not None, reason="torch is installed")
def test_torch_names_without_torch_explain_the_extra():
    import logloss_bc

    for name in logloss_bc.TORCH_NAMES:
        with pytest.raises(ImportError, match=r"logloss-bc\[torch\]"):
            getattr(logloss_bc, name)


def test_unknown_attribute():
    import logloss_bc

    with pytest.raises(AttributeError, match="no_such_name"):
        logloss_bc.no_such_name  # noqa: B018
    assert "CategoricalMLP" in dir(logloss_bc)
