"""The README's examples run as written (every ```python block, in order). A block that imports
an optional extra (torch, gymnasium) runs only where it is installed (`nox -s tests_extras`)."""

import importlib.util
import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
OPTIONAL = ("torch", "gymnasium")


def _blocks():
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)
    assert blocks, "README has no ```python block"
    return blocks


def _needs(block):
    return [m for m in OPTIONAL if re.search(rf"^import {m}\b", block, flags=re.M)]


def test_readme_quick_example_runs():
    blocks = _blocks()
    assert not _needs(blocks[0]), "the first (quick) example must run with the core alone"
    namespace: dict = {"__name__": "__readme__"}
    for block in blocks:
        missing = [m for m in _needs(block) if importlib.util.find_spec(m) is None]
        if missing:
            continue
        if "torch" in _needs(block):
            import torch

            torch.set_num_threads(1)  # tiny networks: threads only contend on a loaded machine
        exec(compile(block, str(README), "exec"), namespace)


def test_the_extras_examples_are_run_somewhere():
    extra = [b for b in _blocks() if _needs(b)]
    assert extra, "the README shows the torch extra"
    if any(importlib.util.find_spec(m) is None for b in extra for m in _needs(b)):
        pytest.skip("an extra is not installed here; `nox -s tests_extras` runs these blocks")
