"""Bad input gets a TypeError (wrong type) or ValueError (wrong value) naming the argument.

One case per public argument, by kind (see ``papershelf_harness.suite``); ``call(value)`` feeds
``value`` as the argument ``name`` with every other argument valid. The torch and scikit-learn
entry points validate before importing their extra, so they are probed here too.
"""

import numpy as np
import pytest
import scipy.sparse as sp
import trihom
from hypothesis import strategies as st
from trihom import baselines as B
from trihom import classifier, models

from papershelf_harness import suite
from papershelf_harness.testing import assert_rejects

EI = np.array([[0, 1, 2, 3, 4, 0], [1, 2, 3, 4, 5, 5]])  # a 6-cycle
Y = np.array([0, 0, 1, 1, 2, 2])
X = np.arange(24, dtype=float).reshape(6, 4) % 5
EI_SHAPE, Y_SHAPE, X_SHAPE = (2, 6), (6,), (6, 4)

LABEL_FNS = {
    "label_homophily": trihom.label_homophily,
    "structural_homophily": trihom.structural_homophily,
    "edge_homophily": B.edge_homophily,
    "node_homophily": B.node_homophily,
    "class_homophily": B.class_homophily,
    "adjusted_homophily": B.adjusted_homophily,
    "label_informativeness": B.label_informativeness,
    "density_aware_homophily": B.density_aware_homophily,
    "two_hop_homophily": B.two_hop_homophily,
    "neighborhood_homophily": B.neighborhood_homophily,
    "cross_class_neighborhood_similarity": B.cross_class_neighborhood_similarity,
    "aggregation_homophily": B.aggregation_homophily,
}
FEATURE_FNS = {  # (edge_index, X)
    "generalized_edge_homophily": B.generalized_edge_homophily,
    "local_similarity_homophily": B.local_similarity_homophily,
    "attribute_homophily": B.attribute_homophily,
}
FULL_FNS = {  # (edge_index, X, y)
    "feature_homophily": trihom.feature_homophily,
    "tri_hom_from_graph": trihom.tri_hom_from_graph,
    "class_controlled_feature_homophily": B.class_controlled_feature_homophily,
    "all_metrics": trihom.all_metrics,
    "train_gcn": models.train_gcn,
    "train_mlp": models.train_mlp,
    "classifier_based_homophily": classifier.classifier_based_homophily,
}


def _arrays():
    out = []
    for fid, f in LABEL_FNS.items():
        out += [
            suite.Array(f"{fid}.edge_index", "edge_index", lambda v, f=f: f(v, Y), EI_SHAPE, (2,)),
            suite.Array(f"{fid}.y", "y", lambda v, f=f: f(EI, v), Y_SHAPE, (1,)),
        ]
    for fid, f in FEATURE_FNS.items():
        out += [
            suite.Array(f"{fid}.edge_index", "edge_index", lambda v, f=f: f(v, X), EI_SHAPE, (2,)),
            suite.Array(f"{fid}.X", "X", lambda v, f=f: f(EI, v), X_SHAPE, (2,)),
        ]
    for fid, f in FULL_FNS.items():
        out += [
            suite.Array(
                f"{fid}.edge_index", "edge_index", lambda v, f=f: f(v, X, Y), EI_SHAPE, (2,)
            ),
            suite.Array(f"{fid}.X", "X", lambda v, f=f: f(EI, v, Y), X_SHAPE, (2,)),
            suite.Array(f"{fid}.y", "y", lambda v, f=f: f(EI, X, v), Y_SHAPE, (1,)),
        ]
    out += [
        suite.Array(
            "spectral_radius.edge_index", "edge_index", trihom.spectral_radius, EI_SHAPE, (2,)
        ),
        suite.Array("correlate.metric", "metric", lambda v: trihom.correlate(v, Y), Y_SHAPE, (1,)),
        suite.Array(
            "correlate.accuracy", "accuracy", lambda v: trihom.correlate(X[:, 0], v), Y_SHAPE, (1,)
        ),
        suite.keyword(
            suite.Array, _csbm, "degree_range", id="csbm3h.degree_range", shape=(2,), ndims=(1,)
        ),
    ]
    return out


def _csbm(**kw):
    args = dict(degree_range=(2, 4), feat_dim=2, h_L=0.5, h_S=0.5, h_F=0.2, rng=0)
    args.update(kw)
    return trihom.csbm3h(args.pop("n", 20), args.pop("num_classes", 3), **args)


def _tri(**kw):
    args = dict(h_L=0.6, h_S=0.5, h_F=0.3, num_classes=3)
    args.update(kw)
    return trihom.tri_hom(
        args.pop("h_L"), args.pop("h_S"), args.pop("h_F"), args.pop("num_classes"), **args
    )


unit = st.one_of(
    st.floats(max_value=-1e-6, min_value=-1e6), st.floats(min_value=1 + 1e-6, max_value=1e6)
)
non_positive = st.floats(max_value=0.0, min_value=-1e6)
outside_pm1 = st.one_of(
    st.floats(max_value=-1 - 1e-6, min_value=-1e6), st.floats(min_value=1 + 1e-6, max_value=1e6)
)


def _weighting(fn, *args):
    return suite.keyword(
        suite.Option, fn, "weighting", *args, valid=frozenset({"uniform", "class_size"})
    )


CASES = _arrays() + [
    # numbers
    *[
        suite.Number(f"tri_hom.{a}", a, lambda v, a=a: _tri(**{a: v}))
        for a in ("h_L", "h_S", "h_F", "rho")
    ],
    *[
        suite.Number(f"csbm3h.{a}", a, lambda v, a=a: _csbm(**{a: v}))
        for a in ("h_L", "h_S", "h_F")
    ],
    suite.keyword(suite.Number, trihom.feature_homophily, "grid_step", EI, X, Y),
    suite.keyword(suite.Number, models.train_gcn, "lr", EI, X, Y),
    suite.keyword(suite.Number, models.train_gcn, "weight_decay", EI, X, Y),
    suite.keyword(suite.Number, models.train_gcn, "dropout", EI, X, Y),
    suite.keyword(suite.Number, models.train_mlp, "train_fraction", EI, X, Y),
    suite.keyword(
        suite.Number,
        classifier.classifier_based_homophily,
        "train_fraction",
        EI,
        X,
        Y,
        id="classifier.train_fraction",
    ),
    # out of range
    suite.keyword(suite.OutOfRange, _tri, "h_L", id="tri_hom.h_L.range", values=unit),
    suite.keyword(suite.OutOfRange, _tri, "h_S", id="tri_hom.h_S.range", values=unit),
    # h_F is a cosine-type homophily in [-1, 1]: only values outside it are out of range
    suite.keyword(suite.OutOfRange, _tri, "h_F", id="tri_hom.h_F.range", values=outside_pm1),
    suite.keyword(suite.OutOfRange, _tri, "rho", id="tri_hom.rho.range", values=non_positive),
    suite.keyword(
        suite.OutOfRange,
        trihom.tri_hom_from_graph,
        "rho",
        EI,
        X,
        Y,
        id="tri_hom_from_graph.rho.range",
        values=non_positive,
    ),
    suite.keyword(suite.OutOfRange, _csbm, "h_L", id="csbm3h.h_L.range", values=unit),
    suite.keyword(suite.OutOfRange, _csbm, "h_S", id="csbm3h.h_S.range", values=unit),
    suite.keyword(
        suite.OutOfRange,
        _csbm,
        "h_F",
        id="csbm3h.h_F.range",
        values=st.one_of(
            st.floats(max_value=-1.0, min_value=-1000000.0),
            st.floats(min_value=1.0, max_value=1000000.0),
        ),
    ),
    suite.keyword(
        suite.OutOfRange,
        trihom.feature_homophily,
        "grid_step",
        EI,
        X,
        Y,
        id="feature_homophily.grid_step.range",
        values=st.one_of(non_positive, st.floats(min_value=1 + 1e-06, max_value=1000000.0)),
    ),
    suite.keyword(
        suite.OutOfRange,
        models.train_gcn,
        "dropout",
        EI,
        X,
        Y,
        id="train_gcn.dropout.range",
        values=st.one_of(
            st.floats(max_value=-1e-06, min_value=-1000.0),
            st.floats(min_value=1.0, max_value=1000.0),
        ),
    ),
    suite.keyword(
        suite.OutOfRange,
        models.train_gcn,
        "lr",
        EI,
        X,
        Y,
        id="train_gcn.lr.range",
        values=non_positive,
    ),
    # integers
    suite.keyword(suite.Int, _tri, "num_classes", id="tri_hom.num_classes", minimum=2),
    suite.keyword(suite.Int, _csbm, "n", id="csbm3h.n", minimum=2),
    suite.keyword(suite.Int, _csbm, "num_classes", id="csbm3h.num_classes", minimum=2),
    suite.keyword(suite.Int, _csbm, "feat_dim", id="csbm3h.feat_dim", minimum=1),
    suite.keyword(suite.Int, trihom.spectral_radius, "num_nodes", EI, minimum=1, none_ok=True),
    suite.keyword(suite.Int, models.train_gcn, "hidden", EI, X, Y, minimum=1),
    suite.keyword(suite.Int, models.train_mlp, "epochs", EI, X, Y, minimum=1),
    suite.keyword(
        suite.Int,
        classifier.classifier_based_homophily,
        "repeats",
        EI,
        X,
        Y,
        id="classifier.repeats",
        minimum=2,
    ),
    # flags
    suite.keyword(suite.Flag, trihom.structural_homophily, "per_class", EI, Y),
    suite.keyword(suite.Flag, trihom.feature_homophily, "per_feature", EI, X, Y),
    suite.keyword(suite.Flag, _tri, "graph_aware", id="tri_hom.graph_aware"),
    suite.keyword(suite.Flag, trihom.tri_hom_from_graph, "graph_aware", EI, X, Y),
    # options
    _weighting(trihom.structural_homophily, EI, Y),
    _weighting(trihom.tri_hom_from_graph, EI, X, Y),
    suite.keyword(
        suite.Option,
        trihom.tri_hom_from_graph,
        "rho",
        EI,
        X,
        Y,
        valid=frozenset({"spectral"}),
        strings_only=False,
    ),
    suite.keyword(
        suite.Option, B.aggregation_homophily, "mode", EI, Y, valid=frozenset({"soft", "hard"})
    ),
    suite.keyword(
        suite.Option,
        B.local_similarity_homophily,
        "metric",
        EI,
        X,
        valid=frozenset({"cosine", "euclidean"}),
    ),
    suite.keyword(
        suite.Option,
        classifier.classifier_based_homophily,
        "classifier",
        EI,
        X,
        Y,
        id="classifier.classifier",
        valid=frozenset(classifier.CLASSIFIERS),
    ),
    # randomness
    suite.keyword(suite.Rng, _csbm, "rng", id="csbm3h.rng"),
    suite.keyword(
        suite.Rng, classifier.classifier_based_homophily, "rng", EI, X, Y, id="classifier.rng"
    ),
    # inputs that do not fit together
    suite.Mismatch(
        "edge_index.out_of_range",
        "edge_index",
        lambda: trihom.label_homophily(np.array([[0, 1], [1, 6]]), Y),
    ),
    suite.Mismatch(
        "edge_index.negative",
        "edge_index",
        lambda: trihom.structural_homophily(np.array([[0, -1], [1, 2]]), Y),
    ),
    suite.Mismatch(
        "edge_index.three_rows",
        "edge_index",
        lambda: trihom.label_homophily(np.zeros((3, 4), int), Y),
    ),
    suite.Mismatch(
        "edge_index.only_self_loops",
        "edge_index",
        lambda: trihom.label_homophily(np.array([[1, 2], [1, 2]]), Y),
    ),
    suite.Mismatch(
        "edge_index.sparse_wrong_size",
        "edge_index",
        lambda: B.node_homophily(sp.identity(5, format="csr"), Y),
    ),
    suite.Mismatch(
        "edge_index.sparse_not_square",
        "edge_index",
        lambda: B.node_homophily(sp.csr_matrix((6, 5)), Y),
    ),
    suite.Mismatch(
        "feature_homophily.y_length", "X", lambda: trihom.feature_homophily(EI, X, np.append(Y, 0))
    ),
    suite.Mismatch("all_metrics.y_length", "X", lambda: trihom.all_metrics(EI, X[:5], Y)),
    suite.Mismatch("train_gcn.y_length", "X", lambda: models.train_gcn(EI, X, Y[:4])),
    suite.Mismatch("correlate.length", "accuracy", lambda: trihom.correlate(Y, X[:5, 0])),
    suite.Mismatch("correlate.constant", "metric", lambda: trihom.correlate(np.ones(6), Y)),
    suite.Mismatch("y.negative", "y", lambda: trihom.label_homophily(EI, Y - 1)),
    suite.Mismatch("y.single_class", "y", lambda: B.class_homophily(EI, np.zeros(6, int))),
    suite.Mismatch("csbm3h.degree_range_order", "degree_range", lambda: _csbm(degree_range=(4, 4))),
    suite.Mismatch("tri_hom.infinite", "h_F", lambda: _tri(h_L=1.0, h_S=1.0, h_F=1.0)),
]

globals().update(suite.bad_input_suite(CASES, max_examples=3))


def test_non_integral_edge_index_is_a_type_error():
    assert_rejects(TypeError, "edge_index", trihom.label_homophily, EI + 0.5, Y)
    assert_rejects(TypeError, "y", trihom.label_homophily, EI, Y + 0.5)


def test_generator_must_be_a_torch_generator():
    assert_rejects(TypeError, "generator", models.train_gcn, EI, X, Y, generator=0)
    assert_rejects(TypeError, "generator", models.train_mlp, EI, X, Y, generator="abc")


@pytest.mark.parametrize("name", ["graph", "weights"])
def test_sparse_adjacency_with_nan_is_a_value_error(name):
    a = sp.csr_matrix(np.where(np.eye(6, k=1) > 0, np.nan, 0.0))
    assert_rejects(ValueError, "edge_index", trihom.label_homophily, a, Y)
