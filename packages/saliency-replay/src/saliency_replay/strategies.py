"""Rehearsal strategies (ER, DER++, ER-ACE) and the SER wrapper that adds saliency modulation."""

from __future__ import annotations

import torch
from torch.nn import functional as F

from ._checks import check_bool, check_float, check_generator, check_int, describe
from ._optim import Adam
from ._validation import check_images, check_labels, check_module
from .buffer import ReservoirBuffer
from .losses import kld_saliency_loss


class _Rehearsal:
    """Shared machinery: the model, its optimiser, the reservoir buffer and the task counter.

    ``observe(x, y)`` does one online step on a stream batch and returns the loss (float);
    ``end_task()`` marks a task boundary; ``logits(x)`` evaluates (eval mode, no grad).
    The model is called as ``model(x)``, or ``model(x, sal_feats)`` once wrapped by :class:`SER`.
    """

    stores_logits = False

    def __init__(
        self,
        model,
        *,
        buffer_size=200,
        minibatch_size=None,
        lr=1e-3,
        optimizer=None,
        generator=None,
    ):
        self.model = check_module(model, "model")
        self.buffer = ReservoirBuffer(
            check_int(buffer_size, "buffer_size", minimum=1), generator=check_generator(generator)
        )
        self.generator = generator
        self.minibatch_size = (
            None
            if minibatch_size is None
            else check_int(minibatch_size, "minibatch_size", minimum=1)
        )
        self.lr = check_float(lr, "lr", minimum=0.0, min_inclusive=False)
        if optimizer is not None and not (
            hasattr(optimizer, "step") and hasattr(optimizer, "zero_grad")
        ):
            raise TypeError(
                f"optimizer must have step() and zero_grad(), got {describe(optimizer)}"
            )
        self.optimizer = (
            optimizer if optimizer is not None else Adam(model.parameters(), lr=self.lr)
        )
        self.task = 0
        self._features = None  # set by SER: x -> list of saliency feature maps

    def _forward(self, x, feats=None):
        if self._features is None:
            return self.model(x)
        return self.model(x, self._features(x) if feats is None else feats)

    def _replay(self, n):
        return self.buffer.sample(self.minibatch_size or n, generator=self.generator)

    def end_task(self):
        """Mark the end of a task (ER-ACE masks logits from the second task on)."""
        self.task += 1

    @torch.no_grad()
    def logits(self, x):
        check_images(x, "x")
        was = self.model.training
        self.model.eval()
        try:
            return self._forward(x)
        finally:
            self.model.train(was)

    def _check_batch(self, x, y):
        check_images(x, "x")
        check_labels(y, "y", x.shape[0])

    def observe(self, x, y):
        self._check_batch(x, y)
        return self._observe(x, y, None)

    def _step(self, loss):
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return float(loss.detach())


class ER(_Rehearsal):
    """Experience Replay: CE on the stream batch concatenated with a buffer batch (as Mammoth's
    ``er``); the stream batch is then offered to the reservoir buffer."""

    def _observe(self, x, y, feats):
        self.model.train()
        if len(self.buffer):
            bx, by, _, _ = self._replay(x.shape[0])
            xs, ys = torch.cat([x, bx]), torch.cat([y, by])
            f = (
                None
                if feats is None
                else [torch.cat([a, b]) for a, b in zip(feats, self._features(bx))]
            )
            loss = F.cross_entropy(self._forward(xs, f), ys)
        else:
            loss = F.cross_entropy(self._forward(x, feats), y)
        out = self._step(loss)
        self.buffer.add(x, y)
        return out


class DERpp(_Rehearsal):
    """DER++: CE(stream) + alpha * MSE(F(x_b), stored logits) + beta * CE(F(x_b'), y_b'),
    two independent buffer batches; the stream logits are stored with the samples."""

    def __init__(self, model, *, alpha=0.1, beta=0.5, **options):
        super().__init__(model, **options)
        self.alpha = check_float(alpha, "alpha", minimum=0.0)
        self.beta = check_float(beta, "beta", minimum=0.0)

    def _observe(self, x, y, feats):
        self.model.train()
        out = self._forward(x, feats)
        loss = F.cross_entropy(out, y)
        if len(self.buffer):
            bx, _, bl, _ = self._replay(x.shape[0])
            loss = loss + self.alpha * F.mse_loss(self._forward(bx), bl)
            bx, by, _, _ = self._replay(x.shape[0])
            loss = loss + self.beta * F.cross_entropy(self._forward(bx), by)
        val = self._step(loss)
        self.buffer.add(x, y, logits=out.detach())
        return val


class ERACE(_Rehearsal):
    """ER-ACE (asymmetric cross-entropy): from the second task on, the stream CE only sees the
    classes present in the batch and those above the largest class seen so far; the buffer batch
    gets the full CE (as Mammoth's ``er_ace``)."""

    def __init__(self, model, **options):
        super().__init__(model, **options)
        self.seen_classes = torch.zeros(0, dtype=torch.long)

    def _observe(self, x, y, feats):
        self.model.train()
        present = y.unique()
        self.seen_classes = torch.cat([self.seen_classes, present.cpu()]).unique()
        out = self._forward(x, feats)
        if self.task > 0:
            mask = torch.zeros_like(out, dtype=torch.bool)
            mask[:, present] = True
            top = int(self.seen_classes.max())
            if top < out.shape[1] - 1:
                mask[:, top:] = True
            out = out.masked_fill(~mask, torch.finfo(out.dtype).min)
        loss = F.cross_entropy(out, y)
        if self.task > 0 and len(self.buffer):
            bx, by, _, _ = self._replay(x.shape[0])
            loss = loss + F.cross_entropy(self._forward(bx), by)
        val = self._step(loss)
        self.buffer.add(x, y)
        return val


class SER:
    """Saliency-driven Experience Replay around a rehearsal ``strategy`` (ER, DERpp, ERACE).

    ``saliency_net(x) -> (sal_map, feats)`` (e.g. :class:`SaliencyEncoderDecoder`); the
    strategy's model must be a :class:`ModulatedClassifier` (called ``model(x, feats)``).
    ``observe(x, y, sal_target)``: (1) the saliency net predicts on the stream batch and, unless
    ``frozen``, takes one step on ``sal_coeff * kld_saliency_loss``; (2) the strategy's step runs
    with that forward's features (detached) modulating the classifier; buffer samples get
    features from the saliency net in eval mode, without gradients. Returns
    ``(classification loss, saliency loss)``. ``sal_lr``: the saliency optimiser's learning rate
    (or pass ``sal_optimizer``).
    """

    def __init__(
        self,
        strategy,
        saliency_net,
        *,
        frozen=False,
        sal_coeff=1.0,
        sal_lr=1e-3,
        sal_optimizer=None,
    ):
        if not isinstance(strategy, _Rehearsal):
            raise TypeError(f"strategy must be an ER, DERpp or ERACE, got {describe(strategy)}")
        self.strategy = strategy
        self.saliency_net = check_module(saliency_net, "saliency_net")
        self.frozen = check_bool(frozen, "frozen")
        self.sal_coeff = check_float(sal_coeff, "sal_coeff", minimum=0.0)
        self.sal_lr = check_float(sal_lr, "sal_lr", minimum=0.0, min_inclusive=False)
        if sal_optimizer is not None and not (
            hasattr(sal_optimizer, "step") and hasattr(sal_optimizer, "zero_grad")
        ):
            raise TypeError(
                f"sal_optimizer must have step() and zero_grad(), got {describe(sal_optimizer)}"
            )
        if self.frozen:
            for p in self.saliency_net.parameters():
                p.requires_grad_(False)
            self.saliency_net.eval()
            self.sal_optimizer = None
        else:
            self.sal_optimizer = sal_optimizer or Adam(
                self.saliency_net.parameters(), lr=self.sal_lr
            )
        strategy._features = self._buffer_features

    @property
    def model(self):
        return self.strategy.model

    @property
    def buffer(self):
        return self.strategy.buffer

    @torch.no_grad()
    def _buffer_features(self, x):
        was = self.saliency_net.training
        self.saliency_net.eval()
        try:
            return [f.detach() for f in self.saliency_net(x)[1]]
        finally:
            self.saliency_net.train(was)

    def saliency(self, x):
        """The predicted saliency maps ``[B, 1, H, W]`` (eval mode, no grad)."""
        check_images(x, "x")
        with torch.no_grad():
            was = self.saliency_net.training
            self.saliency_net.eval()
            try:
                return self.saliency_net(x)[0]
            finally:
                self.saliency_net.train(was)

    def observe(self, x, y, sal_target):
        self.strategy._check_batch(x, y)
        check_images(sal_target, "sal_target")
        if sal_target.shape[0] != x.shape[0] or tuple(sal_target.shape[-2:]) != tuple(x.shape[-2:]):
            raise ValueError(
                f"sal_target must have shape [{x.shape[0]}, 1, {x.shape[2]}, {x.shape[3]}], "
                f"got {tuple(sal_target.shape)}"
            )
        if not self.frozen:
            self.saliency_net.train()
        pred, feats = self.saliency_net(x)
        sal_loss = self.sal_coeff * kld_saliency_loss(pred, sal_target)
        if not self.frozen:
            self.sal_optimizer.zero_grad()
            sal_loss.backward()
            self.sal_optimizer.step()
        feats = [f.detach() for f in feats]
        loss = self.strategy._observe(x, y, feats)
        return loss, float(sal_loss.detach())

    def end_task(self):
        self.strategy.end_task()

    def logits(self, x):
        return self.strategy.logits(x)
