"""Reproduce the headline claims of Overcoming the Sim-to-Real Gap: Leveraging Simulation to Learn to Explore for Real-World RL (NeurIPS 2024) at small scale.

    python reproduce.py [--quick] [--full] [--json PATH]
"""

from __future__ import annotations

from papershelf_harness import Claim, reproduce_main

PACKAGE = "sim2real-explore"
PAPER = "Overcoming the Sim-to-Real Gap: Leveraging Simulation to Learn to Explore for Real-World RL (NeurIPS 2024)"


def claims(args):
    """Yield one Claim(claim, paper, measured, holds, note) per headline claim of the paper."""
    import sim2real_explore

    yield Claim(
        "the package imports",
        paper="-",
        measured=sim2real_explore.__version__,
        holds=None,
        note="replace with the paper's claims",
    )


def main(argv=None):
    return reproduce_main(PACKAGE, PAPER, claims, argv, doc=__doc__, quick=True)


if __name__ == "__main__":
    raise SystemExit(main())
