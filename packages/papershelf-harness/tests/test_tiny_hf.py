"""tiny_hf checks its options before importing torch/transformers (the models themselves are
tested where they are used: h2o-cache's eleven architectures, specexec and spectr-decode)."""

import pytest

from papershelf_harness.tiny_hf import ARCHITECTURES, WINDOWED, tiny_causal_lm


def test_unknown_architecture_is_a_value_error_naming_arch():
    with pytest.raises(ValueError, match="^arch: expected one of"):
        tiny_causal_lm("not-a-model")


def test_window_on_a_family_without_local_layers_is_a_value_error():
    with pytest.raises(ValueError, match="^window: 'gpt2' has no sliding-window layers"):
        tiny_causal_lm("gpt2", window=8)


def test_every_windowed_family_is_an_architecture():
    assert set(WINDOWED) <= set(ARCHITECTURES)
    assert len(ARCHITECTURES) == 16
