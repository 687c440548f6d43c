"""Peer: open_clip's ClipLoss and build_zero_shot_classifier on a tiny random-init open_clip
CLIP (no weights are downloaded); skips without open_clip."""

import laclip
import pytest
import torch

from papershelf_harness.testing import assert_close
from papershelf_harness.tiny_clip import tiny_open_clip

open_clip = pytest.importorskip("open_clip")


@pytest.mark.parametrize("b", [1, 6])
def test_clip_loss_equals_open_clip(b):
    g = torch.Generator().manual_seed(b)
    img, txt = torch.randn(b, 12, generator=g), torch.randn(b, 12, generator=g)
    scale = torch.tensor(14.3)
    n = torch.nn.functional.normalize
    ref = open_clip.ClipLoss()(n(img, dim=-1), n(txt, dim=-1), scale)  # it expects normalised
    assert_close(laclip.clip_loss(img, txt, scale), ref, atol=1e-6)


def test_zero_shot_classifier_equals_open_clip():
    from open_clip.zero_shot_classifier import build_zero_shot_classifier

    model = tiny_open_clip(embed_dim=16, image_size=16, patch_size=8, text_layers=1, seed=0)
    tokenizer = open_clip.tokenize
    names = ["dog", "cat", "bird"]
    templates = [lambda c: f"a photo of a {c}.", lambda c: f"a drawing of the {c}."]
    ref = build_zero_shot_classifier(model, tokenizer, names, templates, use_tqdm=False)
    ours = laclip.zero_shot_classifier(lambda t: model.encode_text(tokenizer(t)), names, templates)
    assert ours.shape == ref.shape == (16, 3)
    assert_close(ours, ref, atol=1e-5)
