"""ScaleGMN: a graph metanetwork over MLP parameters that is equivariant to hidden-neuron
permutations and to the activation's scaling symmetries (Kalogeropoulos et al., NeurIPS 2024).

Message passing runs on the neuron graph of :func:`scalegmn.mlp_to_graph`. Because that graph
is a stack of complete bipartite blocks, the sums over incoming edges are computed per block on
dense [B, d_l, d_{l-1}, F] edge tensors; ``tests/test_reference.py`` checks this against a naive
loop over the edges of the graph.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from ._checks import check_bool, check_int, check_option, check_probability, check_tensor
from ._validation import check_layer_dims, check_mlp
from .graph import edge_types, node_types
from .layers import MLP, EdgeUpdate, ReScaleEqMessage, ScaleEq, ScaleInv

__all__ = ["GMNLayer", "ScaleGMN"]

SYMMETRIES = ("sign", "scale", "hetero", "permutation")
READOUTS = ("last_layer", "full_graph")


class GMNLayer(nn.Module):
    """One message-passing layer: messages along the MLP's edges (and, bidirectional, back),
    sum aggregation, node update ScaleEq([x_i; sum_j m_ij]) and (unless ``update_edges`` is
    False) edge update."""

    def __init__(self, dim, *, symmetry, bidirectional=False, update_edges=True):
        super().__init__()
        self.symmetry = symmetry
        self.bidirectional = bidirectional
        self.update_edges = update_edges
        perm = symmetry == "permutation"
        self.message = ReScaleEqMessage(dim, kind=symmetry)
        n_in = (3 if bidirectional else 2) * dim
        self.update = MLP(n_in, dim, dim) if perm else ScaleEq(n_in, dim, kind=symmetry)
        if bidirectional:
            self.bw_message = ReScaleEqMessage(dim, kind=symmetry)
        if update_edges:
            self.edge_update = EdgeUpdate(dim, kind=symmetry)
            if bidirectional and symmetry in ("scale", "hetero"):
                self.bw_edge_update = EdgeUpdate(dim, kind=symmetry)

    def update_node(self, h, *, hidden: bool, sign_mask=None):
        """The node update on [x_i; aggregated messages] (one vector or a batch of them)."""
        if self.symmetry == "permutation":
            return self.update(h)
        return self.update(h, hidden=hidden, sign_mask=sign_mask)

    def forward(self, xs, es, bws=None, signs=None):
        """xs: per MLP layer [B, d_l, F]; es: per MLP layer l >= 1 [B, d_l, d_{l-1}, F] (edge
        j -> i at [:, i, j]); bws: backward edge features (same layout) or None; signs: per layer
        [B, d_l, 1] bool (hetero) or None. Returns (xs, es, bws)."""
        L = len(xs) - 1
        sg = signs if signs is not None else [None] * (L + 1)
        agg = [torch.zeros_like(xs[0])]
        for l in range(1, L + 1):
            m = self.message(
                es[l - 1],
                xs[l - 1].unsqueeze(1),
                hidden=l < L,
                sign_mask=None if sg[l] is None else sg[l].unsqueeze(2),
            )
            agg.append(m.sum(dim=2))
        parts = [xs, agg]
        if self.bidirectional:
            bw = []
            for l in range(L):
                m = self.bw_message(
                    bws[l],
                    xs[l + 1].unsqueeze(2),
                    hidden=0 < l,
                    sign_mask=None if sg[l] is None else sg[l].unsqueeze(1),
                )
                bw.append(m.sum(dim=1))
            bw.append(torch.zeros_like(xs[L]))
            parts.append(bw)
        new_x = [
            self.update_node(
                torch.cat([p[l] for p in parts], dim=-1), hidden=0 < l < L, sign_mask=sg[l]
            )
            for l in range(L + 1)
        ]
        new_e, new_bw = es, bws
        if self.update_edges:
            new_e = [
                self.edge_update(
                    es[l - 1],
                    xs[l - 1].unsqueeze(1),
                    xs[l].unsqueeze(2),
                    src_sign=None if sg[l - 1] is None else sg[l - 1].unsqueeze(1),
                    dst_sign=None if sg[l] is None else sg[l].unsqueeze(2),
                )
                for l in range(1, L + 1)
            ]
            if self.bidirectional:
                if hasattr(self, "bw_edge_update"):
                    new_bw = [
                        self.bw_edge_update(
                            bws[l - 1],
                            xs[l].unsqueeze(2),
                            xs[l - 1].unsqueeze(1),
                            src_sign=None if sg[l] is None else sg[l].unsqueeze(2),
                            dst_sign=None if sg[l - 1] is None else sg[l - 1].unsqueeze(1),
                        )
                        for l in range(1, L + 1)
                    ]
                else:  # sign / permutation: backward edges share the forward features
                    new_bw = new_e
        return new_x, new_e, new_bw


class ScaleGMN(nn.Module):
    """Scale Equivariant Graph MetaNetwork (invariant head) for MLPs with ``layer_dims``.

    ``symmetry``: "sign" (tanh, sine networks: q in {-1, 1}), "scale" (ReLU: q > 0), "hetero"
    (a population mixing both; pass ``sign_mask`` to forward) or "permutation" (permutation-only
    GMN baseline). ``bidirectional=True`` adds backward messages (ScaleGMN-B; for "scale"/"hetero"
    the backward edges carry 1/W, which scales by q_j / q_i). ``readout``: "last_layer" (an MLP
    on the output neurons' embeddings, the authors' INR configs) or "full_graph" (sum over hidden
    neurons of ScaleInv(x_i) concatenated with the input/output neurons' embeddings).
    ``dropout`` acts between layers (the paper used 0.2; default 0 so outputs are deterministic).
    """

    def __init__(
        self,
        layer_dims,
        *,
        out_dim,
        d_hidden=128,
        num_layers=4,
        symmetry="sign",
        bidirectional=False,
        readout="last_layer",
        dropout=0.0,
    ):
        super().__init__()
        self.layer_dims = check_layer_dims(layer_dims)
        self.out_dim = check_int(out_dim, "out_dim", minimum=1)
        self.d_hidden = check_int(d_hidden, "d_hidden", minimum=1)
        self.num_layers = check_int(num_layers, "num_layers", minimum=1)
        self.symmetry = check_option(symmetry, "symmetry", SYMMETRIES)
        self.bidirectional = check_bool(bidirectional, "bidirectional")
        self.readout = check_option(readout, "readout", READOUTS)
        self.dropout = check_probability(dropout, "dropout", allow_one=False)
        dims, Fd = self.layer_dims, self.d_hidden
        self.register_buffer("node_type", node_types(dims), persistent=False)
        self.register_buffer("edge_type", edge_types(dims), persistent=False)
        self.node_pe = nn.Parameter(torch.randn(int(self.node_type.max()) + 1, Fd))
        self.edge_pe = nn.Parameter(torch.randn(int(self.edge_type.max()) + 1, Fd))
        self.proj_node = nn.Linear(1, Fd, bias=False)
        self.proj_edge = nn.Linear(1, Fd, bias=False)
        self.reciprocal = self.bidirectional and self.symmetry in ("scale", "hetero")
        if self.reciprocal:
            self.bw_edge_pe = nn.Parameter(torch.randn(int(self.edge_type.max()) + 1, Fd))
            self.proj_bw_edge = nn.Linear(1, Fd, bias=False)
        self.layers = nn.ModuleList(
            GMNLayer(
                Fd,
                symmetry=self.symmetry,
                bidirectional=self.bidirectional,
                update_edges=i < self.num_layers - 1,
            )
            for i in range(self.num_layers)
        )
        self.skips = nn.ModuleList(nn.Linear(Fd, Fd, bias=False) for _ in range(self.num_layers))
        d0, dL = dims[0], dims[-1]
        if self.readout == "last_layer":
            if self.bidirectional:
                self.project_last = nn.Linear(dL * Fd, Fd)
                self.project_first = nn.Linear(d0 * Fd, Fd)
                self.head = MLP(2 * Fd, self.out_dim, Fd)
            else:
                self.head = MLP(dL * Fd, self.out_dim, Fd)
        else:
            if self.symmetry == "permutation":
                self.pool = MLP(Fd, Fd, Fd)
            else:
                self.pool = ScaleInv(Fd, Fd, kind=self.symmetry)
            self.head = MLP((1 + d0 + dL) * Fd, self.out_dim, Fd)

    # ------------------------------------------------------------------ inputs
    def _inputs(self, weights, biases, sign_mask):
        ws, bs, batched = check_mlp(weights, biases, layer_dims=self.layer_dims)
        if not batched:
            ws = [w.unsqueeze(0) for w in ws]
            bs = [b.unsqueeze(0) for b in bs]
        p = self.proj_node.weight
        ws = [w.to(device=p.device, dtype=p.dtype) for w in ws]
        bs = [b.to(device=p.device, dtype=p.dtype) for b in bs]
        B = ws[0].shape[0]
        dims = self.layer_dims
        if self.symmetry == "hetero":
            if sign_mask is None:
                raise ValueError(
                    "sign_mask is required with symmetry='hetero' (bool [B] per network or "
                    "[B, num_neurons] per neuron; True = sign symmetry, False = positive scaling)"
                )
            check_tensor(sign_mask, "sign_mask", ndim=(1, 2), dtype="bool")
            V = sum(dims)
            if sign_mask.ndim == 1:
                if sign_mask.shape[0] != B:
                    raise ValueError(
                        f"sign_mask must have shape ({B},) or ({B}, {V}), "
                        f"got shape {tuple(sign_mask.shape)}"
                    )
                sign_mask = sign_mask.unsqueeze(1).expand(B, V)
            elif tuple(sign_mask.shape) != (B, V):
                raise ValueError(
                    f"sign_mask must have shape ({B},) or ({B}, {V}), "
                    f"got shape {tuple(sign_mask.shape)}"
                )
            sign_mask = sign_mask.to(p.device)
            signs = list(torch.split(sign_mask.unsqueeze(-1), list(dims), dim=1))
        else:
            if sign_mask is not None:
                raise ValueError(
                    f"sign_mask is only used with symmetry='hetero', got symmetry={self.symmetry!r}"
                )
            signs = None
        return ws, bs, signs, B

    def init_features(self, weights, biases, *, sign_mask=None):
        """Initial node features per MLP layer ([B, d_l, F]), edge features per layer
        ([B, d_l, d_{l-1}, F]), backward edge features (or None) and per-layer sign masks."""
        ws, bs, signs, B = self._inputs(weights, biases, sign_mask)
        dims, L = self.layer_dims, len(self.layer_dims) - 1
        perm = self.symmetry == "permutation"
        ones = torch.ones(B, dims[0], 1, dtype=ws[0].dtype, device=ws[0].device)
        raw = [ones, *(b.unsqueeze(-1) for b in bs)]
        pe = torch.split(self.node_pe[self.node_type], list(dims))
        xs = []
        for l in range(L + 1):
            h = self.proj_node(raw[l])
            xs.append(h + pe[l] if (perm or l in (0, L)) else h * pe[l])
        sizes = [dims[l] * dims[l - 1] for l in range(1, L + 1)]
        epe = torch.split(self.edge_pe[self.edge_type], sizes)
        es = []
        for l in range(1, L + 1):
            t = epe[l - 1].reshape(dims[l], dims[l - 1], -1)
            h = self.proj_edge(ws[l - 1].unsqueeze(-1))
            es.append(h + t if perm else h * t)
        bws = None
        if self.bidirectional:
            if self.reciprocal:
                for i, w in enumerate(ws):
                    if bool((w == 0).any()):
                        raise ValueError(
                            f"weights[{i}] holds a zero weight; the bidirectional "
                            f"'{self.symmetry}' model uses 1/W on backward edges"
                        )
                bpe = torch.split(self.bw_edge_pe[self.edge_type], sizes)
                bws = [
                    self.proj_bw_edge(1.0 / ws[l - 1].unsqueeze(-1))
                    * bpe[l - 1].reshape(dims[l], dims[l - 1], -1)
                    for l in range(1, L + 1)
                ]
            else:
                bws = es
        return xs, es, bws, signs

    # ------------------------------------------------------------------ network
    def _run(self, weights, biases, sign_mask):
        xs, es, bws, signs = self.init_features(weights, biases, sign_mask=sign_mask)
        for layer, skip in zip(self.layers, self.skips, strict=True):
            new_x, es, bws = layer(xs, es, bws, signs)
            xs = [skip(x) + nx for x, nx in zip(xs, new_x, strict=True)]
            if self.dropout and self.training:
                xs = [F.dropout(x, p=self.dropout, training=True) for x in xs]
        return xs, es, signs

    def node_embeddings(self, weights, biases, *, sign_mask=None):
        """Final node embeddings, one [B, d_l, d_hidden] tensor per MLP layer l = 0..L. Hidden
        neuron i's vector is equivariant: under W_ij -> q_i W_ij / q_j, b_i -> q_i b_i it scales
        by q_i (and it follows neuron permutations); input/output vectors are invariant."""
        return self._run(weights, biases, sign_mask)[0]

    def edge_embeddings(self, weights, biases, *, sign_mask=None):
        """Edge embeddings after the last edge update, one [B, d_l, d_{l-1}, d_hidden] tensor
        per MLP layer l = 1..L (edge j -> i at [:, i, j]); they scale by q_i / q_j."""
        return self._run(weights, biases, sign_mask)[1]

    def readout_fn(self, xs, signs=None):
        """The invariant readout from per-layer node embeddings to [B, out_dim]."""
        B = xs[0].shape[0]
        if self.readout == "last_layer":
            last = xs[-1].reshape(B, -1)
            if self.bidirectional:
                first = xs[0].reshape(B, -1)
                return self.head(
                    torch.cat([self.project_last(last), self.project_first(first)], dim=-1)
                )
            return self.head(last)
        hidden = torch.cat(xs[1:-1], dim=1) if len(xs) > 2 else xs[0][:, :0]
        if self.symmetry == "permutation":
            pooled = self.pool(hidden).sum(dim=1)
        else:
            hs = None if signs is None else torch.cat(signs[1:-1], dim=1)
            pooled = self.pool(hidden, sign_mask=hs).sum(dim=1)
        io = torch.cat([xs[0].reshape(B, -1), xs[-1].reshape(B, -1)], dim=-1)
        return self.head(torch.cat([pooled, io], dim=-1))

    def forward(self, weights, biases, *, sign_mask=None):
        """Invariant prediction [B, out_dim] for a batch of MLPs (an unbatched MLP is B = 1)."""
        xs, _, signs = self._run(weights, biases, sign_mask)
        return self.readout_fn(xs, signs)
