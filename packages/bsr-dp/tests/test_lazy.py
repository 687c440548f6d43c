"""The numpy core never imports torch; DPMFSGD without torch says how to get it."""

import importlib.util
import subprocess
import sys

import pytest


def test_core_and_star_import_do_not_import_torch():
    code = "import sys, bsr_dp; from bsr_dp import *; assert 'torch' not in sys.modules, 'torch imported'"
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.skipif(importlib.util.find_spec("torch") is not None, reason="torch is installed")
def test_dpmfsgd_without_torch_explains_the_extra():
    import bsr_dp

    with pytest.raises(ImportError, match=r"bsr-dp\[torch\]"):
        bsr_dp.DPMFSGD  # noqa: B018
