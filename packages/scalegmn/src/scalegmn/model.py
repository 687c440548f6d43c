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
from ._validation import check_layouts, check_mlp, is_mlp_list
from .cnn import _kernel_size, check_cnn, cnn_edge_features, is_cnn
from .graph import edge_types, node_types
from .layers import MLP, EdgeUpdate, ReScaleEqMessage, ScaleEq, ScaleInv

__all__ = ["GMNLayer", "ScaleGMN", "ScaleGMNEquivariant"]

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
        kernel_size=1,
    ):
        super().__init__()
        self.layouts = check_layouts(layer_dims)
        self.layer_dims = self.layouts[0] if len(self.layouts) == 1 else self.layouts
        self.out_dim = check_int(out_dim, "out_dim", minimum=1)
        self.d_hidden = check_int(d_hidden, "d_hidden", minimum=1)
        self.num_layers = check_int(num_layers, "num_layers", minimum=1)
        self.symmetry = check_option(symmetry, "symmetry", SYMMETRIES)
        self.bidirectional = check_bool(bidirectional, "bidirectional")
        self.readout = check_option(readout, "readout", READOUTS)
        self.dropout = check_probability(dropout, "dropout", allow_one=False)
        self.kernel_size = _kernel_size(kernel_size)
        edge_dim = self.kernel_size[0] * self.kernel_size[1]
        if edge_dim > 1 and self.bidirectional and self.symmetry in ("scale", "hetero"):
            raise ValueError(
                "bidirectional=True with symmetry 'scale'/'hetero' uses 1/W on backward edges, "
                f"which needs kernel_size 1 (scalar weights), got kernel_size {kernel_size!r}"
            )
        Fd = self.d_hidden
        dims = self.layouts[0]
        self.num_hidden = max(len(d) - 2 for d in self.layouts)
        n_node = max(int(node_types(d, self.num_hidden).max()) for d in self.layouts) + 1
        n_edge = max(int(edge_types(d, self.num_hidden).max()) for d in self.layouts) + 1
        self.node_pe = nn.Parameter(torch.randn(n_node, Fd))
        self.edge_pe = nn.Parameter(torch.randn(n_edge, Fd))
        self.proj_node = nn.Linear(1, Fd, bias=False)
        self.proj_edge = nn.Linear(edge_dim, Fd, bias=False)
        self.reciprocal = self.bidirectional and self.symmetry in ("scale", "hetero")
        if self.reciprocal:
            self.bw_edge_pe = nn.Parameter(torch.randn(n_edge, Fd))
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
    def _types(self, dims):
        dev = self.node_pe.device
        return node_types(dims, self.num_hidden).to(dev), edge_types(dims, self.num_hidden).to(dev)

    def _inputs(self, weights, biases, sign_mask):
        if is_cnn(weights):
            ws, bs, batched, got, _ = cnn_edge_features(
                weights, biases, kernel_size=self.kernel_size
            )
            if got not in self.layouts:
                raise ValueError(
                    f"weights have layout (channels) {list(got)}, which is not one of the "
                    f"model's layer_dims {[list(d) for d in self.layouts]}"
                )
            batched = True
        elif len(self.layouts) == 1:
            ws, bs, batched = check_mlp(weights, biases, layer_dims=self.layouts[0])
        else:
            ws, bs, batched = check_mlp(weights, biases)
            got = (ws[0].shape[-1], *(w.shape[-2] for w in ws))
            if got not in self.layouts:
                raise ValueError(
                    f"weights have layout {list(got)}, which is not one of the model's "
                    f"layer_dims {[list(d) for d in self.layouts]}"
                )
        if not batched:
            ws = [w.unsqueeze(0) for w in ws]
            bs = [b.unsqueeze(0) for b in bs]
        p = self.proj_node.weight
        ws = [w.to(device=p.device, dtype=p.dtype) for w in ws]
        bs = [b.to(device=p.device, dtype=p.dtype) for b in bs]
        if ws[0].ndim == 3:  # MLP weights: 1 x 1 kernels
            ws = [_as_kernel(w, self.kernel_size) for w in ws]
        B = ws[0].shape[0]
        dims = (ws[0].shape[-2], *(w.shape[-3] for w in ws))
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
        return ws, bs, signs, B, dims

    def init_features(self, weights, biases, *, sign_mask=None):
        """Initial node features per MLP layer ([B, d_l, F]), edge features per layer
        ([B, d_l, d_{l-1}, F]), backward edge features (or None) and per-layer sign masks."""
        ws, bs, signs, B, dims = self._inputs(weights, biases, sign_mask)
        L = len(dims) - 1
        node_type, edge_type = self._types(dims)
        perm = self.symmetry == "permutation"
        ones = torch.ones(B, dims[0], 1, dtype=ws[0].dtype, device=ws[0].device)
        raw = [ones, *(b.unsqueeze(-1) for b in bs)]
        pe = torch.split(self.node_pe[node_type], list(dims))
        xs = []
        for l in range(L + 1):
            h = self.proj_node(raw[l])
            xs.append(h + pe[l] if (perm or l in (0, L)) else h * pe[l])
        sizes = [dims[l] * dims[l - 1] for l in range(1, L + 1)]
        epe = torch.split(self.edge_pe[edge_type], sizes)
        es = []
        for l in range(1, L + 1):
            t = epe[l - 1].reshape(dims[l], dims[l - 1], -1)
            h = self.proj_edge(ws[l - 1])
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
                bpe = torch.split(self.bw_edge_pe[edge_type], sizes)
                bws = [
                    self.proj_bw_edge(1.0 / ws[l - 1])
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

    def _per_layout(self, weights, biases, sign_mask, fn):
        """Run ``fn(ws, bs, mask)`` on a list of networks of mixed layouts: networks of one
        layout are stacked into one batch, each is processed independently (so every output is
        exactly what the network gets alone). Returns one result per network (in order), each
        the slice of fn's batched output, as a list over the networks."""
        if not isinstance(biases, list | tuple) or len(biases) != len(weights):
            got = len(biases) if isinstance(biases, list | tuple) else type(biases).__name__
            raise ValueError(
                f"biases must be a list of {len(weights)} networks' bias lists to match "
                f"weights, got {got}"
            )
        n = len(weights)
        if sign_mask is None:
            masks = [None] * n
        elif isinstance(sign_mask, list | tuple):
            if len(sign_mask) != n:
                raise ValueError(
                    f"sign_mask must hold one mask per network ({n}), got {len(sign_mask)}"
                )
            masks = list(sign_mask)
        else:
            raise TypeError(
                "sign_mask must be a list of per-network masks when weights is a list of "
                f"networks, got {type(sign_mask).__name__}"
            )
        groups: dict[tuple[int, ...], list[int]] = {}
        items = []
        for k in range(n):
            try:
                if is_cnn(weights[k]):
                    ws, bs, batched, _ = check_cnn(weights[k], biases[k])
                else:
                    ws, bs, batched = check_mlp(weights[k], biases[k])
            except (TypeError, ValueError) as err:
                raise type(err)(f"weights[{k}] / biases[{k}] (network {k}): {err}") from None
            if not batched:
                ws = [w.unsqueeze(0) for w in ws]
                bs = [b.unsqueeze(0) for b in bs]
            m = masks[k]
            if m is not None:
                check_tensor(m, f"sign_mask[{k}]", ndim=(0, 1, 2), dtype="bool")
                b, V = ws[0].shape[0], ws[0].shape[2] + sum(w.shape[1] for w in ws)
                if m.ndim == 0 or (m.ndim == 1 and m.shape[0] == b):
                    m = m.reshape(-1, 1).expand(b, V)
                elif m.ndim == 1 and not batched and m.shape[0] == V:
                    m = m.unsqueeze(0)
                if tuple(m.shape) != (b, V):
                    raise ValueError(
                        f"sign_mask[{k}] must have shape ({b},) or ({b}, {V}), "
                        f"got shape {tuple(masks[k].shape)}"
                    )
            dims = (ws[0].shape[2], *(w.shape[1] for w in ws))
            if dims not in self.layouts:
                raise ValueError(
                    f"weights[{k}] (network {k}) has layout {list(dims)}, which is not one of "
                    f"the model's layer_dims {[list(d) for d in self.layouts]}"
                )
            groups.setdefault(tuple(tuple(w.shape[1:]) for w in ws), []).append(k)
            items.append((ws, bs, m))
        results: list = [None] * n
        for ks in groups.values():
            ws = [torch.cat([items[k][0][l] for k in ks]) for l in range(len(items[ks[0]][0]))]
            bs = [torch.cat([items[k][1][l] for k in ks]) for l in range(len(items[ks[0]][1]))]
            ms = [items[k][2] for k in ks]
            if any(m is None for m in ms):
                if not all(m is None for m in ms):
                    raise ValueError("sign_mask must give a mask for every network or for none")
                mask = None
            else:
                mask = torch.cat(ms)
            out = fn(ws, bs, mask)
            start = 0
            for k in ks:
                b = items[k][0][0].shape[0]
                results[k] = _slice(out, start, start + b)
                start += b
        return results

    def node_embeddings(self, weights, biases, *, sign_mask=None):
        """Final node embeddings, one [B, d_l, d_hidden] tensor per MLP layer l = 0..L. Hidden
        neuron i's vector is equivariant: under W_ij -> q_i W_ij / q_j, b_i -> q_i b_i it scales
        by q_i (and it follows neuron permutations); input/output vectors are invariant.
        With a list of networks (see :meth:`forward`): one such list per network."""
        if is_mlp_list(weights):
            return self._per_layout(
                weights, biases, sign_mask, lambda w, b, m: self._run(w, b, m)[0]
            )
        return self._run(weights, biases, sign_mask)[0]

    def edge_embeddings(self, weights, biases, *, sign_mask=None):
        """Edge embeddings after the last edge update, one [B, d_l, d_{l-1}, d_hidden] tensor
        per MLP layer l = 1..L (edge j -> i at [:, i, j]); they scale by q_i / q_j. With a
        list of networks: one such list per network."""
        if is_mlp_list(weights):
            return self._per_layout(
                weights, biases, sign_mask, lambda w, b, m: self._run(w, b, m)[1]
            )
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
        """Invariant prediction [B, out_dim] for a batch of MLPs (an unbatched MLP is B = 1).

        Mixed layouts: ``weights`` a list of networks (each a list of W_l, unbatched or
        batched, any layout in the model's ``layer_dims``), ``biases`` the matching list and
        ``sign_mask`` (hetero) a list of per-network masks; networks of one layout are batched
        together and the rows come back in the order given ([sum of batch sizes, out_dim])."""
        if is_mlp_list(weights):
            return torch.cat(self._per_layout(weights, biases, sign_mask, self._predict))
        return self._predict(weights, biases, sign_mask)

    def _predict(self, weights, biases, sign_mask):
        xs, _, signs = self._run(weights, biases, sign_mask)
        return self.readout_fn(xs, signs)


def _slice(out, start, stop):
    if isinstance(out, torch.Tensor):
        return out[start:stop]
    return [_slice(o, start, stop) for o in out]


def _as_kernel(w, kernel_size):
    """[B, d_l, d_{l-1}] scalar weights -> [B, d_l, d_{l-1}, k_h * k_w] centred 1 x 1 kernels
    (the layout :func:`scalegmn.cnn.cnn_edge_features` gives a CNN's linear layers)."""
    kh, kw = kernel_size
    if kh * kw == 1:
        return w.unsqueeze(-1)
    out = w.new_zeros(*w.shape, kh * kw)
    out[..., ((kh - 1) // 2) * kw + (kw - 1) // 2] = w
    return out


class ScaleGMNEquivariant(ScaleGMN):
    """ScaleGMN with an equivariant weight-space head (the paper's ``ScaleGMN_equiv``, used for
    INR editing): it maps a network to a parameter-shaped output that transforms like the
    input, ``f(g . theta) = g . f(theta)`` for hidden permutations and the symmetry's scalings.

    Hidden neuron i's output bias is a bias-free linear map of its (q_i-equivariant)
    embedding, so it scales by q_i; edge outputs are bias-free linear maps of the edge
    embeddings (q_i / q_j); output-neuron biases are invariant. All layers update edges.
    ``forward(weights, biases, *, sign_mask=None) -> (weights, biases)``: lists shaped like
    the batched input ([B, d_l, d_{l-1}] and [B, d_l]; a CNN's conv layers
    [B, c_l, c_{l-1}, k_h, k_w] with their own kernel sizes).
    Mixed layouts: a list of networks in, a list of (weights, biases) out. Typical use:
    ``edited = theta + model(theta)`` (equivariant residual editing).
    """

    def __init__(
        self,
        layer_dims,
        *,
        d_hidden=128,
        num_layers=4,
        symmetry="sign",
        bidirectional=False,
        dropout=0.0,
        kernel_size=1,
    ):
        super().__init__(
            layer_dims,
            out_dim=1,
            d_hidden=d_hidden,
            num_layers=num_layers,
            symmetry=symmetry,
            bidirectional=bidirectional,
            readout="last_layer",
            dropout=dropout,
            kernel_size=kernel_size,
        )
        for name in ("head", "project_last", "project_first"):
            if hasattr(self, name):
                delattr(self, name)
        Fd = self.d_hidden
        self.layers = nn.ModuleList(
            GMNLayer(Fd, symmetry=self.symmetry, bidirectional=self.bidirectional)
            for _ in range(self.num_layers)
        )
        self.node_out = nn.Linear(Fd, 1, bias=False)
        self.out_bias = MLP(Fd, 1, Fd)  # output neurons: no scaling acts on them
        kh, kw = self.kernel_size
        self.edge_out = nn.Linear(Fd, kh * kw, bias=False)

    def _edit(self, weights, biases, sign_mask):
        xs, es, _ = self._run(weights, biases, sign_mask)
        KH, KW = self.kernel_size
        if is_cnn(weights):
            raw = check_cnn(weights, biases)[0]
            lead = raw[0].ndim - 4
            kernels = [tuple(w.shape[-2:]) if w.ndim - lead == 4 else None for w in raw]
        else:
            kernels = [None] * len(es)
        dw = []
        for e, k in zip(es, kernels, strict=True):
            w = self.edge_out(e).unflatten(-1, (KH, KW))
            if k is None:  # a linear layer: the centre of its 1 x 1 kernel
                dw.append(w[..., (KH - 1) // 2, (KW - 1) // 2])
            else:  # a conv layer: its own kernel, cropped from the centred padding
                t, le = (KH - k[0]) // 2, (KW - k[1]) // 2
                dw.append(w[..., t : t + k[0], le : le + k[1]])
        db = [self.node_out(x).squeeze(-1) for x in xs[1:-1]]
        db.append(self.out_bias(xs[-1]).squeeze(-1))
        return dw, db

    def forward(self, weights, biases, *, sign_mask=None):
        """Equivariant parameter-shaped output (weights, biases); see the class docstring."""
        if is_mlp_list(weights):
            return [
                (r[0], r[1])
                for r in self._per_layout(
                    weights, biases, sign_mask, lambda w, b, m: self._edit(w, b, m)
                )
            ]
        return self._edit(weights, biases, sign_mask)
