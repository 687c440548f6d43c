"""One torch thread (the suite's tensors are tiny) and modules that turn closed-form functions
into "networks", so that a loss can be checked at the exact solution (an independent reference:
the residual of the true solution is zero)."""

import torch

torch.set_num_threads(1)


class Exact(torch.nn.Module):
    """x -> sum_alpha c_alpha d^alpha fn(x) by autograd on a closed-form fn (a fixed function with
    one dummy parameter, so it looks like a network to the package)."""

    def __init__(self, fn, d, op=None):
        super().__init__()
        self.fn, self.d = fn, d
        self.op = op or {(0,) * d: 1.0}
        self.dummy = torch.nn.Parameter(torch.zeros((), dtype=torch.float64))

    def forward(self, x):
        if all(sum(a) == 0 for a in self.op):
            return self.fn(x) + 0.0 * self.dummy
        if not x.requires_grad:
            x = x.detach().requires_grad_(True)
        out = 0.0 * self.dummy
        for alpha, c in self.op.items():
            y = self.fn(x)
            for i, k in enumerate(alpha):
                for _ in range(k):
                    (g,) = torch.autograd.grad(y.sum(), x, create_graph=True)
                    y = g[:, i]
            out = out + c * y
        return out
