"""Bad input gets a TypeError (wrong type) or ValueError (wrong value) naming the argument.

One case per public argument, by kind (see ``papershelf_harness.suite``); plain tests below for
the rules the kinds do not cover (index tensors, masks, torch generators).
"""

import numpy as np
import pytest
import sgformer as S
import torch
from hypothesis import strategies as st

from papershelf_harness import suite
from papershelf_harness.testing import assert_rejects

Q = np.ones((4, 1, 3))
V = np.ones((4, 1, 2))
X = torch.randn(6, 3)
EI = torch.tensor([[0, 1, 2, 3], [1, 2, 3, 4]])
sga = S.simple_global_attention
LAYER = S.SimpleGlobalAttention(3, 2)
MODEL = S.SGFormer(3, 4, 2)
K = suite.keyword
NORMS = frozenset({"frobenius", "row"})
outside01 = st.one_of(st.floats(1.0001, 1e6), st.floats(-1e6, -0.0001))

CASES = [
    suite.Array("sga.q", "q", lambda v: sga(v, Q, V), (4, 1, 3), (3,)),
    suite.Array("sga.k", "k", lambda v: sga(Q, v, V), (4, 1, 3), (3,)),
    suite.Array("sga.v", "v", lambda v: sga(Q, Q, v), (4, 1, 2), (3,)),
    K(suite.Option, sga, "normalize", Q, Q, V, valid=NORMS),
    K(suite.Option, S.dense_reference_attention, "normalize", Q, Q, V, valid=NORMS),
    suite.Mismatch("sga.k_shape", "k", lambda: sga(Q, np.ones((4, 1, 2)), V)),
    suite.Mismatch("sga.v_shape", "v", lambda: sga(Q, Q, np.ones((5, 1, 2)))),
    suite.Int("SGA.in_dim", "in_dim", lambda v: S.SimpleGlobalAttention(v, 2), minimum=1),
    suite.Int("SGA.out_dim", "out_dim", lambda v: S.SimpleGlobalAttention(3, v), minimum=1),
    K(suite.Int, S.SimpleGlobalAttention, "heads", 3, 2, minimum=1),
    K(suite.Option, S.SimpleGlobalAttention, "normalize", 3, 2, valid=NORMS),
    K(suite.Flag, S.SimpleGlobalAttention, "bias", 3, 2),
    suite.Array("SGA.forward.x", "x", lambda v: LAYER(v), (5, 3), (2, 3)),
    suite.Mismatch("SGA.forward.x_features", "x", lambda: LAYER(torch.ones(5, 4))),
    suite.Mismatch(
        "SGA.forward.mask_shape", "mask", lambda: LAYER(torch.ones(2, 5, 3), torch.ones(2, 4) > 0)
    ),
    suite.Int("SGFormer.in_dim", "in_dim", lambda v: S.SGFormer(v, 4, 2), minimum=1),
    suite.Int("SGFormer.hidden", "hidden", lambda v: S.SGFormer(3, v, 2), minimum=1),
    suite.Int("SGFormer.out_dim", "out_dim", lambda v: S.SGFormer(3, 4, v), minimum=1),
    K(suite.Int, S.SGFormer, "trans_layers", 3, 4, 2, minimum=0),
    K(suite.Int, S.SGFormer, "gnn_layers", 3, 4, 2, minimum=0),
    K(suite.Int, S.SGFormer, "heads", 3, 4, 2, minimum=1),
    K(suite.Number, S.SGFormer, "alpha", 3, 4, 2),
    K(suite.Number, S.SGFormer, "graph_weight", 3, 4, 2),
    K(suite.Number, S.SGFormer, "dropout", 3, 4, 2),
    K(suite.OutOfRange, S.SGFormer, "alpha", 3, 4, 2, values=outside01),
    K(suite.OutOfRange, S.SGFormer, "graph_weight", 3, 4, 2, values=outside01),
    K(suite.Option, S.SGFormer, "aggregate", 3, 4, 2, valid=frozenset({"add", "cat"})),
    K(suite.Option, S.SGFormer, "normalize", 3, 4, 2, valid=NORMS),
    K(suite.Flag, S.SGFormer, "use_init", 3, 4, 2),
    suite.Array("SGFormer.forward.x", "x", lambda v: MODEL(v, EI), (6, 3), (2,)),
    suite.Mismatch("SGFormer.forward.x_features", "x", lambda: MODEL(torch.ones(6, 5), EI)),
    suite.Mismatch("SGFormer.forward.edge_range", "edge_index", lambda: MODEL(X[:3], EI)),
    suite.Int("blocks.num_nodes", "num_nodes", lambda v: S.random_node_blocks(v, 2), minimum=1),
    suite.Int("blocks.batch_size", "batch_size", lambda v: S.random_node_blocks(5, v), minimum=1),
    K(
        suite.Int,
        S.induced_subgraph,
        "num_nodes",
        EI,
        torch.tensor([0, 1]),
        minimum=1,
        none_ok=True,
    ),
    suite.Int("gcn_norm.num_nodes", "num_nodes", lambda v: S.gcn_norm(EI, v), minimum=1),
    suite.Int("csbm.num_nodes", "num_nodes", lambda v: S.csbm(v, 2), minimum=3),
    K(suite.Number, S.csbm, "homophily", 30, 2),
    K(suite.OutOfRange, S.csbm, "homophily", 30, 2, values=outside01),
    K(suite.Int, S.long_range_task, "degree", 30, minimum=2),
]

globals().update(suite.bad_input_suite(CASES))


@pytest.mark.parametrize(
    "fn",
    [
        lambda v: S.induced_subgraph(v, torch.tensor([0, 1])),
        lambda v: S.gcn_norm(v, 6),
        lambda v: MODEL(X, v),
    ],
)
def test_edge_index_rules(fn):
    assert_rejects(TypeError, "edge_index", fn, EI.float())
    assert_rejects(TypeError, "edge_index", fn, "abc")
    assert_rejects(ValueError, "edge_index", fn, EI[:1])  # not [2, E]
    assert_rejects(ValueError, "edge_index", fn, -EI - 1)  # negative ids


def test_nodes_rules():
    assert_rejects(TypeError, "nodes", S.induced_subgraph, EI, torch.tensor([0.0, 1.0]))
    assert_rejects(ValueError, "nodes", S.induced_subgraph, EI, torch.tensor([], dtype=torch.long))
    assert_rejects(ValueError, "nodes", S.induced_subgraph, EI, torch.tensor([[0, 1]]))
    assert_rejects(ValueError, "nodes", S.induced_subgraph, EI, torch.tensor([2, 2]))
    assert_rejects(ValueError, "nodes", S.induced_subgraph, EI, torch.tensor([0, 9]), num_nodes=6)


def test_mask_rules():
    x = torch.ones(2, 5, 3)
    assert_rejects(TypeError, "mask", LAYER, x, torch.ones(2, 5))  # float, not bool
    assert_rejects(ValueError, "mask", LAYER, torch.ones(5, 3), torch.ones(5) > 0)  # unbatched x


@pytest.mark.parametrize("bad", [3, "abc", np.random.default_rng(0), 1.5])
def test_generator_must_be_a_torch_generator(bad):
    assert_rejects(TypeError, "generator", S.random_node_blocks, 5, 2, generator=bad)
    assert_rejects(TypeError, "generator", S.csbm, 30, 2, generator=bad)
