"""Bad input: a TypeError or ValueError naming the argument, one suite case per argument.

``call(value)`` feeds ``value`` as the argument ``name`` with every other argument valid; the
tables below loop over the constructors' integer options and the forward passes' tensors.
"""

import depict_seg as ds
import numpy as np
import torch
from hypothesis import strategies as st

from papershelf_harness import suite

torch.manual_seed(0)
D = 8
MSSA = ds.MSSA(D, heads=2, dim_head=3)
NET = ds.SubspaceTransformer(D, 1, heads=2, dim_head=3)
DEC = {
    m: ds.DepictDecoder(3, patch_size=2, d_model=D, n_heads=2, dim_head=3, mode=m)
    for m in ("sa", "ca")
}
SEG = ds.SegmenterMaskTransformer(3, patch_size=2, d_model=D, n_heads=2)
ENC = ds.TinyViTEncoder(image_size=8, patch_size=4, dim=D, depth=1, heads=2)
MODEL = ds.SegmentationModel(
    ENC, ds.DepictDecoder(3, patch_size=4, d_model=D, n_heads=2, dim_head=3)
)
X = torch.randn(2, 4, D)
Q = torch.randn(2, 3, D)
LABELS = np.array([[0, 1], [2, 1]])
U = np.random.default_rng(0).normal(size=(6, D))

BAD_TOKENS = (
    (X.numpy(), TypeError),
    ("tokens", TypeError),
    (None, TypeError),
    (torch.full((2, 4, D), float("nan")), ValueError),
    (torch.full((2, 4, D), float("inf")), ValueError),
    (torch.zeros(2, 0, D), ValueError),
    (torch.zeros(4, D), ValueError),
    (torch.zeros(2, 4, D + 1), ValueError),
    (torch.zeros(2, 4, D, dtype=torch.int64), TypeError),
    (torch.zeros(2, 4, D, dtype=torch.complex64), TypeError),
)
BAD_QUERY = tuple(b for b in BAD_TOKENS[:-4] if b[0] is not None) + (
    (torch.zeros(3, 3, D), ValueError),
    (torch.zeros(2, 3, 3), ValueError),
)
BAD_IMAGES = (
    (torch.zeros(2, 3, 8), ValueError),
    (torch.zeros(2, 1, 8, 8), ValueError),
    (torch.full((1, 3, 8, 8), float("nan")), ValueError),
    (np.zeros((1, 3, 8, 8)), TypeError),
    ("im", TypeError),
)
BAD_LABELS = (
    (np.array([[0.5, 1.0], [0.0, 1.0]]), TypeError),
    (np.array([[True, False], [True, True]]), TypeError),
    (np.array([["a", "b"], ["c", "d"]]), TypeError),
    (None, TypeError),
    (np.zeros((0,), dtype=int), ValueError),
    (np.array([[0, 1], [2, 3]]), ValueError),  # 3 >= n_cls
    (np.array([[0, -1], [2, 1]]), ValueError),
    (torch.tensor([[0.0, 1.0], [2.0, 1.0]]), TypeError),
)
NOT_MODULES = ((lambda t: t, TypeError), ("m", TypeError), (None, TypeError), (3, TypeError))

# every integer option of each constructor, with its minimum
INT_OPTIONS = [
    (ds.MSSA, (), {"heads": 2, "dim_head": 3}, {"dim": 1}, ["heads", "dim_head"]),
    (
        ds.SubspaceTransformer,
        (),
        {"heads": 2, "dim_head": 3},
        {"dim": 1, "depth": 1},
        ["heads", "dim_head"],
    ),
    (
        ds.DepictDecoder,
        (3,),
        {"patch_size": 2, "d_model": D},
        {"n_cls": 1},
        ["patch_size", "d_model", "n_layers", "n_heads", "dim_head", "ca_layers", "ca_dim_head"],
    ),
    (
        ds.SegmenterMaskTransformer,
        (3,),
        {"patch_size": 2, "d_model": D},
        {"n_cls": 1},
        ["patch_size", "d_model", "n_layers", "n_heads", "dim_head", "ca_layers", "ca_dim_head"],
    ),
    (
        ds.TinyViTEncoder,
        (),
        {"image_size": 8, "patch_size": 4, "dim": D, "heads": 2},
        {},
        ["image_size", "in_chans", "dim", "depth", "heads"],
    ),
]


def _int_cases():
    for cls, args, kwargs, positional, keywords in INT_OPTIONS:
        for name in positional:  # leading positional argument(s), in order
            if cls in (ds.MSSA, ds.SubspaceTransformer):
                call = {
                    "dim": lambda v, c=cls, k=kwargs: c(v, *(() if c is ds.MSSA else (1,)), **k),
                    "depth": lambda v, c=cls, k=kwargs: c(D, v, **k),
                }[name]
            else:
                call = lambda v, c=cls, k=kwargs: c(v, **k)  # noqa: E731
            yield suite.Int(f"{cls.__name__}.{name}", name, call, minimum=1)
        base = (D, 1) if cls is ds.SubspaceTransformer else (D,) if cls is ds.MSSA else args
        for name in keywords:
            kw = {k: v for k, v in kwargs.items() if k != name}
            none_ok = cls is ds.SegmenterMaskTransformer and name.endswith("dim_head")
            yield suite.keyword(suite.Int, cls, name, *base, kwargs=kw, minimum=1, none_ok=none_ok)


def _dropout_cases():
    makers = {
        "MSSA": lambda v: ds.MSSA(D, heads=2, dim_head=3, dropout=v),
        "SubspaceTransformer": lambda v: ds.SubspaceTransformer(
            D, 1, heads=2, dim_head=3, dropout=v
        ),
        "DepictDecoder": lambda v: ds.DepictDecoder(3, patch_size=2, d_model=D, dropout=v),
        "TinyViTEncoder": lambda v: ds.TinyViTEncoder(image_size=8, dim=D, dropout=v),
    }
    for label, call in makers.items():
        yield suite.Number(f"{label}.dropout", "dropout", call)
        bad = st.one_of(
            st.floats(max_value=-1e-9, min_value=-10), st.floats(min_value=1.0, max_value=10)
        )
        yield suite.OutOfRange(f"{label}.dropout.range", "dropout", call, bad)


def _forward_cases():
    forwards = {
        "MSSA.forward": MSSA,
        "SubspaceTransformer.forward": NET,
        "DepictDecoder.sa.forward": DEC["sa"],
        "DepictDecoder.ca.forward": DEC["ca"],
        "SegmenterMaskTransformer.forward": SEG,
        "DepictDecoder.forward_features": DEC["ca"].forward_features,
        "TransformerBlock.forward": ds.TransformerBlock(D, heads=2),
    }
    for label, fn in forwards.items():
        name = (
            "x"
            if label.split(".")[0] in ("MSSA", "SubspaceTransformer", "TransformerBlock")
            else "tokens"
        )
        yield suite.Values(f"{label}.{name}", name, fn, bad=BAD_TOKENS)
    yield suite.Values("MSSA.forward.query", "query", lambda v: MSSA(X, query=v), bad=BAD_QUERY)
    yield suite.Values(
        "SubspaceTransformer.forward.query", "query", lambda v: NET(X, query=v), bad=BAD_QUERY
    )
    yield suite.Values(
        "DepictDecoder.forward.im_size",
        "im_size",
        lambda v: DEC["sa"](X, im_size=v),
        bad=(
            ((4, 4, 4), ValueError),
            ("44", TypeError),
            (4, TypeError),
            ((4.0, 4), TypeError),
            ((0, 4), ValueError),
            ((6, 6), ValueError),  # a 3 x 3 grid, but X has 4 tokens
        ),
    )
    for label, fn in {"TinyViTEncoder.forward": ENC, "SegmentationModel.forward": MODEL}.items():
        yield suite.Values(f"{label}.images", "images", fn, bad=BAD_IMAGES)


CASES = [
    *_int_cases(),
    *_dropout_cases(),
    *_forward_cases(),
    *(
        suite.keyword(
            suite.Option,
            cls,
            "mode",
            3,
            kwargs={"patch_size": 2, "d_model": D},
            valid=frozenset({"sa", "ca"}),
        )
        for cls in (ds.DepictDecoder, ds.SegmenterMaskTransformer)
    ),  # fmt: skip
    suite.Array("coding_rate.Z", "Z", lambda v: ds.coding_rate(v), (5, 3), ndims=(2, 3)),
    suite.Number("coding_rate.eps", "eps", lambda v: ds.coding_rate(np.ones((4, 2)), eps=v)),
    suite.OutOfRange(
        "coding_rate.eps.range",
        "eps",
        lambda v: ds.coding_rate(np.ones((4, 2)), eps=v),
        st.floats(max_value=0.0, min_value=-5),
    ),
    suite.Array(
        "subspace_coding_rates.Z",
        "Z",
        lambda v: ds.subspace_coding_rates(v, U, heads=2),
        (5, D),
        ndims=(2, 3),
    ),
    suite.Array(
        "subspace_coding_rates.U",
        "U",
        lambda v: ds.subspace_coding_rates(np.ones((5, D)), v, heads=2),
        (6, D),
        ndims=(2,),
    ),
    suite.keyword(suite.Int, ds.subspace_coding_rates, "heads", np.ones((5, D)), U, minimum=1),
    suite.Mismatch(
        "subspace_coding_rates.U.columns",
        "U",
        lambda: ds.subspace_coding_rates(np.ones((5, 3)), U, heads=2),
    ),
    suite.Mismatch(
        "subspace_coding_rates.heads.divides",
        "heads",
        lambda: ds.subspace_coding_rates(np.ones((5, D)), U, heads=4),
    ),
    suite.Array("orthogonality_gap.M", "M", lambda v: ds.orthogonality_gap(v), (3, 4), ndims=(2,)),
    suite.Values("mean_iou.pred", "pred", lambda v: ds.mean_iou(v, LABELS, 3), bad=BAD_LABELS),
    suite.Values("mean_iou.target", "target", lambda v: ds.mean_iou(LABELS, v, 3), bad=BAD_LABELS),
    suite.Int("mean_iou.n_cls", "n_cls", lambda v: ds.mean_iou(LABELS, LABELS, v), minimum=1),
    suite.keyword(suite.Int, ds.mean_iou, "ignore_index", LABELS, LABELS, 3, none_ok=True),
    suite.Mismatch(
        "mean_iou.shapes", "pred and target", lambda: ds.mean_iou(LABELS, LABELS[:1], 3)
    ),
    suite.Mismatch(
        "mean_iou.all_ignored", "target", lambda: ds.mean_iou(LABELS, np.full((2, 2), 255), 3)
    ),
    suite.Values(
        "perturb_params.module", "module", lambda v: ds.perturb_params(v, 0.1), bad=NOT_MODULES
    ),
    suite.Number("perturb_params.sigma", "sigma", lambda v: ds.perturb_params(MSSA, v)),
    suite.OutOfRange(
        "perturb_params.sigma.range",
        "sigma",
        lambda v: ds.perturb_params(MSSA, v),
        st.floats(max_value=-1e-9, min_value=-5),
    ),
    suite.Values(
        "perturb_params.generator",
        "generator",
        lambda v: ds.perturb_params(MSSA, 0.1, generator=v),
        bad=((0, TypeError), ("g", TypeError), (np.random.default_rng(0), TypeError)),
    ),
    suite.Values(
        "SegmentationModel.encoder",
        "encoder",
        lambda v: ds.SegmentationModel(v, DEC["sa"]),
        bad=NOT_MODULES + ((torch.nn.Linear(2, 2), TypeError),),
    ),
    suite.Values(
        "SegmentationModel.decoder",
        "decoder",
        lambda v: ds.SegmentationModel(ENC, v),
        bad=NOT_MODULES,
    ),
    suite.Mismatch(
        "SegmentationModel.patch_size", "patch_size", lambda: ds.SegmentationModel(ENC, DEC["sa"])
    ),
    suite.Values(
        "TimmPatchTokens.model",
        "model",
        lambda v: ds.TimmPatchTokens(v),
        bad=NOT_MODULES + ((torch.nn.Linear(2, 2), TypeError),),
    ),
    suite.Values(
        "TimmPatchTokens.from_name.name",
        "name",
        lambda v: ds.TimmPatchTokens.from_name(v),
        bad=((3, TypeError), (None, TypeError)),
    ),
    suite.Mismatch(
        "TinyViTEncoder.patch_size.divides",
        "patch_size",
        lambda: ds.TinyViTEncoder(image_size=10, patch_size=4),
    ),
]

globals().update(suite.bad_input_suite(CASES))
