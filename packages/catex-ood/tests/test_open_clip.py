"""The open_clip adapter on a real (tiny, randomly initialised) open_clip CLIP."""

import pytest
import torch

from papershelf_harness.testing import assert_close
from papershelf_harness.tiny_clip import tiny_open_clip

open_clip = pytest.importorskip("open_clip")

import catex_ood as cx  # noqa: E402
from catex_ood.open_clip import OpenCLIPTextEncoder  # noqa: E402


@pytest.fixture(scope="module")
def model():
    return tiny_open_clip(embed_dim=16, seed=0)  # ViT 32/16, width 32, 2 text layers, eval mode


def test_word_contexts_equal_encode_text(model):
    """Contexts set to the embeddings of "a photo of a" give encode_text("a photo of a <c>.")."""
    enc = OpenCLIPTextEncoder(model)
    words = open_clip.tokenize(["a photo of a"])[0, 1:5]
    names = ["cat", "red apple"]
    with torch.no_grad():
        ctx = model.token_embedding(words).unsqueeze(0).expand(2, -1, -1).clone()
        ours = enc(ctx, names)
        ref = model.encode_text(open_clip.tokenize([f"a photo of a {n}." for n in names]))
    assert ours.shape == (2, 16)
    assert_close(ours, ref, atol=1e-5)


def test_bank_with_open_clip_trains(model):
    enc = OpenCLIPTextEncoder(model)
    bank = cx.ContextBank(
        ["cat", "dog"], n_ctx=3, token_dim=32, generator=torch.Generator().manual_seed(1)
    )
    T, T_sp = bank.text_features(enc)
    assert T.shape == (2, 16) and T_sp.shape == (2, 1, 16)
    (T @ T_sp[:, 0].T).sum().backward()
    assert bank.ctx.grad is not None and bank.ctx.grad.abs().sum() > 0
    with pytest.raises(ValueError, match="ctx"):
        enc(torch.zeros(2, 3, 8), ["cat", "dog"])
    with pytest.raises(TypeError, match="model"):
        OpenCLIPTextEncoder(torch.nn.Linear(2, 2))
