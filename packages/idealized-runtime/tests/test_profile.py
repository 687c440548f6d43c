"""profile_model on tiny random Hugging Face models (extra `hf`; skipped without torch)."""

import idealized_runtime as ir
import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")
from papershelf_harness.tiny_hf import tiny_causal_lm  # noqa: E402


@pytest.mark.parametrize("arch", ["llama", "gpt2", "qwen2"])
def test_rows_and_exactly_o_forwards(arch):
    model = tiny_causal_lm(arch, hidden_size=32) if arch != "gpt2" else tiny_causal_lm(arch)
    calls = []
    model.register_forward_hook(lambda *a: calls.append(1))
    rows = ir.profile_model(model, [1, 4], [1, 3], repeats=2, warmup=1)
    assert rows.shape == (2 * 2 * 2, 3)
    np.testing.assert_array_equal(rows[:, 0], [1, 1, 1, 1, 4, 4, 4, 4])
    np.testing.assert_array_equal(rows[:, 1], [1, 1, 3, 3, 1, 1, 3, 3])
    assert np.all(rows[:, 2] > 0)
    # (warmup + repeats) runs per cell, o forwards per run
    assert len(calls) == 2 * (1 + 2) * (1 + 3)


def test_config_builds_a_random_model_and_the_fit_is_linear():
    cfg = tiny_causal_lm("llama", hidden_size=32).config
    rows = ir.profile_model(cfg, [1, 8], [1, 4, 16], repeats=2, warmup=1)
    model, rep = ir.fit_cost_model(rows)
    assert model.beta > 0 and rep.n_cells == 6


def test_bad_model_and_positions():
    with pytest.raises(TypeError, match="model_or_config"):
        ir.profile_model("gpt2", [1], [1])
    model = tiny_causal_lm("llama", hidden_size=32, max_position_embeddings=16)
    with pytest.raises(ValueError, match="positions"):
        ir.profile_model(model, [10], [10])
    with pytest.raises(TypeError, match="device"):
        ir.profile_model(model, [1], [1], device=3)
