import pytest
import torch

# tiny models: threads only add contention on a shared 2-core machine
torch.set_num_threads(1)


def tiny_llama(n_heads=4, n_kv=2, layers=2, seed=0, vocab=64):
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(seed)
    cfg = LlamaConfig(
        vocab_size=vocab,
        hidden_size=8 * n_heads,
        intermediate_size=64,
        num_hidden_layers=layers,
        num_attention_heads=n_heads,
        num_key_value_heads=n_kv,
        max_position_embeddings=512,
        pad_token_id=0,
        bos_token_id=None,
        eos_token_id=None,
    )
    model = LlamaForCausalLM(cfg).eval()
    # larger weights than the init so attention is peaked and eviction changes the outputs
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "q_proj" in name or "k_proj" in name:
                p.mul_(8.0)
    return model


@pytest.fixture
def model():
    return tiny_llama()


@pytest.fixture
def ids():
    return torch.randint(1, 64, (2, 40), generator=torch.Generator().manual_seed(1))
