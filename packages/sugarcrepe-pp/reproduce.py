"""Reproduce the headline claims of SUGARCREPE++ Dataset: Vision-Language Model Sensitivity to Semantic and Lexical Alterations (NeurIPS 2024 Datasets and Benchmarks) at small scale.

python reproduce.py [--quick] [--full] [--json PATH]
"""

from __future__ import annotations

from papershelf_harness import Claim, reproduce_cli


def claims(args):
    """Yield one Claim(claim, paper, measured, holds, note) per headline claim of the paper."""
    import sugarcrepe_pp

    yield Claim(
        "the package imports",
        paper="-",
        measured=sugarcrepe_pp.__version__,
        holds=None,
        note="replace with the paper's claims",
    )


main = reproduce_cli(claims)  # package, paper and --help from this file and pyproject.toml

if __name__ == "__main__":
    raise SystemExit(main())
