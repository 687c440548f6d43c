"""clip_loss and zero-shot evaluation against naive numpy references."""

import math

import laclip
import numpy as np
import pytest
import torch

from papershelf_harness.testing import assert_close


def naive_clip_loss(img, txt, scale):
    img = img / np.linalg.norm(img, axis=1, keepdims=True)
    txt = txt / np.linalg.norm(txt, axis=1, keepdims=True)
    b = len(img)
    total = 0.0
    for i in range(b):  # image i against all texts, and text i against all images
        s_it = [scale * float(img[i] @ txt[j]) for j in range(b)]
        s_ti = [scale * float(txt[i] @ img[j]) for j in range(b)]
        for s in (s_it, s_ti):
            m = max(s)
            total += -(s[i] - m - math.log(sum(math.exp(v - m) for v in s)))
    return total / (2 * b)


@pytest.mark.parametrize(("b", "d", "scale"), [(1, 3, 1.0), (5, 4, 14.3), (8, 16, 100.0)])
def test_clip_loss_matches_naive(b, d, scale):
    g = torch.Generator().manual_seed(b)
    img, txt = (
        torch.randn(b, d, generator=g, dtype=torch.float64),
        torch.randn(b, d, generator=g, dtype=torch.float64),
    )
    got = laclip.clip_loss(img, txt, scale)
    assert abs(float(got) - naive_clip_loss(img.numpy(), txt.numpy(), scale)) < 1e-10
    # symmetric, invariant to embedding norms, scale as a tensor
    assert_close(laclip.clip_loss(txt, img, scale), got, atol=1e-12)
    assert_close(laclip.clip_loss(3 * img, 0.5 * txt, torch.tensor(scale)), got, atol=1e-12)


def test_constant_embeddings_give_log_b_and_gradients_flow():
    b = 7
    e = torch.ones(b, 5)
    assert abs(float(laclip.clip_loss(e, e, 50.0)) - math.log(b)) < 1e-6
    log_scale = torch.tensor(math.log(1 / 0.07), requires_grad=True)
    img = torch.randn(b, 5, requires_grad=True)
    txt = torch.randn(b, 5, requires_grad=True)
    laclip.clip_loss(img, txt, log_scale.exp()).backward()
    assert img.grad.abs().sum() > 0 and txt.grad.abs().sum() > 0 and log_scale.grad != 0
    # the gradient is autograd's of the naive formula (finite differences on float64)
    img64 = img.detach().double().requires_grad_()
    txt64 = txt.detach().double()
    laclip.clip_loss(img64, txt64, 10.0).backward()
    eps = 1e-6
    x = img64.detach().numpy().copy()
    x[2, 3] += eps
    up = naive_clip_loss(x, txt64.numpy(), 10.0)
    x[2, 3] -= 2 * eps
    down = naive_clip_loss(x, txt64.numpy(), 10.0)
    assert abs(float(img64.grad[2, 3]) - (up - down) / (2 * eps)) < 1e-6


def test_zero_shot_classifier_matches_naive():
    rng = np.random.default_rng(0)
    vocab = {}

    def encode_text(texts):
        rows = []
        for t in texts:
            if t not in vocab:
                vocab[t] = rng.normal(size=6)
            rows.append(vocab[t])
        return torch.tensor(np.array(rows))

    classes = ["dog", "cat", "car"]
    templates = ["a photo of a {}.", "a {} in the wild", lambda c: f"art of the {c}"]
    clf = laclip.zero_shot_classifier(encode_text, classes, templates)
    assert clf.shape == (6, 3)
    for j, c in enumerate(classes):
        rows = [vocab[t] for t in (f"a photo of a {c}.", f"a {c} in the wild", f"art of the {c}")]
        mean = np.mean([r / np.linalg.norm(r) for r in rows], axis=0)
        assert np.allclose(clf[:, j].numpy(), mean / np.linalg.norm(mean), atol=1e-12)


def test_zero_shot_accuracy_brute_force():
    g = torch.Generator().manual_seed(0)
    img = torch.randn(50, 8, generator=g)
    clf = torch.nn.functional.normalize(torch.randn(8, 5, generator=g), dim=0)
    labels = torch.randint(5, (50,), generator=g)
    logits = img.numpy() @ clf.numpy()
    want1 = np.mean(logits.argmax(1) == labels.numpy())
    want2 = np.mean([labels[i].item() in np.argsort(-logits[i])[:2] for i in range(50)])
    assert laclip.zero_shot_accuracy(img, clf, labels) == pytest.approx(want1, abs=1e-12)
    assert laclip.zero_shot_accuracy(img, clf, labels, top_k=2) == pytest.approx(want2, abs=1e-12)
    assert (
        laclip.zero_shot_accuracy(img, clf, logits_argmax := torch.tensor(logits.argmax(1))) == 1.0
    )
    assert logits_argmax.shape == (50,)
