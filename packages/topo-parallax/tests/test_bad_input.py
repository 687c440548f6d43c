"""Bad input gets a TypeError (wrong type) or ValueError (wrong value) naming the argument.

One case per public argument, by kind (see ``papershelf_harness.suite``); ``call(value)`` feeds
``value`` as the argument ``name`` with every other argument valid. Plain tests cover the rules
the kinds do not: the model ``f`` (not callable, non-numeric output) and integer edge arrays.
"""

from __future__ import annotations

import numpy as np
import pytest
import topo_parallax as tp
from hypothesis import strategies as st
from topo_parallax import toys

from papershelf_harness import suite
from papershelf_harness.testing import assert_rejects

X = toys.circle_points(6, radius=1.5)
ONE = lambda z: np.ones(len(z))  # noqa: E731
EDGES = np.array([[0, 1], [1, 2]])
LENGTHS = np.array([1.0, 2.0])
FNS = {
    "admissible_edges": lambda X_, f=ONE, **kw: tp.admissible_edges(X_, f, **kw),
    "rips_diagrams": lambda X_, f=ONE, **kw: tp.rips_diagrams(X_, **kw),
    "parallax_diagrams": lambda X_, f=ONE, **kw: tp.parallax_diagrams(X_, f, [0.5], **kw),
    "parallax_report": lambda X_, f=ONE, **kw: tp.parallax_report(X_, f, [0.5], **kw),
}
WITH_F = ["admissible_edges", "parallax_diagrams", "parallax_report"]


def _floats(lo=None, hi=None, **kw):
    return st.floats(min_value=lo, max_value=hi, allow_nan=False, allow_infinity=False, **kw)


def _const(v):
    return lambda z: np.full(len(z), v)


CASES = [
    # X, every entry point
    *(
        suite.Array(f"{k}.X", "X", lambda v, fn=fn: fn(v), (6, 2), ndims=(2,))
        for k, fn in FNS.items()
    ),
    # r_max: None and inf mean "no limit"; zero or negative is a ValueError
    *(
        suite.Number(
            f"{k}.r_max", "r_max", lambda v, fn=fn: fn(X, r_max=v), none_ok=True, inf_ok=True
        )
        for k, fn in FNS.items()
    ),
    *(
        suite.OutOfRange(f"{k}.r_max", "r_max", lambda v, fn=fn: fn(X, r_max=v), _floats(hi=0.0))
        for k, fn in FNS.items()
    ),
    # m: samples per segment, >= 2 (t = k / (m - 1))
    *(suite.Int(f"{k}.m", "m", lambda v, fn=FNS[k]: fn(X, m=v), minimum=2) for k in WITH_F),
    # maxdim
    *(
        suite.Int(f"{k}.maxdim", "maxdim", lambda v, fn=FNS[k]: fn(X, maxdim=v), minimum=0)
        for k in ["rips_diagrams", "parallax_diagrams", "parallax_report"]
    ),
    # the model's output: values outside [0, 1], NaN, wrong shape all name f
    *(
        suite.OutOfRange(
            f"{k}.f.range",
            "f",
            lambda v, fn=FNS[k]: fn(X, _const(v)),
            st.one_of(_floats(hi=-1e-9), _floats(lo=1.0, exclude_min=True)),
        )
        for k in WITH_F
    ),
    *(
        suite.Mismatch(
            f"{k}.f.shape{s}", "f", lambda fn=FNS[k], s=s: fn(X, lambda z: np.ones((len(z), *s)))
        )
        for k in WITH_F
        for s in [(1,), (2,)]
    ),
    suite.Mismatch(
        "admissible_edges.f.length", "f", lambda: tp.admissible_edges(X, lambda z: np.ones(3))
    ),
    suite.Mismatch("admissible_edges.f.nan", "f", lambda: tp.admissible_edges(X, _const(np.nan))),
    suite.Mismatch("admissible_edges.f.scalar", "f", lambda: tp.admissible_edges(X, lambda z: 1.0)),
    # taus
    *(
        suite.Array(
            f"{k}.taus", "taus", lambda v, k=k: getattr(tp, k)(X, ONE, v), (3,), ndims=(0, 1)
        )
        for k in ["parallax_diagrams", "parallax_report"]
    ),
    *(
        suite.OutOfRange(
            f"{k}.taus",
            "taus",
            lambda v, k=k: getattr(tp, k)(X, ONE, [0.5, v]),
            st.one_of(_floats(hi=-1e-9), _floats(lo=1.0, exclude_min=True)),
        )
        for k in ["parallax_diagrams", "parallax_report"]
    ),
    # flag_diagrams
    suite.Int(
        "flag_diagrams.n_vertices",
        "n_vertices",
        lambda v: tp.flag_diagrams(v, EDGES, LENGTHS),
        minimum=1,
    ),
    suite.keyword(suite.Int, tp.flag_diagrams, "maxdim", 3, EDGES, LENGTHS, minimum=0),
    suite.Array(
        "flag_diagrams.lengths",
        "lengths",
        lambda v: tp.flag_diagrams(3, EDGES, v),
        (2,),
        ndims=(1,),
        empty_ok=True,
    ),
    suite.Mismatch(
        "flag_diagrams.lengths.count", "lengths", lambda: tp.flag_diagrams(3, EDGES, [1.0])
    ),
    suite.Mismatch(
        "flag_diagrams.lengths.negative", "lengths", lambda: tp.flag_diagrams(3, EDGES, [1.0, -1.0])
    ),
    suite.Mismatch(
        "flag_diagrams.edges.range", "edges", lambda: tp.flag_diagrams(2, EDGES, LENGTHS)
    ),
    suite.Mismatch(
        "flag_diagrams.edges.loop", "edges", lambda: tp.flag_diagrams(3, [[1, 1]], [1.0])
    ),
    suite.Mismatch(
        "flag_diagrams.edges.repeat",
        "edges",
        lambda: tp.flag_diagrams(3, [[0, 1], [1, 0]], LENGTHS),
    ),
    suite.Mismatch(
        "flag_diagrams.edges.shape", "edges", lambda: tp.flag_diagrams(3, [[0, 1, 2]], [1.0])
    ),
    # bottleneck_distance
    suite.Mismatch(
        "bottleneck_distance.dgm_a.nan",
        "dgm_a",
        lambda: tp.bottleneck_distance([[0.0, np.nan]], [[0.0, 1.0]]),
    ),
    suite.Mismatch(
        "bottleneck_distance.dgm_a.inf_birth",
        "dgm_a",
        lambda: tp.bottleneck_distance([[np.inf, np.inf]], [[0.0, 1.0]]),
    ),
    suite.Mismatch(
        "bottleneck_distance.dgm_b.shape",
        "dgm_b",
        lambda: tp.bottleneck_distance([[0.0, 1.0]], [[0.0, 1.0, 2.0]]),
    ),
    suite.Mismatch(
        "bottleneck_distance.dgm_b.order",
        "dgm_b",
        lambda: tp.bottleneck_distance([[0.0, 1.0]], [[2.0, 1.0]]),
    ),
    # toys
    suite.keyword(suite.Number, toys.disk_model, "radius"),
    suite.keyword(suite.OutOfRange, toys.disk_model, "radius", values=_floats(hi=0.0)),
    suite.keyword(suite.Number, toys.annulus_model, "inner"),
    suite.keyword(suite.Number, toys.annulus_model, "outer"),
    suite.keyword(suite.OutOfRange, toys.annulus_model, "outer", values=_floats(hi=1.0)),
    suite.keyword(suite.Number, toys.pocket_model, "pocket"),
    suite.keyword(suite.OutOfRange, toys.pocket_model, "pocket", values=_floats(hi=0.0)),
    suite.keyword(suite.Array, toys.disk_model, "center", shape=(2,), ndims=(1,), none_ok=True),
    suite.Array(
        "balls_model.centers",
        "centers",
        lambda v: toys.balls_model(v, [1.0, 1.0]),
        (2, 2),
        ndims=(2,),
    ),
    suite.Array(
        "balls_model.radii",
        "radii",
        lambda v: toys.balls_model(np.zeros((2, 2)), v),
        (2,),
        ndims=(1,),
    ),
    suite.Mismatch(
        "balls_model.radii.count", "radii", lambda: toys.balls_model(np.zeros((2, 2)), [1.0])
    ),
    suite.Int("circle_points.n", "n", lambda v: toys.circle_points(v), minimum=1),
    suite.Int("sample_annulus.n", "n", lambda v: toys.sample_annulus(v, rng=0), minimum=1),
    suite.keyword(suite.Rng, toys.sample_annulus, "rng", 5),
    suite.keyword(suite.Rng, toys.sample_disk, "rng", 5),
]

globals().update(suite.bad_input_suite(CASES))


@pytest.mark.parametrize("name", WITH_F)
@pytest.mark.parametrize("bad", [None, 3.0, "f", np.ones(3)])
def test_model_not_callable_is_a_type_error(name, bad):
    assert_rejects(TypeError, "f", FNS[name], X, bad)


@pytest.mark.parametrize("out", [None, "abc", [object()], np.array(["a"] * 6)])
def test_model_returning_non_numbers_is_a_type_error(out):
    assert_rejects(
        TypeError, "f", tp.admissible_edges, X, lambda z: out if out is not None else None
    )


def test_model_out_of_range_is_not_clipped():
    # a value just above 1 is refused, not clipped to 1
    assert_rejects(ValueError, "f", tp.parallax_diagrams, X, _const(1.0 + 1e-12), [0.5])


@pytest.mark.parametrize("edges", [[[0.5, 1.0]], [["a", "b"]], None])
def test_edges_of_non_integers_is_a_type_error(edges):
    assert_rejects(TypeError, "edges", tp.flag_diagrams, 3, edges, [1.0])


def test_bool_taus_is_a_type_error():
    assert_rejects(TypeError, "taus", tp.parallax_diagrams, X, ONE, True)


def test_simplex_tree_bad_tau_and_model():
    assert_rejects(ValueError, "tau", tp.parallax_simplex_tree, X, ONE, 1.5)
    assert_rejects(TypeError, "tau", tp.parallax_simplex_tree, X, ONE, "0.5")
    assert_rejects(TypeError, "f", tp.parallax_simplex_tree, X, None, 0.5)
    assert_rejects(ValueError, "X", tp.parallax_simplex_tree, np.ones(3), ONE, 0.5)
