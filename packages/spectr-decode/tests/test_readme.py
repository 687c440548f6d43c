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


def test_readme_tokens_per_call_claim_has_enough_prompts_and_standard_errors():
    """Regression (issue 10): the README reported k = 4 no better than k = 2 at L = 4 from five
    prompts (twenty give 3.12 / 3.45 / 3.64 for k = 1 / 2 / 4). The reproduced tokens-per-call
    table must come from at least 20 prompts and give a standard error for every entry."""
    text = README.read_text()
    section = text[text.index("## What is reproduced") :]
    section = section[: section.index("\n## ", 4)]
    n = [int(m) for m in re.findall(r"(\d+) held-out prompts", section)]
    assert n and min(n) >= 20, n
    rows = [r for r in section.splitlines() if re.match(r"\| k=\d,L=\d \|", r)]
    assert len(rows) == 6, rows
    assert all(re.search(r"\d\.\d\d ± \d\.\d\d", r) for r in rows), rows
