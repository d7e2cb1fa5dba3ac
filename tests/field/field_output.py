#!/usr/bin/env python3
"""The density-field frames (output.field_interval, fields.h5; docs/file-formats.md):
field_output.py VESICA OUTDIR MODE

  write    an A/B blend (8^3 box, 1536 particles, 3:1, fields every 5 steps) writing a frame
           every 20 steps, on 1 rank, on 2 ranks and on 4 (1 x 2 x 2 bricks):
           - each frame's phi, summed over the vertices, against the particle counts:
             sum_v phi_K = N_K n_cells / N_field (the species counted in the checkpoint);
           - the last frame (step 100) against an independent numpy cloud-in-cell spread of
             the positions in the checkpoint of the same step (relative 1e-12);
           - the 1-rank, 2-rank and 4-rank files: every dataset and attribute equal, bit for
             bit;
           - VTK's layout: /VTKHDF's Version, Type (a fixed-length ASCII "ImageData"),
             WholeExtent, Origin, Spacing, Direction; the point arrays (frames, nz, ny, nx);
             Steps' NSteps, Values (the frames' times) and PointDataOffsets as VTK's
             vtkHDFReader reads them (the VTKHDF specification, "Image data" and "Temporal
             ImageData"). When the `vtk` module imports, its vtkHDFReader also reads every
             frame and must give the same arrays, times, extent and spacing;
           - thermo.csv the same bytes as the run without field frames.
  restart  the same run stopped by its checkpoint at step 60 and restarted from it: the
           frames after step 60 are cut and written again, and the file equals the one of
           the run straight through (which wrote the same checkpoint)
  killed   a long run killed (SIGKILL) between two frames: the file opens, NSteps counts the
           frames written, each of them is whole (its sums as above)
  bad      output.field_interval > 0 without a field group exits 2 naming the key
Reference values: the particle counts and the numpy spread, never Vesica's own phi.
"""
import csv
import os
import shutil
import signal
import subprocess
import sys
import time

import h5py
import numpy as np

VESICA, OUT, MODE = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]), sys.argv[3]
MPI = ["mpiexec", "--allow-run-as-root", "--oversubscribe"]
QUANTA = 2.0 ** 40
BOX, H, DT = 8.0, 1.0, 0.02


def config(steps=100, frames=20, field=True, extra=""):
    fld = ("field = { spacing = 1.0; interval = 5; kappa = 0.1; "
           "chi = { A = { A = 0.0; B = 2.0; }; B = { A = 2.0; B = 0.0; }; }; };"
           if field else "")
    return f"""box = [{BOX}, {BOX}, {BOX}]; density = 3.0; seed = 5;
species = ( {{ name = "A"; fraction = 0.75; }}, {{ name = "B"; fraction = 0.25; }} );
dpd = {{ a = {{ A = {{ A = 25.0; B = 25.0; }}; B = {{ A = 25.0; B = 25.0; }}; }};
        gamma = 4.5; kT = 1.0; }};
integrator = {{ dt = {DT}; steps = {steps}; }};
neighbor = {{ skin = 0.3; }};
{fld}
backend = "cpu";
run = {{ momentum_limit = 0.0; momentum_tolerance = 0.0; }};
output = {{ dir = "unused"; thermo_interval = 10; field_interval = {frames}; {extra} }};
"""


def start(name, text, ranks=1, sets=(), restart=None, fresh=True):
    d = os.path.join(OUT, name)
    if fresh:
        shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d, exist_ok=True)
    cfg = os.path.join(d, "run.cfg")
    with open(cfg, "w") as f:
        f.write(text)
    cmd = ([] if ranks == 1 else MPI + ["-n", str(ranks)]) + [VESICA, "run", cfg,
                                                              "--set", f'output.dir="{d}"']
    for s in sets:
        cmd += ["--set", s]
    if restart:
        cmd += ["--restart", restart]
    return d, cmd


def run(name, text, ranks=1, sets=(), restart=None, fresh=True, expect=0):
    d, cmd = start(name, text, ranks, sets, restart, fresh)
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=d)
    if r.returncode != expect:
        sys.exit(f"FAIL {name}: exit {r.returncode}, expected {expect}\n{r.stdout[-2000:]}"
                 f"\n{r.stderr[-2000:]}")
    return d, r


def checkpoint(d, step):
    with h5py.File(os.path.join(d, "checkpoints", f"ckpt_{step}.h5"), "r") as f:
        return f["particles/position"][:], f["particles/species"][:]


def cic(x, species, n, nf):
    """The cloud-in-cell density fractions of the positions on a periodic n^3 grid of
    spacing H, each share rounded to 2^-40 as the field term sums them: [K, z, y, x]."""
    u = x / H
    c = np.floor(u).astype(int)
    t = u - c
    count = np.zeros((nf, n, n, n))
    for dz in (0, 1):
        for dy in (0, 1):
            for dx in (0, 1):
                cr = (dx, dy, dz)
                w = np.prod([t[:, d] if cr[d] else 1.0 - t[:, d] for d in range(3)], axis=0)
                w = np.rint(w * QUANTA)
                i, j, k = ((c[:, d] + cr[d]) % n for d in range(3))
                for s in range(nf):
                    sel = species == s
                    np.add.at(count[s], (k[sel], j[sel], i[sel]), w[sel])
    return count / (QUANTA * len(x) / n ** 3)


def check_sums(f, counts, what):
    """Every frame's phi summed over the vertices against N_K n_cells / N_field."""
    n_cells = np.prod(f["VTKHDF/PointData/phi_A"].shape[1:])
    frames = int(f["VTKHDF/Steps"].attrs["NSteps"])
    for k, name in enumerate(("A", "B")):
        want = counts[k] * n_cells / sum(counts)
        sums = f[f"VTKHDF/PointData/phi_{name}"][:frames].sum(axis=(1, 2, 3))
        bad = np.abs(sums / want - 1.0).max() if frames else 0.0
        if bad > 1e-9:
            sys.exit(f"FAIL {what}: sum of phi_{name} {sums} against {want} (off {bad:.3g})")
    return frames


def check_layout(f, frames, steps):
    """VTK-HDF temporal ImageData, as the specification and vtkHDFReader want it."""
    g = f["VTKHDF"]
    tid = h5py.h5a.open(g.id, b"Type").get_type()
    if (tid.get_class() != h5py.h5t.STRING or tid.get_size() != len("ImageData")
            or tid.get_strpad() != h5py.h5t.STR_NULLPAD or tid.get_cset() != h5py.h5t.CSET_ASCII
            or g.attrs["Type"] != b"ImageData"):
        sys.exit(f"FAIL layout: Type {g.attrs['Type']!r} (size {tid.get_size()}, pad "
                 f"{tid.get_strpad()}): expected the fixed-length ASCII string ImageData")
    n = int(BOX / H)
    want = {"Version": [2, 0], "WholeExtent": [0, n - 1] * 3, "Origin": [0.0] * 3,
            "Spacing": [H] * 3, "Direction": [1, 0, 0, 0, 1, 0, 0, 0, 1]}
    for key, value in want.items():
        if list(np.ravel(g.attrs[key])) != value:
            sys.exit(f"FAIL layout: VTKHDF/{key} = {g.attrs[key]}, expected {value}")
    if g.attrs["Version"].dtype.kind != "i" or g.attrs["WholeExtent"].dtype.kind != "i":
        sys.exit("FAIL layout: Version and WholeExtent must be integers")
    st = g["Steps"]
    if int(st.attrs["NSteps"]) != frames or len(steps) != frames:
        sys.exit(f"FAIL layout: NSteps {st.attrs['NSteps']}, expected {frames}")
    if not np.array_equal(st["Values"][:], np.asarray(steps) * DT):
        sys.exit(f"FAIL layout: Steps/Values {st['Values'][:]}, expected {np.asarray(steps) * DT}")
    for name in ("phi_A", "phi_B"):
        if g["PointData"][name].shape != (frames, n, n, n):
            sys.exit(f"FAIL layout: {name} shape {g['PointData'][name].shape}")
        if not np.array_equal(st["PointDataOffsets"][name][:], np.arange(frames)):
            sys.exit(f"FAIL layout: PointDataOffsets/{name} {st['PointDataOffsets'][name][:]}")
    if not np.array_equal(f["vesica/step"][:], steps):
        sys.exit(f"FAIL layout: vesica/step {f['vesica/step'][:]}, expected {steps}")


def check_vtk(path, f):
    """Read every frame through VTK's own reader, when the vtk module is there."""
    try:
        from vtkmodules.util.numpy_support import vtk_to_numpy
        from vtkmodules.vtkIOHDF import vtkHDFReader
    except ImportError:
        print("vtk module not available: layout checked against the VTKHDF specification only")
        return
    r = vtkHDFReader()
    r.SetFileName(path)
    r.Update()
    frames = int(f["VTKHDF/Steps"].attrs["NSteps"])
    if r.GetNumberOfSteps() != frames:
        sys.exit(f"FAIL vtk: {r.GetNumberOfSteps()} steps, expected {frames}")
    n = int(BOX / H)
    for s in range(frames):
        r.SetStep(s)
        r.Update()
        img = r.GetOutput()
        if img.GetDimensions() != (n, n, n) or img.GetSpacing() != (H, H, H):
            sys.exit(f"FAIL vtk: frame {s} dimensions {img.GetDimensions()}")
        if abs(img.GetFieldData().GetArray("Time").GetValue(0) - f["VTKHDF/Steps/Values"][s]) > 0:
            sys.exit(f"FAIL vtk: frame {s} time")
        for name in ("phi_A", "phi_B"):
            got = vtk_to_numpy(img.GetPointData().GetArray(name))
            if not np.array_equal(got, f[f"VTKHDF/PointData/{name}"][s].ravel()):
                sys.exit(f"FAIL vtk: frame {s} {name} differs from the file's")
    print(f"vtk {r.GetClassName()}: {frames} frames read, equal to the file's arrays")


def items(f):
    """Every dataset's values and every attribute of the file, by path."""
    out = {}
    def visit(name, obj):
        if isinstance(obj, h5py.Dataset):
            out[name] = obj[()]
        for a, v in obj.attrs.items():
            out[f"{name}@{a}"] = v
    f.visititems(visit)
    for a, v in f.attrs.items():
        out[f"@{a}"] = v
    return out


def same_files(p, q, what, skip=("vesica/configuration",)):
    with h5py.File(p, "r") as f, h5py.File(q, "r") as g:
        a, b = items(f), items(g)
    if sorted(a) != sorted(b):
        sys.exit(f"FAIL {what}: the files hold different objects: {sorted(set(a) ^ set(b))}")
    for key in a:
        if key not in skip and not np.array_equal(np.asarray(a[key]), np.asarray(b[key])):
            sys.exit(f"FAIL {what}: {key} differs")
    return len(a)


def mode_write():
    text = config()
    d1, _ = run("ranks1", text)
    d2, r2 = run("ranks2", text, ranks=2)
    if "as 1 x 1 x 2" not in r2.stdout and "as 1 x 2 x 1" not in r2.stdout and \
       "as 2 x 1 x 1" not in r2.stdout:
        sys.exit(f"FAIL: the 2-rank run did not split the grid\n{r2.stdout[-1000:]}")
    d4, r4 = run("ranks4", text, ranks=4)
    if "as 1 x 2 x 2" not in r4.stdout:
        sys.exit(f"FAIL: the 4-rank run is not 1 x 2 x 2 bricks\n{r4.stdout[-1000:]}")
    d0, _ = run("no_frames", config(frames=0))
    x, species = checkpoint(d1, 100)
    counts = [int(np.sum(species == k)) for k in (0, 1)]
    steps = list(range(0, 101, 20))
    n = int(BOX / H)
    for d in (d1, d2):
        path = os.path.join(d, "fields.h5")
        with h5py.File(path, "r") as f:
            frames = check_sums(f, counts, d)
            check_layout(f, frames, steps)
            want = cic(x, species, n, 2)
            got = np.stack([f["VTKHDF/PointData/phi_A"][-1], f["VTKHDF/PointData/phi_B"][-1]])
            dev = np.abs(got - want).max() / np.abs(want).max()
            if dev > 1e-12:
                sys.exit(f"FAIL {d}: the last frame differs from the numpy spread of the "
                         f"checkpoint's positions by {dev:.3g} (relative)")
            print(f"{os.path.basename(d)}: {frames} frames, sums = N_K cells / N_field, last "
                  f"frame against numpy cloud-in-cell {dev:.2g}")
            check_vtk(path, f)
    k = same_files(os.path.join(d1, "fields.h5"), os.path.join(d2, "fields.h5"), "1 vs 2 ranks")
    print(f"1 and 2 ranks: {k} datasets and attributes equal")
    k = same_files(os.path.join(d1, "fields.h5"), os.path.join(d4, "fields.h5"), "1 vs 4 ranks")
    print(f"1 and 4 ranks (1 x 2 x 2 bricks): {k} datasets and attributes equal")
    with open(os.path.join(d0, "thermo.csv"), "rb") as f, \
         open(os.path.join(d1, "thermo.csv"), "rb") as g:
        if f.read() != g.read():
            sys.exit("FAIL: thermo.csv differs with and without field frames")
    print("thermo.csv identical with and without field frames")


def mode_restart():
    text = config(extra="checkpoint_interval = 60;")
    ds, _ = run("straight", text)
    d = os.path.join(OUT, "stopped")
    shutil.rmtree(d, ignore_errors=True)
    shutil.copytree(ds, d)
    # the stopped run is the straight one cut at its checkpoint of step 60: its later frames
    # are in the file and must go
    run("stopped", text, restart=os.path.join(d, "checkpoints", "ckpt_60.h5"), fresh=False)
    with h5py.File(os.path.join(d, "fields.h5"), "r") as f:
        if list(f["vesica/step"][:]) != list(range(0, 101, 20)):
            sys.exit(f"FAIL restart: frames at steps {f['vesica/step'][:]}")
    k = same_files(os.path.join(ds, "fields.h5"), os.path.join(d, "fields.h5"), "restart")
    print(f"restart at step 60: fields.h5 equal to the straight run's ({k} items)")


def last_step(d):
    try:
        with open(os.path.join(d, "thermo.csv")) as f:
            rows = list(csv.reader(f))
        return int(rows[-1][0]) if len(rows) > 1 else -1
    except (OSError, ValueError, IndexError):
        return -1


def mode_killed():
    every = 200
    for attempt in range(3):
        d, cmd = start("killed", config(steps=1000000, frames=every))
        p = subprocess.Popen(cmd, cwd=d, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        # kill between frames: after the thermo row of step 2 every + 40 and before the frame
        # of step 3 every (thermo rows come every 10 steps, flushed)
        s = -1
        t0 = time.time()
        while p.poll() is None and time.time() - t0 < 120:
            s = last_step(d)
            if s >= 2 * every + 40:
                break
            time.sleep(0.005)
        p.send_signal(signal.SIGKILL)
        p.wait()
        s_after = last_step(d)
        if 2 * every + 40 <= s_after < 3 * every - 40:
            break
        print(f"attempt {attempt}: killed after step {s_after}, not between frames; again")
    else:
        sys.exit("FAIL killed: could not kill the run between two frames")
    x_counts = None
    with h5py.File(os.path.join(d, "fields.h5"), "r") as f:
        species_total = 3 * BOX ** 3
        x_counts = [0.75 * species_total, 0.25 * species_total]
        frames = check_sums(f, x_counts, "killed")
        steps = list(f["vesica/step"][:frames])
    if steps != [0, every, 2 * every]:
        sys.exit(f"FAIL killed: frames at steps {steps} after a kill at step ~{s_after}")
    print(f"killed after step {s_after}: fields.h5 holds {frames} whole frames at {steps}")


def mode_bad():
    _, r = run("bad", config(field=False), expect=2)
    if "output.field_interval" not in r.stderr or len(r.stderr.strip().splitlines()) != 1:
        sys.exit(f"FAIL bad: expected one line naming output.field_interval\n{r.stderr}")
    print(r.stderr.strip())


{"write": mode_write, "restart": mode_restart, "killed": mode_killed, "bad": mode_bad}[MODE]()
print(f"OK field_output {MODE}")
