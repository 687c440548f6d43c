"""The README's quick example runs as written (every ```python block, in order)."""

from papershelf_harness.testing import run_readme_examples


def test_readme_quick_example_runs():
    run_readme_examples(__file__)
