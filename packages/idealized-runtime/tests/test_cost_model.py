"""CostModel against a naive transcription of HELM's per-request lookup, and the paper's numbers."""

import json
import pickle

import idealized_runtime as ir
import numpy as np
import pytest
from idealized_runtime._helm_loop import helm_loop_runtime
from idealized_runtime._reference_data import DENOISED_JSON, IDEALIZED_JSON


@pytest.mark.parametrize(
    "table,refs", [(IDEALIZED_JSON, ir.REFERENCE_A100), (DENOISED_JSON, ir.REFERENCE_DENOISED)]
)
def test_vectorised_lookup_equals_helm_loop(table, refs):
    rng = np.random.default_rng(0)
    p = np.concatenate([[0, 1, 2, 16, 17, 1920, 1921, 5000], rng.integers(0, 4000, 300)])
    o = np.concatenate([[0, 1, 0, 64, 2, 1, 0, 3], rng.integers(0, 200, 300)])
    assert set(refs) == set(table)
    for name, entry in table.items():
        ours = refs[name].runtime(p, o)
        naive = np.array(helm_loop_runtime(entry, p.tolist(), o.tolist()))
        np.testing.assert_allclose(ours, naive, rtol=1e-12, atol=0)


def test_paper_arithmetic_on_davinci():
    d = ir.REFERENCE_A100["openai/davinci"]
    assert d.runtime(512, 64) == pytest.approx(0.178 + 63 * 0.081, abs=1e-12)  # 5.281 s
    assert d.runtime(300, 1) == pytest.approx(0.134 * 300 / 320, abs=1e-12)  # 0.1256 s
    assert d.runtime(3000, 1) == pytest.approx(0.597 * 3000 / 1920, abs=1e-12)
    assert d.runtime(1024, 1) == pytest.approx(0.323)
    assert d.runtime(1, 1024) == pytest.approx(0.084 + 1023 * 0.081)  # 82.9 s
    assert d.runtime(512, 0) == pytest.approx(0.178)  # o = 0: prompt only


def test_overhead_and_broadcasting():
    m = ir.CostModel({1: 1.0, 10: 2.0}, 0.5, overhead=0.25)
    assert m.runtime(5, 3) == pytest.approx(2.0 * 5 / 10 + 0.5 * 2 + 0.25)
    out = m.runtime(np.array([[1], [10]]), np.array([0, 1, 2]))
    assert out.shape == (2, 3)
    np.testing.assert_allclose(out[1], [2.25, 2.25, 2.75])
    assert isinstance(m.runtime(1, 1), float)
    assert m.runtime([], []).shape == (0,)
    with pytest.raises(ValueError, match="broadcast"):
        m.runtime([1, 2], [1, 2, 3])


def test_attributes():
    m = ir.CostModel({16: 0.2, 1: 0.1}, 0.05)
    assert m.alpha == {1: 0.1, 16: 0.2} and list(m.alpha) == [1, 16]
    assert m.beta == 0.05 and m.overhead == 0.0
    m.alpha[1] = 99.0  # a copy: the model is immutable
    assert m.alpha[1] == 0.1
    assert m.prompt_runtime(8) == pytest.approx(0.2 * 8 / 16)


@pytest.mark.parametrize("table", [IDEALIZED_JSON, DENOISED_JSON])
def test_json_round_trip_is_helm_format(table):
    for entry in table.values():
        model = ir.CostModel.from_json(entry)
        d = model.to_json()
        assert json.loads(json.dumps(d)) == d  # serialisable
        back = ir.CostModel.from_json(json.dumps(d))
        assert back == model
        assert d["runtime_per_output_token"] == entry["runtime_per_output_token"]
        assert d["runtime_for_prompt_tokens"] == entry["runtime_for_prompt_tokens"]
        assert d.get("overhead") == entry.get("overhead")
        assert pickle.loads(pickle.dumps(model)) == model


def test_load_helm_json_whole_file():
    models = ir.load_helm_json(json.dumps(IDEALIZED_JSON))
    assert models == dict(ir.REFERENCE_A100)


def test_errors():
    with pytest.raises(ValueError, match="alpha"):
        ir.CostModel({}, 0.1)
    with pytest.raises(ValueError, match="beta"):
        ir.CostModel({1: 0.1}, -0.01)
    with pytest.raises(ValueError, match="alpha"):
        ir.CostModel({0: 0.1}, 0.1)
    with pytest.raises(ValueError, match=r"alpha\[4\]"):
        ir.CostModel({4: -1.0}, 0.1)
    with pytest.raises(TypeError, match="alpha"):
        ir.CostModel({"4": 1.0}, 0.1)
    with pytest.raises(TypeError, match="alpha"):
        ir.CostModel([(1, 0.1)], 0.1)
    m = ir.CostModel({1: 0.1}, 0.1)
    with pytest.raises(ValueError, match="p"):
        m.runtime(-1, 1)
    with pytest.raises(ValueError, match="o"):
        m.runtime(1, [1, -2])
    with pytest.raises(TypeError, match="p"):
        m.runtime(2.5, 1)
    with pytest.raises(ValueError, match="runtime_for_prompt_tokens"):
        ir.CostModel.from_json({"runtime_per_output_token": 0.1})
    with pytest.raises(ValueError, match="integers"):
        ir.CostModel.from_json(
            {"runtime_per_output_token": 0.1, "runtime_for_prompt_tokens": {"a": 1}}
        )
