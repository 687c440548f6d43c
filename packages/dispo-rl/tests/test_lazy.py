"""The numpy core never imports torch or gymnasium; the torch names are reachable lazily."""

import subprocess
import sys

import pytest


def test_core_and_star_import_do_not_import_torch():
    code = (
        "import sys, dispo_rl; from dispo_rl import *; "
        "env = dispo_rl.PointMaze2D(); env.reset(seed=0); env.step([0.0, 0.0]); "
        "assert 'torch' not in sys.modules, 'torch imported'; "
        "assert 'gymnasium' not in sys.modules, 'gymnasium imported'"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_unknown_attribute():
    import dispo_rl

    with pytest.raises(AttributeError, match="no_such_name"):
        dispo_rl.no_such_name  # noqa: B018
    assert "GaussianMixtureOutcomeModel" in dir(dispo_rl)
    assert "DiffusionOutcomeModel" in dir(dispo_rl)
