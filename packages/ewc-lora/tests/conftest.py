import pytest
import torch

torch.set_num_threads(1)


def _tiny(arch):
    from papershelf_harness.tiny_hf import tiny_causal_lm

    return tiny_causal_lm(arch, n_layers=1, vocab=32, seed=0)


@pytest.fixture(params=["llama", "gpt2", "qwen2"])
def arch(request):
    return request.param


@pytest.fixture
def tiny(arch):
    """A tiny random HF causal LM and its LoRA target names."""
    targets = ("c_attn", "c_proj") if arch == "gpt2" else ("q_proj", "v_proj")
    return _tiny(arch), targets


def randomize_lora(model, seed=0):
    """Random A and B in every LoRA layer (B starts at 0, which hides layout mistakes)."""
    from ewc_lora import LoRALinear

    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, LoRALinear):
                m.A.copy_(torch.randn(m.A.shape, generator=g))
                m.B.copy_(torch.randn(m.B.shape, generator=g) * 0.1)
    return model
