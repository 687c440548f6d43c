"""The README's examples run as written (every ```python block, in order); the block that needs
the ``torch`` extra runs where torch is installed (``nox -s tests_extras``)."""

import importlib.util
import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"
HAS_TORCH = importlib.util.find_spec("torch") is not None


def test_readme_quick_example_runs():
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)
    assert blocks, "README has no ```python block"
    assert "import torch" not in blocks[0], "the first (quick) example must be torch-free"
    namespace: dict = {"__name__": "__readme__"}
    ran = 0
    for block in blocks:
        if "import torch" in block and not HAS_TORCH:
            continue
        exec(compile(block, str(README), "exec"), namespace)
        ran += 1
    assert ran == (
        len(blocks) if HAS_TORCH else len([b for b in blocks if "import torch" not in b])
    )
