"""The two branches: a saliency-modulated classifier and a saliency encoder-decoder."""

from __future__ import annotations

import copy
from collections.abc import Sequence

import torch
from torch import nn
from torch.nn import functional as F

from ._checks import check_bool, check_int, check_option, check_tensor, describe
from ._validation import check_images, check_module

MODES = ("multiply", "aggregate", "dwseparable")


def _check_stages(stages, name="stages"):
    if isinstance(stages, nn.Module) and not isinstance(stages, nn.ModuleList | nn.Sequential):
        raise TypeError(f"{name} must be a sequence of nn.Module stages, got {describe(stages)}")
    if isinstance(stages, str | bytes) or not isinstance(stages, Sequence | nn.Module):
        raise TypeError(f"{name} must be a sequence of nn.Module stages, got {describe(stages)}")
    stages = list(stages)
    if not stages:
        raise ValueError(f"{name} must hold at least one stage, got none")
    for i, s in enumerate(stages):
        check_module(s, f"{name}[{i}]")
    return nn.ModuleList(stages)


def _out_channels(stage):
    """The output channels of a stage: its last module with ``num_features`` (a norm) or
    ``out_channels`` (a conv); ``None`` when it has neither."""
    for m in reversed(list(stage.modules())):
        for attr in ("num_features", "out_channels"):
            c = getattr(m, attr, None)
            if isinstance(c, int) and c > 0:
                return c
    return None


class _Aggregate(nn.Module):
    """ReLU is applied by the classifier; this is BN(Conv3x3([h; s])), shape-preserving."""

    def __init__(self, c):
        super().__init__()
        self.conv = nn.Conv2d(2 * c, c, kernel_size=3, padding=1)
        self.bn = nn.BatchNorm2d(c)

    def forward(self, h, s):
        return self.bn(self.conv(torch.cat([h, s], dim=1)))


class _DWSeparable(nn.Module):
    """BN(PW(DW([h; s]))): a depthwise 3x3 on 2C channels, then a pointwise 2C -> C."""

    def __init__(self, c):
        super().__init__()
        self.depthwise = nn.Conv2d(2 * c, 2 * c, kernel_size=3, padding=1, groups=2 * c)
        self.pointwise = nn.Conv2d(2 * c, c, kernel_size=1)
        self.bn = nn.BatchNorm2d(c)

    def forward(self, h, s):
        return self.bn(self.pointwise(self.depthwise(torch.cat([h, s], dim=1))))


class ModulatedClassifier(nn.Module):
    """A staged classifier whose stage outputs are modulated by saliency features (SER's F).

    ``stages[i]`` maps the previous (post-ReLU) map to stage ``i``'s *pre-ReLU* map. In
    ``forward(x, sal_feats)`` each active stage's map ``h`` is combined with
    ``sal_feats[i].detach()`` (same shape): ``h * s`` (``"multiply"``), ``BN(Conv3x3([h; s]))``
    (``"aggregate"``) or ``BN(PW(DW([h; s])))`` (``"dwseparable"``), then ReLU; inactive stages
    and ``sal_feats=None`` give ``ReLU(h)``. Then ``head(h.mean((-2, -1)))``. Without
    modulation the output equals the plain classifier's bitwise.

    ``active``: one bool per stage (default all ``True``). ``channels``: the channel count of
    each stage's output, needed by the conv modes to build their modules at construction (so
    an optimiser created afterwards sees them); ignored by ``"multiply"``.
    """

    def __init__(self, stages, head, *, mode="multiply", active=None, channels=None):
        super().__init__()
        self.stages = _check_stages(stages)
        self.head = check_module(head, "head")
        self.mode = check_option(mode, "mode", MODES)
        n = len(self.stages)
        if active is None:
            active = (True,) * n
        if isinstance(active, str | bytes) or not isinstance(active, Sequence):
            raise TypeError(f"active must be a sequence of {n} bools, got {describe(active)}")
        if len(active) != n:
            raise ValueError(f"active must have one flag per stage ({n}), got {len(active)}")
        self.active = tuple(check_bool(a, f"active[{i}]") for i, a in enumerate(active))
        self.adapters = nn.ModuleList()
        if self.mode != "multiply":
            if channels is None:
                channels = [_out_channels(s) for s in self.stages]
                if None in channels:
                    raise ValueError(
                        f"channels is required for mode={self.mode!r}: stage "
                        f"{channels.index(None)}'s output channels cannot be read from its modules"
                    )
            if isinstance(channels, str | bytes) or not isinstance(channels, Sequence):
                raise TypeError(
                    f"channels must be a sequence of {n} ints, got {describe(channels)}"
                )
            if len(channels) != n:
                raise ValueError(
                    f"channels must have one entry per stage ({n}), got {len(channels)}"
                )
            chans = [check_int(c, f"channels[{i}]", minimum=1) for i, c in enumerate(channels)]
            block = _Aggregate if self.mode == "aggregate" else _DWSeparable
            for c, a in zip(chans, self.active):
                self.adapters.append(block(c) if a else nn.Identity())
        self.channels = None if channels is None else tuple(int(c) for c in channels)
        # False only inside ``_adversarial.end_to_end``: a white-box attack needs the input
        # gradient through the saliency branch too; training always detaches.
        self._detach_features = True

    def forward(self, x, sal_feats=None):
        check_images(x, "x")
        n = len(self.stages)
        if sal_feats is not None:
            if isinstance(sal_feats, torch.Tensor) or not isinstance(sal_feats, Sequence):
                raise TypeError(
                    f"sal_feats must be a sequence of {n} tensors or None, got {describe(sal_feats)}"
                )
            if len(sal_feats) != n:
                raise ValueError(
                    f"sal_feats must have one map per stage ({n}), got {len(sal_feats)}"
                )
        h = x
        for i, stage in enumerate(self.stages):
            h = stage(h)
            if sal_feats is not None and self.active[i]:
                s = sal_feats[i]
                check_tensor(s, f"sal_feats[{i}]")
                if tuple(s.shape) != tuple(h.shape):
                    raise ValueError(
                        f"sal_feats[{i}] must have the stage's shape {tuple(h.shape)}, "
                        f"got {tuple(s.shape)}"
                    )
                s = s.detach() if self._detach_features else s
                h = h * s if self.mode == "multiply" else self.adapters[i](h, s)
            h = F.relu(h)
        return self.head(h.mean((-2, -1)))


class SaliencyEncoderDecoder(nn.Module):
    """SER's saliency branch S: an encoder with the classifier's stage architecture plus a
    small decoder predicting a saliency map.

    ``forward(x) -> (sal_map [B, 1, H, W], feats)``: ``feats[i]`` is encoder stage ``i``'s
    pre-ReLU map (the shapes of the classifier's stages); ``sal_map`` is a softmax over the
    pixels (each map sums to 1). ``stages`` is deep-copied (as the paper copies the backbone).
    ``channels``: each stage's output channel count. The decoder (a stand-in for UNISAL's) reads
    every post-ReLU stage map bilinearly upsampled to the input size (a hypercolumn), then
    Conv3x3 -> ReLU -> Conv1x1, so coarse stages do not limit the map's resolution.
    """

    def __init__(self, stages, *, channels, decoder_channels=16):
        super().__init__()
        self.encoder = copy.deepcopy(_check_stages(stages))
        n = len(self.encoder)
        if isinstance(channels, str | bytes) or not isinstance(channels, Sequence):
            raise TypeError(f"channels must be a sequence of {n} ints, got {describe(channels)}")
        if len(channels) != n:
            raise ValueError(f"channels must have one entry per stage ({n}), got {len(channels)}")
        chans = [check_int(c, f"channels[{i}]", minimum=1) for i, c in enumerate(channels)]
        d = check_int(decoder_channels, "decoder_channels", minimum=1)
        self.decoder = nn.Sequential(
            nn.Conv2d(sum(chans), d, kernel_size=3, padding=1),
            nn.ReLU(),
            nn.Conv2d(d, 1, kernel_size=1),
        )

    def forward(self, x):
        check_images(x, "x")
        feats, maps = [], []
        h = x
        size = x.shape[-2:]
        for stage in self.encoder:
            h = stage(h)
            feats.append(h)
            h = F.relu(h)
            maps.append(
                h
                if h.shape[-2:] == size
                else F.interpolate(h, size=size, mode="bilinear", align_corners=False)
            )
        logit = self.decoder(torch.cat(maps, dim=1))
        b = logit.shape[0]
        sal = torch.softmax(logit.reshape(b, -1), dim=1).reshape(b, 1, *size)
        return sal, feats


def small_cnn(in_channels=1, num_classes=10, *, channels=(16, 32, 32, 64)):
    """A small staged CNN (conv3x3 + BN per stage, stride 2 after the first): ``(stages, head)``
    for :class:`ModulatedClassifier` / :class:`SaliencyEncoderDecoder`."""
    cin = check_int(in_channels, "in_channels", minimum=1)
    k = check_int(num_classes, "num_classes", minimum=1)
    if isinstance(channels, str | bytes) or not isinstance(channels, Sequence) or not channels:
        raise TypeError(f"channels must be a non-empty sequence of ints, got {describe(channels)}")
    chans = [check_int(c, f"channels[{i}]", minimum=1) for i, c in enumerate(channels)]
    stages = []
    for i, c in enumerate(chans):
        stride = 1 if i == 0 else 2
        stages.append(
            nn.Sequential(
                nn.Conv2d(cin, c, 3, stride=stride, padding=1, bias=False), nn.BatchNorm2d(c)
            )
        )
        cin = c
    return nn.ModuleList(stages), nn.Linear(cin, k)
