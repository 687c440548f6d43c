"""Reproduce the headline claims of Distributional Model Equivalence for Risk-Sensitive Reinforcement Learning (NeurIPS 2023) at small scale.

python reproduce.py [--quick] [--full] [--json PATH]
"""

from __future__ import annotations

from papershelf_harness import Claim, reproduce_main

PACKAGE = "risk-model-eq"
PAPER = "Distributional Model Equivalence for Risk-Sensitive Reinforcement Learning (NeurIPS 2023)"


def claims(args):
    """Yield one Claim(claim, paper, measured, holds, note) per headline claim of the paper."""
    import risk_model_eq

    yield Claim(
        "the package imports",
        paper="-",
        measured=risk_model_eq.__version__,
        holds=None,
        note="replace with the paper's claims",
    )


def main(argv=None):
    return reproduce_main(PACKAGE, PAPER, claims, argv, doc=__doc__, quick=True)


if __name__ == "__main__":
    raise SystemExit(main())
