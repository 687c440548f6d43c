"""tiny_hf checks its options before importing torch/transformers (the models themselves are
tested where they are used: h2o-cache's eleven architectures, specexec and spectr-decode)."""

import pytest

from papershelf_harness.tiny_hf import ARCHITECTURES, WINDOWED, share_weights, tiny_causal_lm


def test_unknown_architecture_is_a_value_error_naming_arch():
    with pytest.raises(ValueError, match="^arch: expected one of"):
        tiny_causal_lm("not-a-model")


def test_window_on_a_family_without_local_layers_is_a_value_error():
    with pytest.raises(ValueError, match="^window: 'gpt2' has no sliding-window layers"):
        tiny_causal_lm("gpt2", window=8)


def test_every_windowed_family_is_an_architecture():
    assert set(WINDOWED) <= set(ARCHITECTURES)
    assert len(ARCHITECTURES) == 16


@pytest.mark.parametrize("arch", sorted(ARCHITECTURES))
def test_every_family_builds_and_runs_a_forward(arch):
    torch = pytest.importorskip("torch")
    pytest.importorskip("transformers")
    model = tiny_causal_lm(
        arch, n_layers=2, seed=0, vocab=64, window=8 if arch in WINDOWED else None
    )
    assert model.config.vocab_size == 64 and not model.training
    logits = model(torch.arange(10).reshape(1, 10)).logits
    assert logits.shape == (1, 10, 64) and torch.isfinite(logits).all()


def test_qk_and_head_scaling_and_shared_weights():
    torch = pytest.importorskip("torch")
    pytest.importorskip("transformers")
    plain = tiny_causal_lm("llama", n_layers=2, seed=3)
    sharp = tiny_causal_lm("llama", n_layers=2, seed=3, qk_scale=4.0, head_scale=8.0)
    q = "model.layers.0.self_attn.q_proj.weight"
    assert torch.equal(sharp.state_dict()[q], 4.0 * plain.state_dict()[q])
    assert torch.equal(sharp.lm_head.weight, 8.0 * plain.lm_head.weight)
    v = "model.layers.0.self_attn.v_proj.weight"
    assert torch.equal(sharp.state_dict()[v], plain.state_dict()[v])
    draft = share_weights(plain, tiny_causal_lm("llama", n_layers=1, seed=9))
    for name, value in draft.state_dict().items():
        assert torch.equal(value, plain.state_dict()[name])
