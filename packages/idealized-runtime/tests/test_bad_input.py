"""Bad input gets a TypeError (wrong type) or ValueError (wrong value) naming the argument.

One case per public argument, by kind (see ``papershelf_harness.suite``); plain tests for the
rules the kinds do not cover (empty alpha, beta < 0, p < 0, no o = 1 row) are in
test_cost_model.py and test_fit.py.
"""

import idealized_runtime as ir
import numpy as np
from hypothesis import strategies as st

from papershelf_harness import suite

M = ir.CostModel({1: 0.1, 16: 0.2}, 0.05)
REC = np.array([(p, o, 0.1 + 0.01 * p + 0.05 * o) for p in (1, 16) for o in (1, 2, 4)])
NEG = st.integers(min_value=-1000, max_value=-1)
NEGF = st.floats(min_value=-1e6, max_value=-1e-6)

CASES = [
    suite.Number("CostModel.beta", "beta", lambda v: ir.CostModel({1: 0.1}, v)),
    suite.OutOfRange("CostModel.beta<0", "beta", lambda v: ir.CostModel({1: 0.1}, v), NEGF),
    suite.keyword(suite.Number, ir.CostModel, "overhead", {1: 0.1}, 0.1),
    suite.keyword(
        suite.OutOfRange,
        ir.CostModel,
        "overhead",
        {1: 0.1},
        0.1,
        values=NEGF,
        id="CostModel.overhead<0",
    ),
    suite.Number("CostModel.alpha_value", "alpha", lambda v: ir.CostModel({1: v}, 0.1)),
    suite.Number("runtime.p", "p", lambda v: M.runtime(v, 1)),
    suite.Number("runtime.o", "o", lambda v: M.runtime(1, v)),
    suite.OutOfRange("runtime.p<0", "p", lambda v: M.runtime(v, 1), NEG),
    suite.OutOfRange("runtime.o<0", "o", lambda v: M.runtime(1, v), NEG),
    suite.Mismatch("runtime.broadcast", "p", lambda: M.runtime([1, 2], [1, 2, 3])),
    suite.Array(
        "fit_cost_model.records", "records", lambda v: ir.fit_cost_model(v), (6, 3), ndims=(2,)
    ),
    suite.keyword(
        suite.Option,
        ir.fit_cost_model,
        "aggregate",
        REC,
        valid=frozenset({"min", "median", "mean"}),
    ),
    suite.keyword(
        suite.Option, ir.fit_cost_model, "alpha", REC, valid=frozenset({"o1", "regression"})
    ),
    suite.Array("denoise.records", "records", lambda v: ir.denoise(v), (6, 3), ndims=(2,)),
    suite.keyword(
        suite.Option, ir.denoise, "aggregate", REC, valid=frozenset({"min", "median", "mean"})
    ),
    suite.Number("dollar_cost.runtime", "runtime", lambda v: ir.dollar_cost(v, 8, 4.0)),
    suite.OutOfRange("dollar_cost.runtime<0", "runtime", lambda v: ir.dollar_cost(v, 8, 4.0), NEGF),
    suite.Int("dollar_cost.n_acc", "n_acc", lambda v: ir.dollar_cost(1.0, v, 4.0), minimum=1),
    suite.Number(
        "dollar_cost.price_per_hour", "price_per_hour", lambda v: ir.dollar_cost(1.0, 8, v)
    ),
    suite.OutOfRange(
        "dollar_cost.price<0", "price_per_hour", lambda v: ir.dollar_cost(1.0, 8, v), NEGF
    ),
    suite.Number("accelerator_time.runtime", "runtime", lambda v: ir.accelerator_time(v, 8)),
    suite.Int("accelerator_time.n_acc", "n_acc", lambda v: ir.accelerator_time(1.0, v), minimum=1),
    suite.Int("flops_estimate.h", "h", lambda v: ir.flops_estimate(v, 2, 1, 1), minimum=1),
    suite.Int(
        "flops_estimate.layers", "layers", lambda v: ir.flops_estimate(8, v, 1, 1), minimum=1
    ),
    suite.Number("flops_estimate.p", "p", lambda v: ir.flops_estimate(8, 2, v, 1)),
    suite.OutOfRange("flops_estimate.o<0", "o", lambda v: ir.flops_estimate(8, 2, 1, v), NEG),
    suite.Array(
        "profile_model.prompt_sizes",
        "prompt_sizes",
        lambda v: ir.profile_model(None, v, [1]),
        (3,),
        ndims=(1,),
    ),
    suite.Array(
        "profile_model.output_sizes",
        "output_sizes",
        lambda v: ir.profile_model(None, [1], v),
        (3,),
        ndims=(1,),
    ),
    suite.OutOfRange(
        "profile_model.prompt_sizes<1",
        "prompt_sizes",
        lambda v: ir.profile_model(None, [v], [1]),
        st.integers(-5, 0),
    ),
    suite.keyword(suite.Int, ir.profile_model, "repeats", None, [1], [1], minimum=1),
    suite.keyword(suite.Int, ir.profile_model, "warmup", None, [1], [1], minimum=0),
]

globals().update(suite.bad_input_suite(CASES))
