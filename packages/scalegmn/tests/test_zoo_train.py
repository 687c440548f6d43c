"""The zoo trains every network (loss falls, labels balanced) and the training loop learns."""

import scalegmn as S
import torch
from conftest import gen
from scalegmn.train import accuracy, fit_classifier, predict


def test_function_zoo_fits_and_labels():
    z0 = S.zoo.function_zoo(12, layer_dims=(2, 6, 1), steps=0, n_side=6, generator=gen(0))
    z = S.zoo.function_zoo(12, layer_dims=(2, 6, 1), steps=80, lr=0.03, n_side=6, generator=gen(0))
    assert len(z) == 12 and [tuple(w.shape) for w in z.weights] == [(12, 6, 2), (12, 1, 6)]
    assert torch.bincount(z.labels, minlength=4).tolist() == [3, 3, 3, 3]
    assert torch.equal(z.labels, z0.labels)  # same generator, same targets
    assert float(z.loss.mean()) < 0.5 * float(z0.loss.mean())
    # the stored loss is the MSE of the stored weights on the grid targets
    y = S.zoo.target_functions(z.labels, S.zoo.grid(6), generator=gen(1))
    assert y.shape == (12, 36)
    sub = z.subset(torch.tensor([0, 5]))
    assert len(sub) == 2 and torch.equal(sub.weights[0][1], z.weights[0][5])


def test_target_classes_differ():
    x = S.zoo.grid(10)
    labels = torch.arange(4)
    f = S.zoo.target_functions(labels, x, generator=gen(2))
    # the saddle is even under x -> -x; wave and step are bounded by 1
    neg = S.zoo.target_functions(labels, -x, generator=gen(2))
    assert torch.allclose(neg[2], f[2], atol=1e-6)
    assert float(f[[0, 3]].abs().max()) <= 1.0


def test_fit_classifier_learns_a_separable_task():
    # class = sign of the output bias: a one-feature task any metanetwork should learn
    g = gen(3)
    ws = [torch.randn(64, 3, 2, generator=g), torch.randn(64, 1, 3, generator=g)]
    bs = [torch.randn(64, 3, generator=g), torch.randn(64, 1, generator=g)]
    labels = (bs[1][:, 0] > 0).long()
    torch.manual_seed(0)
    m = S.ScaleGMN((2, 3, 1), out_dim=2, d_hidden=8, num_layers=1)
    before = accuracy(m, ws, bs, labels)
    hist = fit_classifier(m, ws, bs, labels, epochs=15, batch_size=16, lr=1e-2, generator=g)
    assert hist[-1] < hist[0]
    assert accuracy(m, ws, bs, labels) >= max(0.85, before)
    assert predict(m, ws, bs, batch_size=10).shape == (64, 2)
