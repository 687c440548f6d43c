"""The README's quick example runs as written (every ```python block, in order)."""

import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_quick_example_runs():
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)
    assert blocks, "README has no ```python block"
    namespace: dict = {"__name__": "__readme__"}
    for block in blocks:
        exec(compile(block, str(README), "exec"), namespace)
