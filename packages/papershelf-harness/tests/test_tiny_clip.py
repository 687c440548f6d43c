"""tiny_open_clip: options checked before the import; with open_clip, a working tiny CLIP."""

import pytest

from papershelf_harness.tiny_clip import tiny_open_clip


@pytest.mark.parametrize(
    ("kwargs", "exc", "name"),
    [
        ({"embed_dim": 0}, ValueError, "embed_dim"),
        ({"width": 2.5}, TypeError, "width"),
        ({"heads": True}, TypeError, "heads"),
        ({"image_size": 30, "patch_size": 16}, ValueError, "patch_size"),
        ({"width": 30, "heads": 4}, ValueError, "heads"),
        ({"seed": -1}, ValueError, "seed"),
        ({"seed": "0"}, TypeError, "seed"),
    ],
)
def test_bad_options(kwargs, exc, name):
    with pytest.raises(exc, match=name):
        tiny_open_clip(**kwargs)


def test_a_tiny_clip_encodes_text_and_images():
    open_clip = pytest.importorskip("open_clip")
    import torch

    model = tiny_open_clip(embed_dim=8, image_size=16, patch_size=8, text_layers=1)
    assert not model.training
    with torch.no_grad():
        t = model.encode_text(open_clip.tokenize(["a photo of a cat.", "a dog"]))
        i = model.encode_image(torch.zeros(3, 3, 16, 16))
    assert t.shape == (2, 8) and i.shape == (3, 8)
    torch.manual_seed(123)
    state = torch.random.get_rng_state()
    again = tiny_open_clip(embed_dim=8, image_size=16, patch_size=8, text_layers=1)
    assert all(torch.equal(a, b) for a, b in zip(model.parameters(), again.parameters()))
    assert torch.equal(torch.random.get_rng_state(), state)  # the caller's RNG is untouched
