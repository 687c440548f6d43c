"""The modulated classifier and the saliency branch against hand-written forwards."""

import copy

import pytest
import saliency_replay as sr
import torch
from torch.nn import functional as F

from papershelf_harness.testing import assert_close

X = torch.randn(4, 1, 16, 16, generator=torch.Generator().manual_seed(0))
CH = (16, 32, 32, 64)


def _plain(stages, head, x):
    """An ordinary classifier: stage, ReLU, ..., global average pool, head."""
    h = x
    for s in stages:
        h = torch.relu(s(h))
    return head(F.adaptive_avg_pool2d(h, 1).flatten(1))


def _models(mode, active=None):
    torch.manual_seed(1)
    stages, head = sr.small_cnn(1, 10, channels=CH)
    m = sr.ModulatedClassifier(stages, head, mode=mode, active=active, channels=CH)
    net = sr.SaliencyEncoderDecoder(stages, channels=CH)
    return m.eval(), net.eval()


@pytest.mark.parametrize("mode", sr.models.MODES)
def test_unmodulated_is_the_plain_classifier_bitwise(mode):
    m, net = _models(mode, active=(False,) * 4)
    feats = net(X)[1]
    ref = torch.relu(m.stages[0](X))
    for s in m.stages[1:]:
        ref = torch.relu(s(ref))
    ref = m.head(ref.mean((-2, -1)))
    assert torch.equal(m(X), ref)
    assert torch.equal(m(X, feats), ref)  # every stage inactive
    m_on, _ = _models(mode)
    assert torch.equal(m_on(X), ref)  # sal_feats=None
    assert_close(ref, _plain(m.stages, m.head, X), atol=1e-6)


def test_multiply_is_relu_of_the_product_per_stage():
    m, net = _models("multiply", active=(True, False, True, True))
    feats = net(X)[1]
    h = X
    for i, s in enumerate(m.stages):
        h = s(h)
        if i != 1:
            h = h * feats[i]
        h = torch.relu(h)
    assert_close(m(X, feats), m.head(h.mean((-2, -1))), atol=1e-6)


def test_conv_modes_match_a_functional_forward():
    for mode in ("aggregate", "dwseparable"):
        m, net = _models(mode)
        feats = net(X)[1]
        h = X
        for i, s in enumerate(m.stages):
            h = s(h)
            a = m.adapters[i]
            z = torch.cat([h, feats[i]], 1)
            if mode == "aggregate":
                z = F.conv2d(z, a.conv.weight, a.conv.bias, padding=1)
            else:
                z = F.conv2d(z, a.depthwise.weight, a.depthwise.bias, padding=1, groups=z.shape[1])
                z = F.conv2d(z, a.pointwise.weight, a.pointwise.bias)
            bn = a.bn
            z = F.batch_norm(z, bn.running_mean, bn.running_var, bn.weight, bn.bias, False)
            assert z.shape == h.shape  # shape-preserving
            h = torch.relu(z)
        assert_close(m(X, feats), m.head(h.mean((-2, -1))), atol=1e-5)


@pytest.mark.parametrize("mode", sr.models.MODES)
def test_classification_gradients_never_reach_the_saliency_net(mode):
    m, net = _models(mode)
    m.train()
    net.train()
    sal, feats = net(X)
    m(X, feats).logsumexp(1).sum().backward()
    assert all(p.grad is None for p in net.parameters())
    assert all(p.grad is not None for p in m.stages.parameters())


def test_saliency_net_copies_the_stages_and_matches_their_shapes():
    stages, head = sr.small_cnn(3, 5, channels=(8, 8, 16))
    net = sr.SaliencyEncoderDecoder(stages, channels=(8, 8, 16), decoder_channels=4)
    x = torch.randn(2, 3, 12, 12)
    sal, feats = net(x)
    assert sal.shape == (2, 1, 12, 12)
    assert_close(sal.sum((1, 2, 3)), torch.ones(2), atol=1e-5)
    assert bool((sal > 0).all())
    h = x
    for s, f in zip(stages, feats):
        h = s(h)
        assert f.shape == h.shape
        h = torch.relu(h)
    before = copy.deepcopy(net.state_dict())
    with torch.no_grad():
        for p in stages.parameters():
            p.add_(1.0)
    assert all(torch.equal(before[k], v) for k, v in net.state_dict().items())


def test_conv_mode_channels_are_read_from_the_stages():
    stages, head = sr.small_cnn(1, 10, channels=CH)
    m = sr.ModulatedClassifier(stages, head, mode="dwseparable")
    assert m.channels == CH
    assert [a.pointwise.out_channels for a in m.adapters] == list(CH)
