"""Small example backbones and the paper's λ network (all plain ``nn.Module``s)."""

from __future__ import annotations

import torch
from torch import nn

from ._checks import check_float, check_int, check_tensor

__all__ = ["MLP", "DigitsCNN", "WeightNet"]


class DigitsCNN(nn.Module):
    """A tiny, deliberately non-invariant CNN for ``[B, 1, S, S]`` images (8×8 digits by default).

    Two 3×3 conv layers, 2×2 max-pool, a flatten and a linear head (the flatten keeps the position
    information, so the plain model is not rotation invariant). ``features(x)`` gives the
    ``[B, channels * 2 * (S // 2)**2]`` penultimate features (for a λ network).
    """

    def __init__(self, n_classes: int = 10, *, channels: int = 16, image_size: int = 8) -> None:
        super().__init__()
        n_classes = check_int(n_classes, "n_classes", minimum=2)
        channels = check_int(channels, "channels", minimum=1)
        self.image_size = check_int(image_size, "image_size", minimum=2)
        self.body = nn.Sequential(
            nn.Conv2d(1, channels, 3, padding=1),
            nn.ReLU(),
            nn.Conv2d(channels, 2 * channels, 3, padding=1),
            nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Flatten(),
        )
        self.n_features = 2 * channels * (self.image_size // 2) ** 2
        self.head = nn.Linear(self.n_features, n_classes)

    def features(self, x: torch.Tensor) -> torch.Tensor:
        s = self.image_size
        check_tensor(x, "x", shape=(None, 1, s, s))
        return self.body(x)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.features(x))


class MLP(nn.Module):
    """``Linear -> ReLU`` blocks then a linear output; flattens all but the batch dimension."""

    def __init__(
        self, in_features: int, out_features: int, *, hidden: int = 64, depth: int = 2
    ) -> None:
        super().__init__()
        in_features = check_int(in_features, "in_features", minimum=1)
        out_features = check_int(out_features, "out_features", minimum=1)
        hidden = check_int(hidden, "hidden", minimum=1)
        depth = check_int(depth, "depth", minimum=1)
        layers: list[nn.Module] = [nn.Flatten()]
        width = in_features
        for _ in range(depth):
            layers += [nn.Linear(width, hidden), nn.ReLU()]
            width = hidden
        layers.append(nn.Linear(width, out_features))
        self.net = nn.Sequential(*layers)
        self.in_features = in_features

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        check_tensor(x, "x", ndim=range(2, 16))
        return self.net(x)


class WeightNet(nn.Module):
    """The paper's λ network: ``in -> hidden -> hidden -> 1`` with ReLU after the first layer and
    dropout after the first two (authors' CLIP setting: 512/1024 -> 100 -> 100 -> 1, dropout 0.5).
    Returns ``[N, 1]`` unnormalised scores (the wrapper makes them positive and normalises)."""

    def __init__(self, in_features: int, *, hidden: int = 100, dropout: float = 0.5) -> None:
        super().__init__()
        in_features = check_int(in_features, "in_features", minimum=1)
        hidden = check_int(hidden, "hidden", minimum=1)
        dropout = check_float(dropout, "dropout", minimum=0.0, maximum=1.0, max_inclusive=False)
        self.fc1 = nn.Linear(in_features, hidden)
        self.fc2 = nn.Linear(hidden, hidden)
        self.fc3 = nn.Linear(hidden, 1)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        check_tensor(x, "x", ndim=range(2, 16))
        x = x.flatten(1).float()
        x = self.dropout(torch.relu(self.fc1(x)))
        x = self.dropout(self.fc2(x))
        return self.fc3(x)
