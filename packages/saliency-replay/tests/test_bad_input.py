"""Bad input: a TypeError or ValueError naming the argument, one suite case per argument.

``call(value)`` feeds ``value`` as the argument ``name`` with every other argument valid.
"""

from dataclasses import replace

import numpy as np
import saliency_replay as sr
import torch
from hypothesis import strategies as st

from papershelf_harness import suite
from papershelf_harness.suite import Flag, Int, Number, Option, OutOfRange, Values, keyword

torch.manual_seed(0)
CH = (4, 8)
STAGES, HEAD = sr.small_cnn(1, 4, channels=CH)
MODEL = sr.ModulatedClassifier(STAGES, HEAD)
NET = sr.SaliencyEncoderDecoder(STAGES, channels=CH, decoder_channels=2)
X = torch.rand(3, 1, 8, 8)
Y = torch.tensor([0, 1, 2])
FEATS = [f.detach() for f in NET(X)[1]]
MAP = torch.rand(3, 1, 8, 8) + 0.1
ACC = np.array([[0.9, 0.0], [0.6, 0.8]])

LABELS = (
    (Y.float(), TypeError),
    (Y.numpy(), TypeError),
    (torch.tensor([0, 1]), ValueError),
    (torch.tensor([0, -1, 2]), ValueError),
    (torch.zeros(3, 1, dtype=torch.long), ValueError),
)
MODULES = (("model", TypeError), (None, TypeError), (lambda t: t, TypeError), (3, TypeError))
GENERATORS = (("abc", TypeError), (3, TypeError), (np.random.default_rng(0), TypeError))
OPTIMIZERS = (("adam", TypeError), (object(), TypeError))
POSITIVE = st.floats(max_value=0.0, allow_nan=False)
NEGATIVE = st.floats(max_value=-1e-9, allow_nan=False)
ACCS = (
    ("acc", TypeError),
    (np.zeros((2, 3)), ValueError),
    (np.zeros(3), ValueError),
    (np.full((2, 2), np.nan), ValueError),
    (np.zeros((0, 0)), ValueError),
)


def images(id, call, name="x"):
    """The bad float image batches (numpy, str, None, NaN, inf, empty, 0-d, one dimension
    fewer, complex, integer) for an argument of the shape of ``X``."""
    return suite.image_batch(id, name, call, shape=tuple(X.shape))


def _buffer(**kw):
    return sr.ReservoirBuffer(4, **kw)


def _filled():
    b = _buffer()
    b.add(X, Y)
    return b


def _er(**kw):
    return sr.ER(sr.ModulatedClassifier(*sr.small_cnn(1, 4, channels=CH)), **kw)


def _ser(**kw):
    return sr.SER(_er(), sr.SaliencyEncoderDecoder(STAGES, channels=CH), **kw)


BUFFER_X = images("ReservoirBuffer.add.x", lambda v: _buffer().add(v, Y))
TASKS = sr.split_dataset(X, Y, n_tasks=3)
ER = _er()
SER = _ser()

CASES = [
    Values(
        "ModulatedClassifier.stages",
        "stages",
        lambda v: sr.ModulatedClassifier(v, HEAD),
        bad=((HEAD, TypeError), ("abc", TypeError), ([], ValueError), ([HEAD, 3], TypeError)),
    ),
    Values(
        "ModulatedClassifier.head", "head", lambda v: sr.ModulatedClassifier(STAGES, v), bad=MODULES
    ),
    keyword(
        Option,
        sr.ModulatedClassifier,
        "mode",
        STAGES,
        HEAD,
        kwargs={"channels": CH},
        valid=frozenset(sr.models.MODES),
    ),
    Values(
        "ModulatedClassifier.active",
        "active",
        lambda v: sr.ModulatedClassifier(STAGES, HEAD, active=v),
        bad=(((True,), ValueError), ((1, 0), TypeError), ("ab", TypeError), (True, TypeError)),
    ),
    Values(
        "ModulatedClassifier.channels",
        "channels",
        lambda v: sr.ModulatedClassifier(STAGES, HEAD, mode="aggregate", channels=v),
        bad=(
            ((4,), ValueError),
            ((4, 0), ValueError),
            ((4, 8.0), TypeError),
            (8, TypeError),
        ),
    ),
    Values(
        "ModulatedClassifier.channels.unreadable",
        "channels",
        lambda v: sr.ModulatedClassifier([torch.nn.ReLU()], HEAD, mode="dwseparable", channels=v),
        bad=((None, ValueError),),
    ),
    images("ModulatedClassifier.forward.x", MODEL),
    Values(
        "ModulatedClassifier.forward.sal_feats",
        "sal_feats",
        lambda v: MODEL(X, v),
        bad=(
            (FEATS[0], TypeError),
            (FEATS[:1], ValueError),
            ([FEATS[1], FEATS[0]], ValueError),
            ([FEATS[0].numpy(), FEATS[1]], TypeError),
            ([torch.full_like(FEATS[0], float("nan")), FEATS[1]], ValueError),
        ),
    ),
    Values(
        "SaliencyEncoderDecoder.stages",
        "stages",
        lambda v: sr.SaliencyEncoderDecoder(v, channels=CH),
        bad=((HEAD, TypeError), ([], ValueError), (None, TypeError)),
    ),
    Values(
        "SaliencyEncoderDecoder.channels",
        "channels",
        lambda v: sr.SaliencyEncoderDecoder(STAGES, channels=v),
        bad=(
            (8, TypeError),
            ((4,), ValueError),
            ((4, 0), ValueError),
            ((4, 8.0), TypeError),
            (None, TypeError),
        ),
    ),
    keyword(
        Int,
        sr.SaliencyEncoderDecoder,
        "decoder_channels",
        STAGES,
        kwargs={"channels": CH},
        minimum=1,
    ),
    images("SaliencyEncoderDecoder.forward.x", NET),
    Int("small_cnn.in_channels", "in_channels", lambda v: sr.small_cnn(v), minimum=1),
    Int("small_cnn.num_classes", "num_classes", lambda v: sr.small_cnn(1, v), minimum=1),
    Values(
        "small_cnn.channels",
        "channels",
        lambda v: sr.small_cnn(1, 2, channels=v),
        bad=((16, TypeError), ((), TypeError), ((4, 0), ValueError), ((4.5,), TypeError)),
    ),
    images("kld_saliency_loss.pred", lambda v: sr.kld_saliency_loss(v, MAP), "pred"),
    Values(
        "kld_saliency_loss.pred.map",
        "pred",
        lambda v: sr.kld_saliency_loss(v, MAP),
        bad=((-MAP, ValueError), (torch.zeros_like(MAP), ValueError), (MAP[:2], ValueError)),
    ),
    images("kld_saliency_loss.target", lambda v: sr.kld_saliency_loss(MAP, v), "target"),
    Values(
        "kld_saliency_loss.target.map",
        "target",
        lambda v: sr.kld_saliency_loss(MAP, v),
        bad=((-MAP, ValueError), (MAP[..., :4], ValueError)),
    ),
    keyword(Number, sr.kld_saliency_loss, "eps", MAP, MAP),
    keyword(OutOfRange, sr.kld_saliency_loss, "eps", MAP, MAP, values=NEGATIVE, id="kld.eps.range"),
    images("proxy_saliency.x", sr.proxy_saliency),
    keyword(Number, sr.proxy_saliency, "sigma", X),
    keyword(OutOfRange, sr.proxy_saliency, "sigma", X, values=NEGATIVE, id="proxy.sigma.range"),
    keyword(Number, sr.proxy_saliency, "floor", X),
    Int("ReservoirBuffer.size", "size", lambda v: sr.ReservoirBuffer(v), minimum=1),
    Values(
        "ReservoirBuffer.generator", "generator", lambda v: _buffer(generator=v), bad=GENERATORS
    ),
    # the buffer stores samples of any shape: one dimension fewer ([1, 8, 8]) is one 8x8 sample
    # (then y has the wrong length), so that one of the image batches is left out here
    replace(
        BUFFER_X,
        bad=tuple(
            (v, e)
            for v, e in BUFFER_X.bad
            if not (isinstance(v, torch.Tensor) and v.shape == X.shape[1:])
        ),
    ),
    Values("ReservoirBuffer.add.y", "y", lambda v: _buffer().add(X, v), bad=LABELS[:3]),
    Values(
        "ReservoirBuffer.add.logits",
        "logits",
        lambda v: _buffer().add(X, Y, logits=v),
        bad=(
            (torch.zeros(2, 4), ValueError),
            (torch.zeros(3), ValueError),
            (torch.full((3, 4), float("nan")), ValueError),
            ("l", TypeError),
        ),
    ),
    Values(
        "ReservoirBuffer.add.task_id",
        "task_id",
        lambda v: _buffer().add(X, Y, task_id=v),
        bad=(
            (-1, ValueError),
            (1.5, TypeError),
            ("t", TypeError),
            (torch.tensor([0, 1]), ValueError),
            (torch.tensor([0.0, 1.0, 1.0]), TypeError),
        ),
    ),
    Int("ReservoirBuffer.sample.n", "n", lambda v: _filled().sample(v), minimum=1),
    Values(
        "ReservoirBuffer.sample.generator",
        "generator",
        lambda v: _filled().sample(2, generator=v),
        bad=GENERATORS,
    ),
    Values("ER.model", "model", lambda v: sr.ER(v), bad=MODULES),
    keyword(Int, _er, "buffer_size", minimum=1),
    keyword(Int, _er, "minibatch_size", minimum=1, none_ok=True),
    keyword(Number, _er, "lr"),
    keyword(OutOfRange, _er, "lr", values=POSITIVE, id="ER.lr.range"),
    Values("ER.optimizer", "optimizer", lambda v: _er(optimizer=v), bad=OPTIMIZERS),
    Values("ER.generator", "generator", lambda v: _er(generator=v), bad=GENERATORS),
    keyword(Number, sr.DERpp, "alpha", MODEL),
    keyword(Number, sr.DERpp, "beta", MODEL),
    keyword(OutOfRange, sr.DERpp, "alpha", MODEL, values=NEGATIVE, id="DERpp.alpha.range"),
    Values("ERACE.model", "model", lambda v: sr.ERACE(v), bad=MODULES),
    images("ER.observe.x", lambda v: ER.observe(v, Y)),
    Values("ER.observe.y", "y", lambda v: ER.observe(X, v), bad=LABELS),
    images("ER.logits.x", ER.logits),
    Values(
        "SER.strategy",
        "strategy",
        lambda v: sr.SER(v, NET),
        bad=((MODEL, TypeError), (None, TypeError)),
    ),
    Values("SER.saliency_net", "saliency_net", lambda v: sr.SER(_er(), v), bad=MODULES),
    keyword(Flag, _ser, "frozen"),
    keyword(Number, _ser, "sal_coeff"),
    keyword(OutOfRange, _ser, "sal_lr", values=POSITIVE, id="SER.sal_lr.range"),
    Values("SER.sal_optimizer", "sal_optimizer", lambda v: _ser(sal_optimizer=v), bad=OPTIMIZERS),
    images("SER.observe.x", lambda v: SER.observe(v, Y, MAP)),
    Values("SER.observe.y", "y", lambda v: SER.observe(X, v, MAP), bad=LABELS),
    images("SER.observe.sal_target", lambda v: SER.observe(X, Y, v), "sal_target"),
    Values(
        "SER.observe.sal_target.shape",
        "sal_target",
        lambda v: SER.observe(X, Y, v),
        bad=((MAP[:2], ValueError), (MAP[..., :4], ValueError)),
    ),
    Values(
        "split_dataset.X",
        "X",
        lambda v: sr.split_dataset(v, Y.numpy(), n_tasks=3),
        bad=(
            ("X", TypeError),
            (None, TypeError),
            (np.zeros((2, 2)), ValueError),
            (np.float64(1.0), ValueError),
        ),
    ),
    Values(
        "split_dataset.y",
        "y",
        lambda v: sr.split_dataset(np.zeros((3, 2)), v, n_tasks=3),
        bad=(
            (np.array([0.5, 1, 2]), TypeError),
            (np.zeros((3, 1)), ValueError),
            ([0, 1], ValueError),
            (Y.float(), TypeError),
        ),
    ),
    keyword(Int, sr.split_dataset, "n_tasks", np.zeros((3, 2)), Y.numpy(), minimum=1),
    Values(
        "split_dataset.n_tasks.too_many",
        "n_tasks",
        lambda v: sr.split_dataset(np.zeros((3, 2)), Y.numpy(), n_tasks=v),
        bad=((4, ValueError), (2, ValueError)),
    ),
    keyword(
        Int,
        sr.split_dataset,
        "classes_per_task",
        np.zeros((3, 2)),
        Y.numpy(),
        kwargs={"n_tasks": 1},
        minimum=1,
        none_ok=True,
    ),
    Values(
        "split_dataset.classes_per_task.too_many",
        "classes_per_task",
        lambda v: sr.split_dataset(np.zeros((3, 2)), Y.numpy(), n_tasks=2, classes_per_task=v),
        bad=((2, ValueError),),
    ),
    Values("average_accuracy.acc", "acc", sr.average_accuracy, bad=ACCS),
    Values("forgetting.acc", "acc", sr.forgetting, bad=(*ACCS, (np.ones((1, 1)), ValueError))),
    Values(
        "accuracy.learner",
        "learner",
        lambda v: sr.accuracy(v, X, Y),
        bad=((MODEL, TypeError), (None, TypeError)),
    ),
    images("accuracy.x", lambda v: sr.accuracy(ER, v, Y)),
    Values("accuracy.y", "y", lambda v: sr.accuracy(ER, X, v), bad=LABELS[:3]),
    Values(
        "accuracy.classes",
        "classes",
        lambda v: sr.accuracy(ER, X, Y, classes=v),
        bad=(
            ("ab", TypeError),
            ([0.5], TypeError),
            ([-1], ValueError),
            ([4], ValueError),
            ([[0]], ValueError),
        ),
    ),
    keyword(Int, sr.accuracy, "batch_size", ER, X, Y, minimum=1),
    keyword(Int, sr.run_stream, "batch_size", ER, TASKS, TASKS, minimum=1),
    Values(
        "run_stream.train_tasks",
        "train_tasks",
        lambda v: sr.run_stream(ER, v, TASKS),
        bad=(([], TypeError), ("t", TypeError), (None, TypeError)),
    ),
    Values(
        "run_stream.test_tasks",
        "test_tasks",
        lambda v: sr.run_stream(ER, TASKS, v),
        bad=((TASKS[:2], ValueError), (None, TypeError)),
    ),
    Values(
        "run_stream.saliency",
        "saliency",
        lambda v: sr.run_stream(ER, TASKS, TASKS, saliency=v),
        bad=(("proxy", TypeError), (3, TypeError)),
    ),
    Values(
        "run_stream.generator",
        "generator",
        lambda v: sr.run_stream(ER, TASKS, TASKS, generator=v),
        bad=GENERATORS,
    ),
]

globals().update(suite.bad_input_suite(CASES))
