"""Schur layers: automorphism-equivariant subgraph maps from the graph Laplacian's eigenspaces
(Schur Nets, NeurIPS 2024)."""

from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as _version

from .data import GraphBatch, Molecule, batch_graphs, synthetic_molecules
from .layers import LinmapsLayer, SchurLayer, SecondOrderSchurLayer
from .models import SchurGNN
from .spectral import (
    automorphisms,
    commutant_dimension,
    eigenspace_projectors,
    laplacian_matrix,
    num_equivariant_maps,
)
from .subgraphs import cycle_adjacency, cycle_index, find_cycles, find_template

try:
    __version__ = _version("laplacian-equivariant")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "0.2.0"

__all__ = [
    "GraphBatch",
    "LinmapsLayer",
    "Molecule",
    "SchurGNN",
    "SchurLayer",
    "SecondOrderSchurLayer",
    "__version__",
    "automorphisms",
    "commutant_dimension",
    "batch_graphs",
    "cycle_adjacency",
    "cycle_index",
    "eigenspace_projectors",
    "find_cycles",
    "find_template",
    "laplacian_matrix",
    "num_equivariant_maps",
    "synthetic_molecules",
]
