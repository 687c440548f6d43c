"""Reproduce the checks of ReplaceAnything3D (RAM3D, NeurIPS 2024) that a CPU can run, on a
synthetic scene with a known ground truth (a box room with smoothly coloured walls, a red sphere
to erase, a blue cube to put in its place; 16 training and 4 held-out 48x48 views on a circle;
every image rendered by this package's renderer). The diffusion prior is replaced by oracles
(TargetOracle: the true target image per view; NoisyTargetOracle: per-view colour shifts).
Real scenes (Stable Diffusion inpainting, LangSAM, GPU) and the paper's CLIP scores and user
study are not reproduced.

    python reproduce.py [--quick] [--full] [--json PATH]
"""

from __future__ import annotations

import math

import torch

from papershelf_harness import Claim, reproduce_cli

DILATE = (
    5  # dilation radius of the masks (pixels), calibrated once: 3 gives 27.8 / 25.4 dB, ratio 0.48
)
LR = 0.2  # Adam step on the 32^3 grids


def _scale(args):
    if args.quick:
        return dict(n_train=4, n_test=1, H=16, W=16, steps=15)
    if args.full:
        return dict(n_train=16, n_test=4, H=48, W=48, steps=800)
    return dict(n_train=16, n_test=4, H=48, W=48, steps=400)


def _render(fields, cam, sc):
    import ram3d

    with torch.no_grad():
        out = ram3d.render_camera(fields, cam, near=sc.near, far=sc.far, n_samples=sc.n_samples)
    return out.rgb.reshape(cam.H, cam.W, 3)


def _psnrs(fields, cams, truth, masks, sc):
    import ram3d

    return [ram3d.masked_psnr(_render(fields, c, sc), t, m) for c, t, m in zip(cams, truth, masks)]


def _judge(args, ok):
    return None if args.quick else bool(ok)


QUICK_NOTE = "--quick: 15 steps on 16x16 views, too few to judge; the default run judges"


def claims(args):
    import ram3d

    torch.manual_seed(0)
    torch.set_num_threads(1)  # tiny tensors: intra-op threads only contend
    s = _scale(args)
    sc = ram3d.room_scene(n_train=s["n_train"], n_test=s["n_test"], H=s["H"], W=s["W"])
    kw = dict(dilate_radius=DILATE, near=sc.near, far=sc.far, n_samples=sc.n_samples, lr=LR)
    note_q = QUICK_NOTE if args.quick else ""

    # 1. compositing exactness
    zero = ram3d.DenseGridField(8, activation="relu", init_density=0.0)
    half = ram3d.DenseGridField.from_values(
        0.5 * sc.room.density[0, 0].permute(2, 1, 0).detach(),
        torch.sigmoid(sc.room.color[0].permute(3, 2, 1, 0).detach()).clamp(1e-6, 1 - 1e-6),
    )
    err_zero = err_half = 0.0
    acc_lo, acc_hi = 1.0, 0.0
    for cam in sc.train_cameras[:4]:
        o, d = ram3d.get_rays(cam)
        rk = dict(near=sc.near, far=sc.far, n_samples=sc.n_samples)
        with torch.no_grad():
            a = ram3d.render([sc.room, sc.sphere], o, d, **rk)
            b = ram3d.render([zero, sc.room, sc.sphere], o, d, **rk)
            one = ram3d.render([sc.room], o, d, **rk)
            two = ram3d.render([half, half], o, d, **rk)
        err_zero = max(err_zero, float((a.rgb - b.rgb).abs().max()))
        err_half = max(err_half, float((one.rgb - two.rgb).abs().max()))
        acc_lo = min(acc_lo, float(a.acc.min()))
        acc_hi = max(acc_hi, float(a.acc.max()))
    for claim, err, note in (
        ("zero-density foreground: composite == background-only render", err_zero, ""),
        (
            "two half-density copies reproduce the single-field render",
            err_half,
            "colours re-stored as logits: rounding of the sigmoid/logit round trip included",
        ),
    ):
        measured = f"max abs err {err:.1e}"
        yield Claim(
            claim, paper="exact (max err < 1e-6)", measured=measured, holds=err < 1e-6, note=note
        )
    yield Claim(
        "accumulated opacity lies in [0, 1]",
        paper="[0, 1]",
        measured=f"[{acc_lo:.3g}, {acc_hi:.3g}]",
        holds=0.0 <= acc_lo and acc_hi <= 1.0,
    )

    # 2. rays
    fwd_err = rep_err = 0.0
    for cam in ram3d.orbit_cameras(4, H=s["H"] + 1, W=s["W"] + 1):  # odd: a centre pixel
        o, d = ram3d.get_rays(cam)
        c = (cam.H // 2) * cam.W + cam.W // 2
        fwd_err = max(fwd_err, float((d[c] - cam.forward).abs().max()))
        uv, _ = ram3d.project(cam, o + 1.3 * d)
        i, j = torch.meshgrid(torch.arange(cam.H), torch.arange(cam.W), indexing="ij")
        centres = torch.stack([j + 0.5, i + 0.5], -1).reshape(-1, 2).to(uv.dtype)
        rep_err = max(rep_err, float((uv - centres).abs().max()))
    yield Claim(
        "centre pixel's ray = camera forward axis; ray points reproject to their pixel",
        paper="exact",
        measured=f"{fwd_err:.1e} / {rep_err:.1e} px",
        holds=fwd_err < 1e-5 and rep_err < 1e-3,
        note="float32 cameras",
    )

    # 3. masks
    ok = True
    for m in sc.train_masks:
        h, dm = ram3d.halo(m, DILATE), ram3d.dilate(m, DILATE)
        ok &= (
            not bool((h & m).any()) and torch.equal(h | m, dm) and not bool(ram3d.halo(m, 0).any())
        )
    yield Claim(
        "halo ∩ mask = ∅, halo ∪ mask = dilate(mask), halo(r=0) = ∅",
        paper="exact",
        measured=f"{'all' if ok else 'not all'} {len(sc.train_masks)} views",
        holds=bool(ok),
    )

    # 4. erase with the true no-object renders as targets
    g = torch.Generator().manual_seed(0)
    bg = ram3d.DenseGridField(32)
    erase = ram3d.EraseStage(steps=s["steps"], generator=g, **kw)
    erase.fit(
        bg,
        sc.train_cameras,
        sc.train_images,
        sc.train_masks,
        ram3d.TargetOracle(sc.train_backgrounds),
        "background",
    )
    p_erase = _psnrs([bg], sc.test_cameras, sc.test_backgrounds, sc.test_masks, sc)
    yield Claim(
        f"erase: held-out masked PSNR vs true background ({s['steps']} steps, 32^3 grid)",
        paper=">= 25 dB (brief)",
        measured=f"min {min(p_erase):.1f}, mean {sum(p_erase) / len(p_erase):.1f} dB",
        holds=_judge(args, min(p_erase) >= 25.0),
        note=note_q or f"{len(p_erase)} held-out views between the training views",
    )
    same = True
    for cam, img, m in zip(sc.train_cameras, sc.train_images, sc.train_masks):
        dm = ram3d.dilate(m, DILATE)
        with torch.no_grad():
            comp, _ = ram3d.render_composite([bg], cam, img, dm, near=sc.near, far=sc.far)
        same &= torch.equal(comp[~dm], img[~dm])
    yield Claim(
        "erase: pixels outside D are bit-identical to the input",
        paper="exact",
        measured="bit-identical" if same else "differ",
        holds=bool(same),
    )
    cam, img, m = sc.train_cameras[0], sc.train_images[0], sc.train_masks[0]
    dm = ram3d.dilate(m, DILATE)
    with torch.no_grad():
        comp, _ = ram3d.render_composite(
            [bg], cam, sc.train_backgrounds[0], dm, near=sc.near, far=sc.far
        )
        x = comp.permute(2, 0, 1)[None]
        z, z0, rgb_hat = ram3d.TargetOracle(sc.train_backgrounds[:1]).x0_estimate(
            x, m[None, None].float(), "background", 0.5, view=0
        )
        loss = float(ram3d.hifa_loss(z, z0, x, rgb_hat, lambda_rgb=0.0))
    direct = float(((comp - sc.train_backgrounds[0])[dm] ** 2).sum() / comp.numel())
    yield Claim(
        "lambda_rgb = 0, latent-identity prior: hifa_loss = masked MSE",
        paper="equal",
        measured=f"{loss:.6g} vs {direct:.6g}",
        holds=math.isclose(loss, direct, rel_tol=1e-5, abs_tol=1e-12),
    )

    # 5. replace: a blue cube where the sphere was
    fg = ram3d.DenseGridField(32, aabb=((-0.3,) * 3, (0.3,) * 3))
    replace = ram3d.ReplaceStage(steps=s["steps"], generator=g, **kw)
    replace.fit(
        fg,
        sc.train_cameras,
        sc.train_images,
        sc.train_masks,
        bg,
        ram3d.TargetOracle(sc.train_replaced),
        "a blue cube",
    )
    p_rep = _psnrs([fg, bg], sc.test_cameras, sc.test_replaced, sc.test_masks, sc)
    yield Claim(
        "replace: held-out masked PSNR vs true room + cube",
        paper=">= 22 dB (brief)",
        measured=f"min {min(p_rep):.1f}, mean {sum(p_rep) / len(p_rep):.1f} dB",
        holds=_judge(args, min(p_rep) >= 22.0),
        note=note_q,
    )
    absent = sc.test_masks & ~sc.test_cube_masks
    p_abs = [
        ram3d.masked_psnr(_render([fg, bg], c, sc), _render([bg], c, sc), a)
        for c, a in zip(sc.test_cameras, absent)
    ]
    yield Claim(
        "replace: composite = erased background where the cube is absent (held-out)",
        paper="matches (>= 22 dB, ours)",
        measured=f"min {min(p_abs):.1f} dB",
        holds=_judge(args, min(p_abs) >= 22.0),
        note=note_q or "pixels of M outside the cube's footprint, fg+bg vs bg alone",
    )

    # 6. distillation into 3D averages inconsistent per-view targets
    noise = 0.1
    orc = ram3d.NoisyTargetOracle(
        sc.train_backgrounds, noise, generator=torch.Generator().manual_seed(1)
    )
    bgn = ram3d.DenseGridField(32)
    ram3d.EraseStage(steps=s["steps"], generator=torch.Generator().manual_seed(0), **kw).fit(
        bgn, sc.train_cameras, sc.train_images, sc.train_masks, orc, "background"
    )
    shifts = []
    for cam, b, m in zip(sc.train_cameras, sc.train_backgrounds, sc.train_masks):
        shifts.append((_render([bgn], cam, sc)[m] - b[m]).mean(0))
    rstd = torch.stack(shifts).std(0).mean()
    tstd = orc.shifts.std(0).mean()
    ratio = float(rstd / tstd)
    yield Claim(
        "3D distillation: per-view colour shift std, renders / targets",
        paper="< 0.5 (brief)",
        measured=f"{float(rstd):.4f} / {float(tstd):.4f} = {ratio:.2f}",
        holds=_judge(args, ratio < 0.5),
        note=note_q
        or (
            f"targets shifted by N(0, {noise}^2) per view inside M; per-view inpainting used "
            "directly has ratio 1"
        ),
    )

    # 7. annealing schedule
    K = 1000
    ts = [ram3d.anneal_t(k, K, t_min=0.02, t_max=0.98) for k in range(K + 1)]
    mono = all(a >= b for a, b in zip(ts, ts[1:]))
    mid = ts[K // 2]
    want = 0.98 - 0.96 * math.sqrt(0.5)
    yield Claim(
        "anneal_t (sqrt): non-increasing, t_max at 0, t_min at the end, mid = formula",
        paper=f"mid {want:.6f}",
        measured=f"mid {mid:.6f}, ends {ts[0]:.2f}/{ts[-1]:.2f}",
        holds=mono and ts[0] == 0.98 and ts[-1] == 0.02 and abs(mid - want) < 1e-12,
    )
    yield Claim.not_run(
        "real scenes: SD-inpainting + LangSAM edits, CLIP direction scores, user study",
        paper="qualitative + CLIP/user study",
        why="needs a GPU and model weights; the pipeline takes such backends, none shipped",
    )


main = reproduce_cli(claims)  # package, paper and --help from this file and pyproject.toml
