"""Small policy networks and an ensemble, for distillation and evaluation."""

from __future__ import annotations

import torch
from torch import nn

from ._checks import check_bool, check_int, describe

__all__ = ["MLPPolicy", "PolicyEnsemble"]


class MLPPolicy(nn.Module):
    """An MLP ``obs_dim -> hidden... -> out_dim`` with ReLU activations.

    ``discrete=True``: a softmax head (action probabilities, for n_actions = ``out_dim``);
    ``discrete=False``: a tanh head scaled by ``max_action`` (deterministic continuous actions).
    """

    def __init__(
        self, obs_dim, out_dim, *, hidden=(64, 64), discrete=True, max_action=1.0, dtype=None
    ):
        super().__init__()
        obs_dim = check_int(obs_dim, "obs_dim", minimum=1)
        out_dim = check_int(out_dim, "out_dim", minimum=1)
        if isinstance(hidden, int) or not hasattr(hidden, "__iter__"):
            raise TypeError(f"hidden must be a sequence of layer widths, got {describe(hidden)}")
        widths = [check_int(h, "hidden", minimum=1) for h in hidden]
        self.discrete = check_bool(discrete, "discrete")
        from ._checks import check_float

        self.max_action = check_float(max_action, "max_action", minimum=0.0, min_inclusive=False)
        layers: list[nn.Module] = []
        d = obs_dim
        for w in widths:
            layers += [nn.Linear(d, w, dtype=dtype), nn.ReLU()]
            d = w
        layers.append(nn.Linear(d, out_dim, dtype=dtype))
        self.net = nn.Sequential(*layers)
        self.obs_dim, self.out_dim = obs_dim, out_dim

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        z = self.net(obs)
        if self.discrete:
            return torch.softmax(z, dim=-1)
        return self.max_action * torch.tanh(z)


class PolicyEnsemble(nn.Module):
    """The mean output of several policies (action probabilities, or mean actions)."""

    def __init__(self, policies):
        super().__init__()
        policies = list(policies) if not isinstance(policies, nn.Module) else None
        if policies is None:
            raise TypeError("policies must be a sequence of torch.nn.Module, got a single module")
        if not policies:
            raise ValueError("policies must not be empty, got 0 policies")
        for i, p in enumerate(policies):
            if not isinstance(p, nn.Module):
                raise TypeError(f"policies[{i}] must be a torch.nn.Module, got {describe(p)}")
        self.members = nn.ModuleList(policies)

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        return torch.stack([p(obs) for p in self.members]).mean(dim=0)
