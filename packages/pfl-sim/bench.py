"""Simulation speed: rounds per second of FedAvg on one cross-device workload.

Workload: 1000 users with 20 examples each (64 features, 10 classes), an MLP 64-32-10, cohort 50,
one local epoch with batch 10 and lr 0.1 (pfl-research's CIFAR10 local settings). Rows:
pfl-sim with 1 and 2 gloo workers, a plain single-process loop (a fresh model copy and optimiser
per client, as a hand-written simulation does), a fresh (forked) process per client per round,
and the peers flwr (simulation engine) and pfl when they are importable (see the notes).

    python bench.py [--quick] [--json PATH]
"""

from __future__ import annotations

import copy
import importlib.util
import multiprocessing as mp

import numpy as np
import torch

from papershelf_harness import Table, bench_cli, ratio, timeit_ms

torch.set_num_threads(1)


def workload(quick):
    n_users, rounds, cohort = (100, 2, 5) if quick else (1000, 5, 50)
    g = torch.Generator().manual_seed(0)
    w = torch.randn(64, 10, generator=g)
    users = {}
    for u in range(n_users):
        x = torch.randn(20, 64, generator=g)
        users[u] = (x, (x @ w).argmax(1))
    return users, rounds, cohort


def make_model():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(64, 32), torch.nn.ReLU(), torch.nn.Linear(32, 10))


LOSS = torch.nn.functional.cross_entropy


def local_train(model, x, y):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for s in range(0, len(y), 10):
        opt.zero_grad()
        LOSS(model(x[s : s + 10]), y[s : s + 10]).backward()
        opt.step()


def naive_loop(model, users, rounds, cohort):
    """A hand-written simulation: one deep copy of the model and one optimiser per client."""
    rng = np.random.default_rng(0)
    central = copy.deepcopy(model)
    for _ in range(rounds):
        deltas = []
        for u in rng.choice(len(users), cohort, replace=False):
            local = copy.deepcopy(central)
            local_train(local, *users[int(u)])
            deltas.append(
                [
                    lp.detach() - cp.detach()
                    for lp, cp in zip(local.parameters(), central.parameters())
                ]
            )
        with torch.no_grad():
            for i, p in enumerate(central.parameters()):
                p += torch.stack([d[i] for d in deltas]).mean(0)
    return central


def _client(model, x, y, conn):
    local_train(model, x, y)
    conn.send([p.detach().numpy() for p in model.parameters()])  # numpy: no shared fds
    conn.close()


def process_per_client(model, users, rounds, cohort):
    """A fresh (forked) process per client per round, the model sent back through a pipe."""
    ctx = mp.get_context("fork")
    rng = np.random.default_rng(0)
    central = copy.deepcopy(model)
    for _ in range(rounds):
        new = []
        for u in rng.choice(len(users), cohort, replace=False):
            a, b = ctx.Pipe(duplex=False)
            p = ctx.Process(target=_client, args=(central, *users[int(u)], b))
            p.start()
            new.append(a.recv())
            p.join()
        with torch.no_grad():
            for i, p in enumerate(central.parameters()):
                p.copy_(torch.as_tensor(np.mean([n[i] for n in new], axis=0)))
    return central


def pfl_peer(users, rounds, cohort):
    """The paper's own simulator (PyPI ``pfl``): FedAvg with the same model and local settings."""
    from pfl.aggregate.simulate import SimulatedBackend
    from pfl.algorithm import FederatedAveraging, NNAlgorithmParams
    from pfl.data.dataset import Dataset
    from pfl.data.federated_dataset import FederatedDataset
    from pfl.data.sampling import get_user_sampler
    from pfl.hyperparam import NNEvalHyperParams, NNTrainHyperParams
    from pfl.metrics import Weighted
    from pfl.model.pytorch import PyTorchModel

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.net = make_model()

        def forward(self, x):
            return self.net(x)

        def loss(self, x, y, eval=False):
            return LOSS(self(x), y)

        def metrics(self, x, y):
            with torch.no_grad():
                return {"loss": Weighted(float(LOSS(self(x), y, reduction="sum")), len(y))}

    data = FederatedDataset(
        lambda u: Dataset(raw_data=list(users[u])), get_user_sampler("random", list(users))
    )
    net = Net()
    model = PyTorchModel(net, torch.optim.SGD, torch.optim.SGD(net.parameters(), lr=1.0))

    def go():
        FederatedAveraging().run(
            algorithm_params=NNAlgorithmParams(
                central_num_iterations=rounds,
                evaluation_frequency=10**9,
                train_cohort_size=cohort,
                val_cohort_size=None,
            ),
            backend=SimulatedBackend(training_data=data, val_data=None),
            model=model,
            model_train_params=NNTrainHyperParams(
                local_num_epochs=1, local_learning_rate=0.1, local_batch_size=10
            ),
            model_eval_params=NNEvalHyperParams(local_batch_size=None),
            send_metrics_to_platform=False,
        )

    return go


def flwr_peer(users, rounds, cohort):
    """Flower's Ray simulation engine (legacy ``start_simulation``): a client per call."""
    from flwr.client import NumPyClient
    from flwr.common import ndarrays_to_parameters
    from flwr.server import ServerConfig
    from flwr.server.strategy import FedAvg
    from flwr.simulation import start_simulation

    class Client(NumPyClient):
        def __init__(self, uid):
            self.uid, self.model = uid, make_model()

        def fit(self, parameters, config):
            with torch.no_grad():
                for p, a in zip(self.model.parameters(), parameters):
                    p.copy_(torch.as_tensor(a))
            local_train(self.model, *users[self.uid])
            new = [p.detach().numpy().copy() for p in self.model.parameters()]
            return new, len(users[self.uid][1]), {}

    def client_fn(context):
        return Client(int(context.node_config["partition-id"])).to_client()

    n = len(users)
    start = ndarrays_to_parameters([p.detach().numpy() for p in make_model().parameters()])

    def go():
        strategy = FedAvg(
            fraction_fit=cohort / n,
            min_fit_clients=cohort,
            fraction_evaluate=0.0,
            min_evaluate_clients=0,
            min_available_clients=n,
            initial_parameters=start,
        )
        start_simulation(
            client_fn=client_fn,
            num_clients=n,
            strategy=strategy,
            config=ServerConfig(num_rounds=rounds),
            client_resources={"num_cpus": 1},
            ray_init_args={"num_cpus": 2, "include_dashboard": False},
        )

    return go


def run(args):
    import pfl_sim

    users, rounds, cohort = workload(args.quick)
    model = make_model()
    repeat = 1 if args.quick else 3

    def ours(k):
        return lambda: pfl_sim.simulate(
            model,
            LOSS,
            users,
            rounds=rounds,
            cohort_size=cohort,
            local_batch_size=10,
            local_lr=0.1,
            n_workers=k,
        )

    times = {
        "pfl-sim, 1 worker": timeit_ms(ours(1), repeat=repeat).best_ms,
        "pfl-sim, 2 gloo workers": timeit_ms(ours(2), repeat=repeat).best_ms,
        "single-process loop (copy per client)": timeit_ms(
            lambda: naive_loop(model, users, rounds, cohort), repeat=repeat
        ).best_ms,
        "process per client (fork)": timeit_ms(
            lambda: process_per_client(model, users, rounds, cohort), repeat=1, warmup=0
        ).best_ms,
    }
    base = times["pfl-sim, 1 worker"]
    table = Table(["simulator", "rounds/s", "ms/round", "pfl-sim (1 worker) speed-up"])
    for name, ms in times.items():
        table.add(name, rounds / (ms / 1e3), ms / rounds, ratio(ms, base))
    if importlib.util.find_spec("pfl") is not None:
        ms = timeit_ms(pfl_peer(users, rounds, cohort), repeat=repeat).best_ms
        table.add("pfl 0.6 (paper's code, peer)", rounds / (ms / 1e3), ms / rounds, ratio(ms, base))
    else:
        table.add("pfl (peer)", "not installed", "not installed", "n/a")
    if importlib.util.find_spec("flwr") is not None:
        ms = timeit_ms(flwr_peer(users, rounds, cohort), repeat=1, warmup=0).best_ms
        table.add(
            "flwr 1.42 simulation (Ray, peer)", rounds / (ms / 1e3), ms / rounds, ratio(ms, base)
        )
    else:
        table.add("flwr (peer)", "not installed", "not installed", "n/a")
    table.notes = (
        f"{rounds} rounds x cohort {cohort}, {len(users)} users; ratio = simulator's time / "
        "pfl-sim 1-worker time (>1: pfl-sim faster). Peers: pfl pins dp-accounting < 0.6 "
        "(attrs < 24, nox needs >= 24.1) and flwr[simulation] pins ray 2.55.1 (uv.lock has 2.60), "
        "so neither is in the bench group; each is measured when installed by hand "
        "(`uv pip install 'pfl[pytorch]==0.6.0'` or `'flwr[simulation]==1.42.0'`); flwr's time "
        "includes starting Ray."
    )
    return table


main = bench_cli(run, title="pfl-sim: FedAvg simulation speed (rounds/s)")
