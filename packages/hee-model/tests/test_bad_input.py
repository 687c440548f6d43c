"""Bad input gets a TypeError (wrong type) or ValueError (wrong value) naming the argument.

One case per public argument, by kind (see ``papershelf_harness.suite``); ``call(value)`` feeds
``value`` as the argument ``name`` with every other argument valid. Plain tests below cover the
rules the kinds do not (families, layer lists, models, support of discrete data).
"""

import hee_model as hm
import numpy as np
import pytest
import torch
from hee_model.data import natural_patches
from hypothesis import strategies as st

from papershelf_harness import suite
from papershelf_harness.suite import keyword
from papershelf_harness.testing import assert_rejects

GAUSS = hm.GaussianFixedVar(1.0)
MODEL = hm.HEE([4, 3], families=[GAUSS], generator=torch.Generator().manual_seed(0))
X0 = np.ones((5, 4))
ETA = np.zeros((2, 3))
ANY = (1, 2, 3, 4)  # the families accept any number of leading axes


def _positive(hi=0.0):
    return st.floats(max_value=hi, allow_nan=False, allow_infinity=False)


def _family_cases():
    cases = []
    for fam in (GAUSS, hm.Bernoulli(), hm.Poisson()):
        label = type(fam).__name__
        for meth in ("A", "grad_A", "sample"):
            cases.append(
                suite.Array(f"{label}.{meth}.eta", "eta", getattr(fam, meth), (2, 3), ndims=ANY)
            )
        for meth in ("T", "log_h"):
            cases.append(
                suite.Array(f"{label}.{meth}.x", "x", getattr(fam, meth), (2, 3), ndims=ANY)
            )
        cases += [
            suite.Array(
                f"{label}.log_prob.x", "x", lambda v, f=fam: f.log_prob(v, ETA), (2, 3), ndims=ANY
            ),
            suite.Array(
                f"{label}.log_prob.eta",
                "eta",
                lambda v, f=fam: f.log_prob(ETA, v),
                (2, 3),
                ndims=ANY,
            ),
            suite.Array(
                f"{label}.fast_step.x",
                "x",
                lambda v, f=fam: f.fast_step(v, ETA, dt=0.1),
                (2, 3),
                ndims=ANY,
            ),
            suite.Mismatch(
                f"{label}.log_prob.shape", "x", lambda f=fam: f.log_prob(np.zeros((2, 2)), ETA)
            ),
            keyword(suite.Number, fam.fast_step, "dt", ETA, ETA, id=f"{label}.fast_step.dt"),
            keyword(
                suite.OutOfRange,
                fam.fast_step,
                "dt",
                ETA,
                ETA,
                id=f"{label}.fast_step.dt<=0",
                values=_positive(),
            ),  # fmt: skip
        ]
    return cases


def _infer(**kw):
    return hm.infer(MODEL, kw.pop("x0", X0), n_steps=kw.pop("n_steps", 2), **kw)


def _learn(**kw):
    return hm.learn(MODEL.clone(), kw.pop("data", X0), epochs=kw.pop("epochs", 1),
                    lr=kw.pop("lr", 0.01), n_steps=kw.pop("n_steps", 3), **kw)  # fmt: skip


def _gen(**kw):
    return hm.generate(MODEL, kw.pop("n", 3), n_steps=kw.pop("n_steps", 2), **kw)


def _hee(**kw):
    return hm.HEE(kw.pop("layer_sizes", [4, 3]), families=kw.pop("families", [GAUSS]), **kw)


CASES = [
    *_family_cases(),
    suite.Number("GaussianFixedVar.sigma", "sigma", hm.GaussianFixedVar),
    suite.OutOfRange("GaussianFixedVar.sigma<=0", "sigma", hm.GaussianFixedVar, _positive()),
    # --- HEE
    suite.Int(
        "HEE.layer_sizes[0]", "layer_sizes[0]", lambda v: _hee(layer_sizes=[v, 3]), minimum=1
    ),
    suite.Mismatch("HEE.layer_sizes.short", "layer_sizes", lambda: _hee(layer_sizes=[4])),
    suite.Mismatch("HEE.families.length", "families", lambda: _hee(families=[GAUSS, GAUSS])),
    keyword(
        suite.Option,
        _hee,
        "nonlinearity",
        id="HEE.nonlinearity",
        valid=frozenset(hm.NONLINEARITIES),
    ),  # fmt: skip
    keyword(suite.Option, _hee, "top_prior", id="HEE.top_prior", valid=frozenset(hm.TOP_PRIORS)),
    keyword(suite.Number, _hee, "init_scale", id="HEE.init_scale"),
    keyword(suite.OutOfRange, _hee, "init_scale", id="HEE.init_scale<0", values=_positive(-1e-9)),
    suite.Array(
        "HEE.natural_param.x_above",
        "x_above",
        lambda v: MODEL.natural_param(v, 0),
        (2, 3),
        ndims=(2,),
    ),
    suite.Int(
        "HEE.natural_param.layer",
        "layer",
        lambda v: MODEL.natural_param(np.ones((2, 3)), v),
        minimum=0,
        maximum=0,
    ),  # fmt: skip
    suite.Mismatch(
        "HEE.natural_param.width", "x_above", lambda: MODEL.natural_param(np.ones((2, 2)), 0)
    ),
    suite.Array(
        "HEE.energy.xs[0]",
        "xs[0]",
        lambda v: MODEL.energy([v, np.ones((5, 3))]),
        (5, 4),
        ndims=(2,),
    ),
    suite.Mismatch("HEE.energy.rows", "xs[1]", lambda: MODEL.energy([X0, np.ones((4, 3))])),
    suite.Mismatch("HEE.energy.count", "xs", lambda: MODEL.energy([X0])),
    # --- infer
    suite.Array("infer.x0", "x0", lambda v: _infer(x0=v), (5, 4), ndims=(2,)),
    suite.Mismatch("infer.x0.width", "x0", lambda: _infer(x0=np.ones((5, 3)))),
    keyword(suite.Int, _infer, "n_steps", minimum=1),
    *[keyword(suite.Number, _infer, k) for k in ("dt", "tau", "tau_fast")],
    *[
        keyword(suite.OutOfRange, _infer, k, id=f"infer.{k}<=0", values=_positive())
        for k in ("dt", "tau", "tau_fast")
    ],  # fmt: skip
    keyword(suite.Int, _infer, "fast_substeps", minimum=1),
    keyword(suite.Flag, _infer, "interneurons"),
    keyword(suite.Number, _infer, "momentum", none_ok=True),
    keyword(
        suite.OutOfRange,
        _infer,
        "momentum",
        id="infer.momentum>1",
        values=st.floats(min_value=1.001, max_value=1e6),
    ),  # fmt: skip
    keyword(suite.OutOfRange, _infer, "momentum", id="infer.momentum<=0", values=_positive()),
    suite.Array("infer.init[0]", "init[0]", lambda v: _infer(init=[v]), (5, 3), ndims=(2,)),
    suite.Mismatch("infer.init.rows", "init[0]", lambda: _infer(init=[np.zeros((4, 3))])),
    suite.Mismatch("infer.init.count", "init", lambda: _infer(init=[])),
    # --- learn
    suite.Array("learn.data", "data", lambda v: _learn(data=v), (5, 4), ndims=(2,)),
    keyword(suite.Int, _learn, "epochs", minimum=1),
    keyword(suite.Number, _learn, "lr"),
    keyword(suite.OutOfRange, _learn, "lr", id="learn.lr<=0", values=_positive()),
    keyword(suite.Int, _learn, "batch_size", minimum=1),
    keyword(suite.Int, _learn, "n_steps", minimum=1),
    keyword(suite.Number, _learn, "dt"),
    keyword(suite.Flag, _learn, "interneurons"),
    keyword(suite.Flag, _learn, "shuffle"),
    # --- generate
    keyword(suite.Int, _gen, "n", minimum=1),
    keyword(suite.Option, _gen, "mode", valid=frozenset(hm.GENERATION_MODES)),
    keyword(suite.Int, _gen, "n_steps", minimum=1),
    keyword(suite.Number, _gen, "dt"),
    # --- closed forms and metrics
    suite.Array(
        "linear_gaussian_posterior.x0",
        "x0",
        lambda v: hm.linear_gaussian_posterior(MODEL, v),
        (5, 4),
        ndims=(2,),
    ),
    suite.Array("log_marginal.x0", "x0", lambda v: hm.log_marginal(MODEL, v), (5, 4), ndims=(2,)),
    suite.Array("mmd_rbf.x", "x", lambda v: hm.mmd_rbf(v, np.ones((3, 2))), (3, 2), ndims=(2,)),
    suite.Array("mmd_rbf.y", "y", lambda v: hm.mmd_rbf(np.ones((3, 2)), v), (3, 2), ndims=(2,)),
    suite.Mismatch("mmd_rbf.y.width", "y", lambda: hm.mmd_rbf(np.ones((3, 2)), np.ones((3, 3)))),
    suite.Mismatch("mmd_rbf.x.rows", "x", lambda: hm.mmd_rbf(np.ones((1, 2)), np.ones((3, 2)))),
    keyword(suite.Number, hm.mmd_rbf, "bandwidth", np.ones((3, 2)), np.ones((3, 2)), none_ok=True),
    suite.Array("gabor_fit.filter", "filter", hm.gabor_fit, (4, 4), ndims=(2,)),
    keyword(suite.Int, hm.gabor_fit, "n_starts", np.ones((4, 4)), minimum=1),
    keyword(suite.Int, natural_patches, "size", minimum=2, maximum=64),
    keyword(suite.Int, natural_patches, "n", minimum=1),
    keyword(suite.Flag, natural_patches, "whiten"),
    keyword(suite.Rng, natural_patches, "rng"),
]

globals().update(suite.bad_input_suite(CASES))


def test_families_and_models_are_type_checked():
    assert_rejects(TypeError, "families[0]", hm.HEE, [3, 2], families=["gaussian"])
    assert_rejects(TypeError, "families", hm.HEE, [3, 2], families="gaussian")
    assert_rejects(TypeError, "layer_sizes", hm.HEE, "32", families=[GAUSS])
    assert_rejects(TypeError, "model", hm.infer, "model", X0, n_steps=1)
    assert_rejects(TypeError, "model", hm.learn, None, X0, epochs=1, lr=0.1)
    assert_rejects(TypeError, "model", hm.generate, object(), 3)
    assert_rejects(TypeError, "generator", hm.infer, MODEL, X0, n_steps=1, generator=0)
    assert_rejects(TypeError, "generator", GAUSS.sample, ETA, generator="seed")
    assert_rejects(TypeError, "dtype", hm.HEE, [3, 2], families=[GAUSS], dtype=torch.int64)
    assert_rejects(TypeError, "init", hm.infer, MODEL, X0, n_steps=1, init="zeros")


def test_discrete_data_outside_the_support_is_a_value_error():
    m = hm.HEE([2, 2], families=[hm.Bernoulli()])
    assert_rejects(ValueError, "x0", hm.infer, m, np.full((3, 2), 0.5), n_steps=1)
    m = hm.HEE([2, 2], families=[hm.Poisson()])
    assert_rejects(ValueError, "data", hm.learn, m, -np.ones((3, 2)), epochs=1, lr=0.1)


def test_tensors_are_accepted_and_bool_tensors_refused():
    hm.infer(MODEL, torch.ones(2, 4, dtype=torch.float32), n_steps=1)
    with pytest.raises(TypeError, match="x0"):
        hm.infer(MODEL, torch.ones(2, 4, dtype=torch.bool), n_steps=1)
    with pytest.raises(ValueError, match="x0"):
        hm.infer(MODEL, torch.full((2, 4), float("nan")), n_steps=1)
