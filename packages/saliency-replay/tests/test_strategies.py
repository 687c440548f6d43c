"""Each strategy's loss against a hand-written computation on the same buffer draws."""

import copy

import pytest
import saliency_replay as sr
import torch
from saliency_replay._optim import Adam
from torch.nn import functional as F

G = torch.Generator().manual_seed(0)
X1, Y1 = torch.randn(6, 1, 8, 8, generator=G), torch.tensor([0, 1, 0, 1, 1, 0])
X2, Y2 = torch.randn(6, 1, 8, 8, generator=G), torch.tensor([2, 3, 2, 2, 3, 3])
CH = (4, 8)


def _model():
    torch.manual_seed(0)
    return sr.ModulatedClassifier(*sr.small_cnn(1, 4, channels=CH))


def _replay_draws(strategy, k):
    """The next ``k`` buffer batches the strategy will draw (same generator state)."""
    g = torch.Generator()
    g.set_state(strategy.generator.get_state())
    return [strategy.buffer.sample(6, generator=g) for _ in range(k)]


def _after_first_task(cls, **kw):
    s = cls(_model(), buffer_size=4, generator=torch.Generator().manual_seed(1), **kw)
    first = s.observe(X1, Y1)
    ref = F.cross_entropy(_model().train()(X1), Y1)  # empty buffer: stream CE only
    assert first == pytest.approx(float(ref.detach()), rel=1e-6)
    s.end_task()
    return s


def test_er_is_ce_on_stream_and_buffer_concatenated():
    s = _after_first_task(sr.ER)
    (b,) = _replay_draws(s, 1)
    m = copy.deepcopy(s.model).train()
    ref = F.cross_entropy(m(torch.cat([X2, b.x])), torch.cat([Y2, b.y]))
    assert s.observe(X2, Y2) == pytest.approx(float(ref.detach()), rel=1e-5)
    assert s.buffer.seen == 12


def test_derpp_adds_logit_mse_and_buffer_ce():
    s = _after_first_task(sr.DERpp, alpha=0.3, beta=0.7)
    assert s.buffer.logits.shape == (4, 4)
    b1, b2 = _replay_draws(s, 2)
    m = copy.deepcopy(s.model).train()
    ref = (
        F.cross_entropy(m(X2), Y2)
        + 0.3 * ((m(b1.x) - b1.logits) ** 2).mean()
        + 0.7 * F.cross_entropy(m(b2.x), b2.y)
    )
    assert s.observe(X2, Y2) == pytest.approx(float(ref.detach()), rel=1e-5)


def test_erace_masks_unseen_and_absent_classes_after_the_first_task():
    s = _after_first_task(sr.ERACE)
    (b,) = _replay_draws(s, 1)
    m = copy.deepcopy(s.model).train()
    out = m(X2)
    # seen {0..3}: the max seen class is 3 = the last one, so only classes 2 and 3 (present)
    logp = torch.stack([out[:, 2], out[:, 3]], 1).log_softmax(1)
    stream = -logp[torch.arange(6), Y2 - 2].mean()
    ref = stream + F.cross_entropy(m(b.x), b.y)
    assert s.observe(X2, Y2) == pytest.approx(float(ref.detach()), rel=1e-5)


def _ser(cls, **kw):
    torch.manual_seed(0)
    stages, head = sr.small_cnn(1, 4, channels=CH)
    model = sr.ModulatedClassifier(stages, head)
    net = sr.SaliencyEncoderDecoder(stages, channels=CH, decoder_channels=3)
    s = cls(model, buffer_size=4, generator=torch.Generator().manual_seed(1))
    return sr.SER(s, net, **kw), s


def test_ser_step_uses_the_stream_forward_features_and_eval_buffer_features():
    ser, s = _ser(sr.DERpp)
    ser.observe(X1, Y1, sr.proxy_saliency(X1))
    s.end_task()
    net0, m0 = copy.deepcopy(ser.saliency_net), copy.deepcopy(s.model).train()
    b1, b2 = _replay_draws(s, 2)
    target = sr.proxy_saliency(X2)
    sal, feats = net0.train()(X2)
    sal_loss = sr.kld_saliency_loss(sal, target)
    opt = Adam(net0.parameters(), lr=ser.sal_lr)
    opt.steps = 1
    opt.exp_avg = [t.clone() for t in ser.sal_optimizer.exp_avg]
    opt.exp_avg_sq = [t.clone() for t in ser.sal_optimizer.exp_avg_sq]
    sal_loss.backward()
    opt.step()  # the saliency step comes first; buffer features use the updated net
    net0.eval()
    with torch.no_grad():
        f1, f2 = net0(b1.x)[1], net0(b2.x)[1]
    ref = (
        F.cross_entropy(m0(X2, [f.detach() for f in feats]), Y2)
        + 0.1 * F.mse_loss(m0(b1.x, f1), b1.logits)
        + 0.5 * F.cross_entropy(m0(b2.x, f2), b2.y)
    )
    loss, got_sal = ser.observe(X2, Y2, target)
    assert got_sal == pytest.approx(float(sal_loss.detach()), rel=1e-6)
    assert loss == pytest.approx(float(ref.detach()), rel=1e-5)


def test_frozen_saliency_net_does_not_change_and_unfrozen_does():
    for frozen in (True, False):
        ser, _ = _ser(sr.ER, frozen=frozen)
        before = copy.deepcopy(ser.saliency_net.state_dict())
        ser.observe(X1, Y1, sr.proxy_saliency(X1))
        same = all(torch.equal(before[k], v) for k, v in ser.saliency_net.state_dict().items())
        assert same == frozen
