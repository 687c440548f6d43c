"""Reproduce the headline claims of Rethinking Decoders for Transformer-based Semantic Segmentation: Compression is All You Need (NeurIPS 2024) at small scale.

python reproduce.py [--quick] [--full] [--json PATH]
"""

from __future__ import annotations

from papershelf_harness import Claim, reproduce_cli


def claims(args):
    """Yield one Claim(claim, paper, measured, holds, note) per headline claim of the paper."""
    import depict_seg

    yield Claim(
        "the package imports",
        paper="-",
        measured=depict_seg.__version__,
        holds=None,
        note="replace with the paper's claims",
    )


main = reproduce_cli(claims)  # package, paper and --help from this file and pyproject.toml
