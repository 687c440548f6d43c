"""Bad input gets a TypeError (wrong type) or ValueError (wrong value) naming the argument.

One case per public argument, by kind (see ``papershelf_harness.suite``); plain tests below for
rules the kinds do not cover (asymmetric adjacency, out-of-range node ids, template mismatch).
"""

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from laplacian_equivariant import (
    LinmapsLayer,
    SchurGNN,
    SchurLayer,
    SecondOrderSchurLayer,
    batch_graphs,
    cycle_adjacency,
    eigenspace_projectors,
    find_cycles,
    find_template,
    num_equivariant_maps,
    synthetic_molecules,
)

from papershelf_harness import suite
from papershelf_harness.testing import assert_rejects

C6 = cycle_adjacency(6)
RING = np.array([[0, 1, 2, 3, 4, 5], [1, 2, 3, 4, 5, 0]])
K = suite.keyword

CASES = [
    suite.Array("eigenspace_projectors.adj", "adj", eigenspace_projectors, (3, 3), ndims=(2,)),
    K(
        suite.Option,
        eigenspace_projectors,
        "laplacian",
        C6,
        valid=frozenset({"combinatorial", "normalized"}),
    ),
    K(suite.Number, eigenspace_projectors, "tol", C6),
    suite.OutOfRange(
        "eigenspace_projectors.tol",
        "tol",
        lambda v: eigenspace_projectors(C6, tol=v),
        st.floats(max_value=0.0, allow_nan=False, allow_infinity=False),
    ),
    suite.Array("num_equivariant_maps.adj", "adj", num_equivariant_maps, (3, 3), ndims=(2,)),
    suite.Array(
        "SchurLayer.template_adj", "template_adj", lambda v: SchurLayer(v, 2, 2), (3, 3), ndims=(2,)
    ),
    suite.Int("SchurLayer.in_dim", "in_dim", lambda v: SchurLayer(C6, v, 2), minimum=1),
    suite.Int("SchurLayer.out_dim", "out_dim", lambda v: SchurLayer(C6, 2, v), minimum=1),
    suite.Flag("SchurLayer.bias", "bias", lambda v: SchurLayer(C6, 2, 2, bias=v)),
    suite.Array(
        "SecondOrderSchurLayer.template_adj",
        "template_adj",
        lambda v: SecondOrderSchurLayer(v, 2, 2),
        (3, 3),
        ndims=(2,),
    ),
    suite.Int(
        "SecondOrderSchurLayer.in_dim",
        "in_dim",
        lambda v: SecondOrderSchurLayer(C6, v, 2),
        minimum=1,
    ),
    suite.Int(
        "SecondOrderSchurLayer.out_dim",
        "out_dim",
        lambda v: SecondOrderSchurLayer(C6, 2, v),
        minimum=1,
    ),
    suite.Flag(
        "SecondOrderSchurLayer.bias", "bias", lambda v: SecondOrderSchurLayer(C6, 2, 2, bias=v)
    ),
    suite.Mismatch(
        "SecondOrderSchurLayer.forward.m",
        "x",
        lambda: SecondOrderSchurLayer(C6, 2, 2)(torch.zeros(3, 6, 5, 2)),
    ),
    suite.Mismatch(
        "SecondOrderSchurLayer.forward.in_dim",
        "x",
        lambda: SecondOrderSchurLayer(C6, 2, 2)(torch.zeros(3, 6, 6, 3)),
    ),
    suite.Int("LinmapsLayer.in_dim", "in_dim", lambda v: LinmapsLayer(v, 2), minimum=1),
    suite.Int("LinmapsLayer.out_dim", "out_dim", lambda v: LinmapsLayer(2, v), minimum=1),
    suite.Flag("LinmapsLayer.bias", "bias", lambda v: LinmapsLayer(2, 2, bias=v)),
    suite.Array(
        "find_cycles.edge_index",
        "edge_index",
        lambda v: find_cycles(v, 6),
        (2, 3),
        ndims=(2,),
        empty_ok=True,
    ),
    suite.Int("find_cycles.num_nodes", "num_nodes", lambda v: find_cycles(RING, v), minimum=1),
    suite.Array(
        "find_template.edge_index",
        "edge_index",
        lambda v: find_template(v, 6, C6),
        (2, 3),
        ndims=(2,),
        empty_ok=True,
    ),
    suite.Int(
        "find_template.num_nodes", "num_nodes", lambda v: find_template(RING, v, C6), minimum=1
    ),
    suite.Array(
        "find_template.template_adj",
        "template_adj",
        lambda v: find_template(RING, 6, v),
        (3, 3),
        ndims=(2,),
    ),
    suite.Int("SchurGNN.in_dim", "in_dim", lambda v: SchurGNN(v, 4, 1), minimum=1),
    suite.Int("SchurGNN.hidden", "hidden", lambda v: SchurGNN(3, v, 1), minimum=1),
    suite.Int("SchurGNN.out_dim", "out_dim", lambda v: SchurGNN(3, 4, v), minimum=1),
    suite.Int("SchurGNN.layers", "layers", lambda v: SchurGNN(3, 4, 1, layers=v), minimum=1),
    suite.Flag("SchurGNN.use_schur", "use_schur", lambda v: SchurGNN(3, 4, 1, use_schur=v)),
    suite.Int("synthetic_molecules.n_graphs", "n_graphs", synthetic_molecules, minimum=1),
    suite.Int(
        "synthetic_molecules.max_rings",
        "max_rings",
        lambda v: synthetic_molecules(1, max_rings=v),
        minimum=1,
    ),
    K(
        suite.Option,
        synthetic_molecules,
        "target",
        1,
        valid=frozenset({"para_meta", "alternating"}),
    ),
    suite.Rng("synthetic_molecules.rng", "rng", lambda v: synthetic_molecules(1, rng=v)),
    suite.Mismatch("SchurLayer.forward.m", "x", lambda: SchurLayer(C6, 2, 2)(torch.zeros(3, 5, 2))),
    suite.Mismatch(
        "SchurLayer.forward.in_dim", "x", lambda: SchurLayer(C6, 2, 2)(torch.zeros(3, 6, 4))
    ),
    suite.Mismatch(
        "LinmapsLayer.forward.in_dim", "x", lambda: LinmapsLayer(2, 2)(torch.zeros(3, 6, 4))
    ),
    suite.Mismatch("find_cycles.out_of_range", "edge_index", lambda: find_cycles(RING, 5)),
    suite.Mismatch(
        "SchurGNN.forward.x",
        "x",
        lambda: SchurGNN(3, 4, 1)(torch.zeros(6, 2), torch.as_tensor(RING)),
    ),
    suite.Mismatch(
        "SchurGNN.forward.edge_index",
        "edge_index",
        lambda: SchurGNN(3, 4, 1)(torch.zeros(5, 3), torch.as_tensor(RING)),
    ),
    suite.Mismatch(
        "SchurGNN.forward.batch",
        "batch",
        lambda: SchurGNN(3, 4, 1)(
            torch.zeros(6, 3), torch.as_tensor(RING), torch.zeros(4, dtype=torch.long)
        ),
    ),
]

globals().update(suite.bad_input_suite(CASES))


@settings(max_examples=10, deadline=None)
@given(
    arrays=st.integers(2, 5).flatmap(
        lambda m: st.lists(st.floats(0, 1), min_size=m * m, max_size=m * m)
    )
)
def test_asymmetric_adjacency_is_a_value_error(arrays):
    m = int(round(len(arrays) ** 0.5))
    a = np.array(arrays).reshape(m, m)
    np.fill_diagonal(a, 0.0)
    a[0, 1], a[1, 0] = 1.0, 0.0
    assert_rejects(ValueError, "adj", eigenspace_projectors, a)
    assert_rejects(ValueError, "template_adj", SchurLayer, a, 2, 2)


@pytest.mark.parametrize(
    "x", [np.zeros((2, 6, 2)), torch.zeros(2, 6, 2, dtype=torch.long), torch.zeros(6, 2)]
)
def test_layer_input_type_and_rank(x):
    exc = ValueError if isinstance(x, torch.Tensor) and x.is_floating_point() else TypeError
    assert_rejects(exc, "x", SchurLayer(C6, 2, 2), x)
    assert_rejects(exc, "x", LinmapsLayer(2, 2), x)


def test_layer_nan_input_is_a_value_error():
    x = torch.full((2, 6, 2), float("nan"))
    assert_rejects(ValueError, "x", SchurLayer(C6, 2, 2), x)
    assert_rejects(ValueError, "x", LinmapsLayer(2, 2), x)
    assert_rejects(
        ValueError, "x", SecondOrderSchurLayer(C6, 2, 2), torch.full((1, 6, 6, 2), 1e400)
    )
    assert_rejects(TypeError, "x", SecondOrderSchurLayer(C6, 2, 2), np.zeros((1, 6, 6, 2)))


@pytest.mark.parametrize("sizes", [(), (2,), (5, 5), (0, 6)])
def test_bad_cycle_sizes(sizes):
    assert_rejects(ValueError, "sizes", find_cycles, RING, 6, sizes=sizes)
    if sizes:
        assert_rejects(ValueError, "cycle_sizes", SchurGNN, 3, 4, 1, cycle_sizes=sizes)
    assert_rejects(TypeError, "sizes", find_cycles, RING, 6, sizes="56")
    assert_rejects(TypeError, "sizes", find_cycles, RING, 6, sizes=(5.5,))


def test_bad_substituent_prob_and_graphs():
    assert_rejects(ValueError, "substituent_prob", synthetic_molecules, 2, substituent_prob=1.5)
    assert_rejects(TypeError, "substituent_prob", synthetic_molecules, 2, substituent_prob="a")
    assert_rejects(ValueError, "graphs", batch_graphs, [])
