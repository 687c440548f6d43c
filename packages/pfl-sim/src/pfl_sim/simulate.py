"""The simulation loop: one model per worker, cohort sharded by rank, one all-reduce per round."""

from __future__ import annotations

import copy
import os
import pickle
import queue
import tempfile
import traceback
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import torch

from ._checks import (
    check_callable,
    check_float,
    check_int,
    check_option,
    check_tensor,
    describe,
)
from .privacy import _check_privacy

__all__ = ["SimulationResult", "simulate"]

OPTIMIZERS = ("sgd", "adam")
WEIGHTINGS = ("uniform", "examples")


@dataclass(frozen=True)
class SimulationResult:
    """``state_dict``: the final central model's ``state_dict()`` (tensors on the CPU);
    ``history``: one dict per round with ``round``, ``cohort`` (the user ids), ``train_loss``
    (mean over the cohort of each user's mean local training loss), ``update_norm`` (L2 norm of
    the averaged update applied), and with ``privacy``: ``clip_bound``, ``clipped_fraction``,
    ``noise_std`` (per coordinate, on the averaged update) and ``signal_to_noise``.
    """

    state_dict: dict
    history: list


# ------------------------------------------------------------------------------ validation
def _check_model(model):
    if not isinstance(model, torch.nn.Module):
        raise TypeError(f"model must be a torch.nn.Module, got {describe(model)}")
    params = [p for p in model.parameters() if p.requires_grad]
    if not params:
        raise ValueError("model must have at least one trainable parameter, got none")
    dtypes = {p.dtype for p in params}
    devices = {p.device for p in params}
    if len(dtypes) > 1 or len(devices) > 1:
        raise ValueError(
            f"model's trainable parameters must share one dtype and device, got {dtypes}, {devices}"
        )
    if not params[0].is_floating_point():
        raise ValueError(f"model's parameters must be floating point, got {params[0].dtype}")
    return params[0].dtype, params[0].device


def _as_tensor(v, name):
    if isinstance(v, torch.Tensor):
        return v
    if isinstance(v, np.ndarray):
        if v.dtype.kind not in "biuf":
            raise TypeError(f"{name} must hold numbers, got {describe(v)}")
        return torch.as_tensor(v)
    raise TypeError(f"{name} must be a torch.Tensor or numpy array, got {describe(v)}")


def _check_users(users, dtype, device):
    if not isinstance(users, Mapping):
        raise TypeError(f"users must be a dict {{user_id: (x, y)}}, got {describe(users)}")
    if len(users) == 0:
        raise ValueError("users must not be empty, got an empty dict")
    ids, data = [], []
    for uid, value in users.items():
        name = f"users[{uid!r}]"
        if not isinstance(value, tuple | list) or len(value) != 2:
            raise TypeError(f"{name} must be a pair (x, y), got {describe(value)}")
        x = _as_tensor(value[0], f"{name}[0] (x)")
        y = _as_tensor(value[1], f"{name}[1] (y)")
        if x.ndim == 0 or y.ndim == 0:
            raise ValueError(f"{name}: x and y must have a leading example axis, got scalars")
        check_tensor(x, f"{name}[0] (x)", dtype="any")
        check_tensor(y, f"{name}[1] (y)", dtype="any")
        if x.shape[0] != y.shape[0]:
            raise ValueError(
                f"{name}: x has {x.shape[0]} examples but y has {y.shape[0]}; they must match"
            )
        if x.is_floating_point():
            x = x.to(dtype)
        if y.is_floating_point():
            y = y.to(dtype)
        ids.append(uid)
        data.append((x.to(device), y.to(device)))
    return ids, data


# ------------------------------------------------------------------------------ the loop
def _seed(*entropy) -> int:
    return int(np.random.SeedSequence([int(e) for e in entropy]).generate_state(1, np.uint64)[0])


class _Simulation:
    def __init__(self, model, loss_fn, ids, data, opts, privacy):
        self.model = model
        self.loss_fn = loss_fn
        self.ids = ids
        self.data = data
        self.o = opts
        self.privacy = privacy
        self.params = [p for p in model.parameters() if p.requires_grad]
        self.sizes = [p.numel() for p in self.params]

    # -- flat views of the trainable parameters
    def _flat(self):
        return torch.cat([p.detach().reshape(-1) for p in self.params])

    def _load(self, flat):
        with torch.no_grad():
            o = 0
            for p, n in zip(self.params, self.sizes):
                p.copy_(flat[o : o + n].view_as(p))
                o += n

    def _seed_rng(self, seed):
        # torch.manual_seed would also queue lazy CUDA/XPU/MTIA seeding (slow, per user)
        torch.default_generator.manual_seed(seed)
        if self.params[0].device.type == "cuda":
            torch.cuda.default_generators[self.params[0].device.index or 0].manual_seed(seed)

    def _cohort(self, rnd):
        rng = np.random.default_rng(np.random.SeedSequence([self.o["seed"], rnd]))
        return rng.choice(len(self.ids), size=self.o["cohort_size"], replace=False)

    def _local_train(self, theta, x, y, opt):
        self._load(theta)
        n = x.shape[0]
        b = self.o["local_batch_size"] or n
        losses = []
        for _ in range(self.o["local_epochs"]):
            for s in range(0, n, b):
                opt.zero_grad(set_to_none=True)
                loss = self.loss_fn(self.model(x[s : s + b]), y[s : s + b])
                if not isinstance(loss, torch.Tensor) or loss.numel() != 1:
                    raise ValueError(f"loss_fn must return a scalar tensor, got {describe(loss)}")
                loss.backward()
                opt.step()
                losses.append(float(loss.detach()))
        delta = self._flat() - theta
        if not bool(torch.isfinite(delta).all()):
            raise ValueError(
                "local training diverged (non-finite update); lower local_lr, got "
                f"{self.o['local_lr']}"
            )
        return delta, sum(losses) / len(losses)

    def run(self, rank, world, allreduce):
        o, priv = self.o, self.privacy
        model = self.model
        model.train()
        theta = self._flat().clone()
        d = theta.numel()
        local_opt = torch.optim.SGD(self.params, lr=o["local_lr"])
        central = None
        if o["central_optimizer"] == "adam":
            central_param = torch.nn.Parameter(theta.clone())
            central = torch.optim.Adam([central_param], lr=o["central_lr"])
        clip = priv.clip_bound if priv is not None else None
        m = o["cohort_size"]
        history = []
        for rnd in range(o["rounds"]):
            cohort = self._cohort(rnd)
            buf = torch.zeros(d + 3, dtype=theta.dtype, device=theta.device)
            acc = buf[:d]
            for pos in range(rank, m, world):
                u = int(cohort[pos])
                x, y = self.data[u]
                self._seed_rng(_seed(o["seed"], rnd, u, 1))  # dropout etc.: same for any k
                delta, loss = self._local_train(theta, x, y, local_opt)
                if priv is not None:
                    norm = float(torch.linalg.vector_norm(delta))
                    if norm > clip:
                        delta.mul_(clip / norm)
                    else:
                        buf[d + 1] += 1.0
                    acc.add_(delta)
                    buf[d] += 1.0
                else:
                    w = float(x.shape[0]) if o["weighting"] == "examples" else 1.0
                    acc.add_(delta, alpha=w) if w != 1.0 else acc.add_(delta)
                    buf[d] += w
                buf[d + 2] += loss
            if allreduce is not None:
                allreduce(buf)
            record = {
                "round": rnd,
                "cohort": [self.ids[int(u)] for u in cohort],
                "train_loss": float(buf[d + 2]) / m,
            }
            if priv is not None:
                gen = torch.Generator().manual_seed(_seed(o["seed"], rnd, 2**32 + 7))
                n_unclipped = float(buf[d + 1])
                mean, next_clip, noise_std, snr = priv._finish(acc, n_unclipped, m, clip, gen)
                record.update(
                    clip_bound=clip,
                    clipped_fraction=1.0 - n_unclipped / m,
                    noise_std=noise_std,
                    signal_to_noise=snr,
                )
                clip = next_clip
            else:
                mean = acc / buf[d]
            record["update_norm"] = float(torch.linalg.vector_norm(mean))
            if central is None:
                theta.add_(mean, alpha=o["central_lr"]) if o["central_lr"] != 1.0 else theta.add_(
                    mean
                )
            else:
                central.zero_grad(set_to_none=False)
                central_param.grad = -mean
                central.step()
                theta = central_param.detach().clone()
            history.append(record)
        self._load(theta)
        state = {k: v.detach().cpu().clone() for k, v in model.state_dict().items()}
        return state, history


# ------------------------------------------------------------------------------ workers
def _gloo_allreduce(buf):
    import torch.distributed as dist

    dist.all_reduce(buf)


def _group_allreduce(buf):
    import torch.distributed as dist

    if dist.get_backend() == "nccl" and buf.device.type != "cuda":
        dev = buf.cuda()
        dist.all_reduce(dev)
        buf.copy_(dev.cpu())
    else:
        dist.all_reduce(buf)


def _child(sim, rank, world, init_file, out, threads):
    import torch.distributed as dist

    try:
        torch.set_num_threads(threads)
        dist.init_process_group(
            "gloo", init_method=f"file://{init_file}", rank=rank, world_size=world
        )
        try:
            result = sim.run(rank, world, _gloo_allreduce)
        finally:
            dist.destroy_process_group()
        if rank == 0:
            out.put(("ok", pickle.dumps(result)))  # plain pickle: no shared-memory fds
    except BaseException as e:  # report to the parent, which raises
        out.put(("error", f"worker {rank}: {type(e).__name__}: {e}\n{traceback.format_exc()}"))


def _spawn(sim, world):
    import multiprocessing as mp

    cuda_used = torch.cuda.is_available() and torch.cuda.is_initialized()
    method = "fork" if "fork" in mp.get_all_start_methods() and not cuda_used else "spawn"
    ctx = mp.get_context(method)
    threads = max(1, torch.get_num_threads() // world)
    with tempfile.TemporaryDirectory(prefix="pfl_sim_") as tmp:
        init_file = os.path.join(tmp, "store")
        out = ctx.Queue()
        procs = [
            ctx.Process(target=_child, args=(sim, r, world, init_file, out, threads), daemon=True)
            for r in range(world)
        ]
        for p in procs:
            p.start()
        try:
            while True:
                try:
                    status, payload = out.get(timeout=0.5)
                    break
                except queue.Empty:
                    dead = [p for p in procs if p.exitcode not in (None, 0)]
                    if dead:
                        raise RuntimeError(
                            f"a simulation worker died with exit code {dead[0].exitcode}"
                        ) from None
        finally:
            for p in procs:
                p.join(timeout=10)
                if p.is_alive():
                    p.kill()
    if status == "error":
        head = payload.split("\n", 1)[0]
        if "ValueError" in head:
            raise ValueError(payload)
        raise RuntimeError(payload)
    return pickle.loads(payload)


# ------------------------------------------------------------------------------ public API
def simulate(
    model,
    loss_fn,
    users,
    *,
    rounds,
    cohort_size,
    local_epochs=1,
    local_batch_size=None,
    local_lr=0.1,
    central_lr=1.0,
    central_optimizer="sgd",
    weighting="uniform",
    privacy=None,
    n_workers=1,
    seed=0,
) -> SimulationResult:
    """Simulate federated averaging (FedAvg / FedAdam), optionally with central Gaussian DP.

    ``users`` is ``{user_id: (x, y)}`` (tensors or numpy arrays with a leading example axis).
    Each of ``rounds`` rounds samples ``cohort_size`` distinct users (uniformly, from a numpy
    generator seeded with ``(seed, round)``). Each user restarts from the central weights and
    runs ``local_epochs`` epochs of SGD (``local_lr``) on ``loss_fn(model(x), y)`` over its data
    in order, in batches of ``local_batch_size`` (``None``: full batch). The users' deltas
    (trained minus central, trainable parameters only) are averaged, ``"uniform"``ly or by example
    count (``weighting="examples"``), or through ``privacy`` (a :class:`CentralGaussian`: clip,
    sum, noise, divide by the cohort size; uniform weighting only), and the central step is
    ``theta += central_lr * mean`` (``central_optimizer="sgd"``) or Adam on the pseudo-gradient
    ``-mean`` (``"adam"``, FedAdam).

    ``n_workers=k`` runs k gloo processes that split each cohort by rank and all-reduce their
    sums once per round; the result equals ``n_workers=1``'s up to summation order. When
    ``torch.distributed`` is already initialised (torchrun, NCCL), every rank must call
    ``simulate`` and the group is used as is. ``model`` is not modified: the final weights are
    in ``.state_dict`` (load them with ``model.load_state_dict``). Floating-point user data are
    cast to the model's dtype (float64 models train in float64). Buffers (e.g. batch-norm
    statistics) keep the initial values. The torch global RNG (used by dropout, seeded per
    user and round) is restored afterwards.
    """
    dtype, device = _check_model(model)
    check_callable(loss_fn, "loss_fn")
    ids, data = _check_users(users, dtype, device)
    opts = {
        "rounds": check_int(rounds, "rounds", minimum=1),
        "cohort_size": check_int(cohort_size, "cohort_size", minimum=1),
        "local_epochs": check_int(local_epochs, "local_epochs", minimum=1),
        "local_batch_size": None
        if local_batch_size is None
        else check_int(local_batch_size, "local_batch_size", minimum=1),
        "local_lr": check_float(local_lr, "local_lr", minimum=0.0, min_inclusive=False),
        "central_lr": check_float(central_lr, "central_lr", minimum=0.0, min_inclusive=False),
        "central_optimizer": check_option(central_optimizer, "central_optimizer", OPTIMIZERS),
        "weighting": check_option(weighting, "weighting", WEIGHTINGS),
        "seed": check_int(seed, "seed", minimum=0),
    }
    if opts["cohort_size"] > len(ids):
        raise ValueError(
            f"cohort_size must be <= the number of users {len(ids)}, got {opts['cohort_size']}"
        )
    privacy = _check_privacy(privacy)
    if privacy is not None:
        privacy.noise_scale(opts["cohort_size"])  # noise_cohort_size < cohort raises here
        privacy.delta_noise_multiplier(opts["cohort_size"])
        if opts["weighting"] != "uniform":
            raise ValueError(
                "weighting must be 'uniform' with privacy (the clipped sum is divided by the "
                f"cohort size), got {weighting!r}"
            )
    n_workers = check_int(n_workers, "n_workers", minimum=1)

    import torch.distributed as dist

    group = dist.is_available() and dist.is_initialized()
    if group and n_workers not in (1, dist.get_world_size()):
        raise ValueError(
            f"n_workers must be 1 or the initialised group's size {dist.get_world_size()}, "
            f"got {n_workers}"
        )
    cuda = [device.index or 0] if device.type == "cuda" else []
    with torch.random.fork_rng(devices=cuda):
        sim = _Simulation(copy.deepcopy(model), loss_fn, ids, data, opts, privacy)
        if group:
            state, history = sim.run(dist.get_rank(), dist.get_world_size(), _group_allreduce)
        elif n_workers == 1:
            state, history = sim.run(0, 1, None)
        else:
            state, history = _spawn(sim, n_workers)
    return SimulationResult(state_dict=state, history=history)
