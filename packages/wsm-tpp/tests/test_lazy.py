"""`import wsm_tpp` never imports the torch extra."""

import subprocess
import sys


def test_import_does_not_load_torch_loss():
    code = "import sys, wsm_tpp; assert 'wsm_tpp.torch_loss' not in sys.modules and 'torch' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)
