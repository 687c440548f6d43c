"""Reproduce the headline claims of SmallToLarge (S2L): Scalable Data Selection for Fine-tuning Large Language Models by Summarizing Training Trajectories of Small Models (NeurIPS 2024) at small scale.

python reproduce.py [--quick] [--full] [--json PATH]
"""

from __future__ import annotations

from papershelf_harness import Claim, reproduce_cli


def claims(args):
    """Yield one Claim(claim, paper, measured, holds, note) per headline claim of the paper."""
    import s2l_select

    yield Claim(
        "the package imports",
        paper="-",
        measured=s2l_select.__version__,
        holds=None,
        note="replace with the paper's claims",
    )


main = reproduce_cli(claims)  # package, paper and --help from this file and pyproject.toml
