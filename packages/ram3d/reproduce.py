"""Reproduce the headline claims of ReplaceAnything3D: Text-Guided 3D Scene Editing with Compositional Neural Radiance Fields (NeurIPS 2024) at small scale.

    python reproduce.py [--quick] [--full] [--json PATH]
"""

from __future__ import annotations

from papershelf_harness import Claim, reproduce_cli


def claims(args):
    """Yield one Claim(claim, paper, measured, holds, note) per headline claim of the paper."""
    import ram3d

    yield Claim(
        "the package imports",
        paper="-",
        measured=ram3d.__version__,
        holds=None,
        note="replace with the paper's claims",
    )


main = reproduce_cli(claims)  # package, paper and --help from this file and pyproject.toml
