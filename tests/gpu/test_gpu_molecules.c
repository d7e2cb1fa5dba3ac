/* Molecules on the GPU backend against the CPU reference (label gpu; run through
 * skip_without_gpu.sh, which skips with 77 where no GPU is usable).
 *
 * Run under mpiexec -n P (1, 2 or 4 ranks sharing the GPUs there are) with --config FILE (the
 * molecule tests' chains.cfg: harmonic and FENE bonds, cosine and harmonic angles, chains
 * longer than a brick, so bonds and angles cross brick faces, edges and corners on P ranks)
 * and --precision double|mixed. The initial state depends on the seed only, so every run
 * starts from the same particles and topology (in mixed, the CPU runs take the GPU run's box
 * and start from its positions rounded onto its grid, src/core/position_grid.h):
 *   - step-0 forces of the P-rank GPU run against the CPU backend on one rank, particle by
 *     particle (by tag): in double 1e-12 relative (to the larger of the force and 1% of the
 *     rms force, vs_test_worst_relative); in mixed 1e-5 of the rms force;
 *   - step 0: the bond, angle and dihedral energies (where the configuration has dihedrals:
 *     tests/molecules/dihedrals.cfg) to 1e-12 relative in both precisions (the bonded
 *     terms run in double from the double positions), the potential energy and pressure to
 *     1e-12 (double) or 1e-5 (mixed);
 *   - thermo over 50 steps (temperature, pressure, kinetic, potential, bond and angle
 *     energies): 1e-8 relative in double, 1e-3 in mixed (fp32 pair forces part the
 *     trajectories slowly; a bonded force lost or counted twice moves the bond energy by far
 *     more);
 *   - a second GPU run of the same P ranks: bit-identical thermo of every step and
 *     bit-identical positions and velocities after 50 steps (with migrations, Morton
 *     reorders and the tag map rebuilt on the way);
 *   - the ghosts at step 0, summed over the ranks, against the CPU backend on the same P
 *     ranks: the same number, since both send a bonded bead out to the bonded width and a
 *     free one to the list radius only (comm/halo.h). Equal forces do not show this: a free
 *     bead sent too far changes no force, one sent too short does. At one rank the GPU
 *     sends every bead to the list radius only (its bonded terms take the owned copy by the
 *     minimum image, gpu/gpu_table.c), while the CPU's nearest copies need the bonded
 *     shell: there the GPU's number is checked against the periodic images within the list
 *     radius of the box's faces, counted here from the CPU run's step-0 positions.
 * The system must have bond energy, and angle energy where it has angles.
 * Exit 0 on success, 1 on failure.
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "config.h"
#include "fsutil.h"
#include "gpu_backend.h"
#include "log.h"
#include "simulation.h"
#include "test_support.h"
#include "thermo.h"

#define N_STEPS 50

/* The given per-particle fields of every owned particle, on rank 0, by tag: out[3 tag + d]. */
static double *gather_by_tag(const vs_sim *sim, double *const field[3])
{
    const vs_par *par = &sim->dc.cart;
    const int64_t n_total = sim->prm.system.n_particles;
    const int n = (int)sim->parts.n_owned;
    int *counts = VS_MALLOC(sizeof(int) * (size_t)par->size);
    int *displs = VS_MALLOC(sizeof(int) * (size_t)par->size);
    int64_t *tags = VS_MALLOC(sizeof(int64_t) * (size_t)(n_total + 1));
    double *buf = VS_MALLOC(sizeof(double) * (size_t)(n_total + 1));
    double *out = par->rank == 0 ? VS_MALLOC(sizeof(double) * 3 * (size_t)n_total) : NULL;
    vs_par_gather_int64(par, sim->parts.tag, n, tags, counts, displs, 0);
    for (int d = 0; d < 3; ++d) {
        vs_par_gather_double(par, field[d], n, buf, counts, displs, 0);
        if (out)
            for (int64_t k = 0; k < n_total; ++k)
                out[3 * tags[k] + d] = buf[k];
    }
    free(counts);
    free(displs);
    free(tags);
    free(buf);
    return out;
}

/* The periodic images of the owned particles that lie within the list radius of the
 * brick's faces (one rank: the whole box), each combination of faces one image. */
static int64_t list_images(const vs_sim *sim)
{
    const double w = sim->list_radius;
    int64_t images = 0;
    for (int64_t i = 0; i < sim->parts.n_owned; ++i) {
        int64_t copies = 1;
        for (int d = 0; d < 3; ++d) {
            const double x = sim->parts.x[d][i], lo = sim->dc.lo[d], hi = sim->dc.hi[d];
            if (vs_axis_periodic(&sim->prm, d))
                copies *= 1 + (x < lo + w) + (x >= hi - w);
        }
        images += copies - 1;
    }
    return images;
}

typedef struct {
    double *f0;                  /* step-0 forces by tag (rank 0) */
    double *x, *v;               /* positions and velocities after N_STEPS, by tag (rank 0) */
    int64_t ghosts;              /* ghosts at step 0, all ranks */
    int64_t images;              /* one rank: periodic images within the list radius */
    vs_thermo thermo[N_STEPS + 1];
    double box[3], quantum;      /* the run's box and position grid (0: none) */
} run_result;

/* A run from the configuration's initial state; with `grid` (a GPU run's result), in that
 * run's box and from its starting positions on its position grid (src/core/position_grid.h),
 * which the CPU backend would not round to: the reference then starts where the GPU did. */
static void run(const vs_params *config, MPI_Comm comm, const run_result *grid,
                run_result *out)
{
    memset(out, 0, sizeof *out); /* the thermo rows' padding too: they are compared bytewise */
    vs_params prm_copy = *config;
    const vs_params *prm = &prm_copy;
    if (grid)
        memcpy(prm_copy.system.box, grid->box, sizeof prm_copy.system.box);
    vs_sim sim;
    char err[512] = "";
    const int created = vs_sim_create(&sim, prm, comm, err, sizeof err) == 0;
    if (created && grid)
        sim.prm.exec.position_quantum = grid->quantum;
    if (!created || vs_sim_start(&sim, err, sizeof err) != 0) {
        fprintf(stderr, "setup failed: %s\n", err);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    memcpy(out->box, sim.prm.system.box, sizeof out->box);
    out->quantum = sim.prm.exec.position_quantum;
    vs_sim_thermo(&sim, &out->thermo[0]);
    out->ghosts = prm->exec.backend == VS_BACKEND_GPU
                      ? vs_gpu_n_ghost((vs_gpu_state *)sim.backend_state)
                      : sim.parts.n_ghost;
    vs_par_sum_int64(&sim.dc.cart, &out->ghosts, 1);
    sim.backend->sync_host(sim.backend_state, &sim.parts);
    out->images = list_images(&sim);
    out->f0 = gather_by_tag(&sim, sim.parts.f);
    for (int k = 1; k <= N_STEPS; ++k) {
        sim.energy_due = 1;
        vs_sim_step(&sim);
        vs_sim_thermo(&sim, &out->thermo[k]);
    }
    vs_sim_finish_step(&sim);
    sim.backend->sync_host(sim.backend_state, &sim.parts);
    out->x = gather_by_tag(&sim, sim.parts.x);
    out->v = gather_by_tag(&sim, sim.parts.v);
    vs_sim_destroy(&sim);
}

static void free_result(run_result *r)
{
    free(r->f0);
    free(r->x);
    free(r->v);
}

static int check(const char *what, double value, double tol)
{
    const int ok = value <= tol;
    printf("%s %s: %.3e (tolerance %.0e)\n", ok ? "ok  " : "FAIL", what, value, tol);
    return !ok;
}

static double rel(double a, double b) { return fabs(a - b) / fmax(fabs(b), 1e-300); }

/* The GPU run (g) against the CPU reference (c). */
/* The double-precision force tolerance: 1e-12 of a particle's force (at least 1% of the rms
 * force), the gap between the CPU's fixed-point sums and the GPU's double sums where pair
 * terms are of the size of the net forces; --force-tolerance raises it for configurations
 * whose pair terms are far larger than some net forces (special.cfg: lj with sigma 0.35 at a
 * random start), where the double sums' rounding grows with the terms. */
static double force_tolerance = 1e-12;

static int compare(const run_result *g, const run_result *c, int64_t n, int mixed,
                   int has_angles)
{
    int failures = 0;
    if (mixed) {
        double rms = 0.0, worst = 0.0;
        for (int64_t k = 0; k < 3 * n; ++k)
            rms += c->f0[k] * c->f0[k];
        rms = sqrt(rms / (double)n);
        for (int64_t t = 0; t < n; ++t) {
            double d2 = 0.0;
            for (int d = 0; d < 3; ++d)
                d2 += (g->f0[3 * t + d] - c->f0[3 * t + d]) * (g->f0[3 * t + d] - c->f0[3 * t + d]);
            worst = fmax(worst, sqrt(d2));
        }
        failures += check("step-0 forces, worst difference / rms force", worst / rms, 1e-5);
    } else {
        failures += check("step-0 forces, worst relative difference",
                          vs_test_worst_relative(g->f0, c->f0, n), force_tolerance);
    }
    const vs_thermo *g0 = &g->thermo[0], *c0 = &c->thermo[0];
    failures += check("step-0 bond energy", rel(g0->bond_energy, c0->bond_energy), 1e-12);
    failures += check("step-0 angle energy", rel(g0->angle_energy, c0->angle_energy), 1e-12);
    if (c0->dihedral_energy != 0.0)
        failures += check("step-0 dihedral energy", rel(g0->dihedral_energy, c0->dihedral_energy),
                          1e-12);
    const double tol0 = mixed ? 1e-5 : 1e-12;
    failures += check("step-0 potential energy", rel(g0->potential, c0->potential), tol0);
    failures += check("step-0 pressure", rel(g0->pressure, c0->pressure), tol0);
    double worst = 0.0;
    for (int k = 0; k <= N_STEPS; ++k) {
        const vs_thermo *a = &g->thermo[k], *b = &c->thermo[k];
        const double q[7] = {rel(a->temperature, b->temperature), rel(a->pressure, b->pressure),
                             rel(a->kinetic, b->kinetic),         rel(a->potential, b->potential),
                             rel(a->bond_energy, b->bond_energy),
                             rel(a->angle_energy, b->angle_energy),
                             b->dihedral_energy != 0.0
                                 ? rel(a->dihedral_energy, b->dihedral_energy) : 0.0};
        for (int m = 0; m < 7; ++m)
            worst = fmax(worst, q[m]);
    }
    failures += check("thermo over 50 steps, worst relative difference", worst,
                      mixed ? 1e-3 : 1e-8);
    if (!(c0->bond_energy > 0.0 && (!has_angles || c0->angle_energy > 0.0))) {
        printf("FAIL the system has no bond or angle energy: not a molecules test\n");
        failures++;
    }
    return failures;
}

/* Two GPU runs of the same configuration on the same ranks: bit for bit. */
static int compare_repeat(const run_result *a, const run_result *b, int64_t n)
{
    const int thermo_same = memcmp(a->thermo, b->thermo, sizeof a->thermo) == 0;
    const int state_same = memcmp(a->x, b->x, sizeof(double) * 3 * (size_t)n) == 0 &&
                           memcmp(a->v, b->v, sizeof(double) * 3 * (size_t)n) == 0;
    printf("%s repeated GPU run: thermo %s, state after %d steps %s\n",
           thermo_same && state_same ? "ok  " : "FAIL", thermo_same ? "identical" : "DIFFERS",
           N_STEPS, state_same ? "identical" : "DIFFERS");
    return !(thermo_same && state_same);
}

int main(int argc, char **argv)
{
    /* a Morton reorder every 16 rebuilds on any rank count, so that the 50 steps cross three
     * (one rank with records would wait 1024: gpu/gpu_cells.cu) */
    setenv("VESICA_GPU_REORDER_EVERY", "16", 0);
    vs_par_init(&argc, &argv);
    vs_par world;
    vs_par_from_comm(&world, MPI_COMM_WORLD);
    const char *config = NULL;
    int mixed = 0;
    for (int a = 1; a < argc; ++a) {
        if (strcmp(argv[a], "--config") == 0 && a + 1 < argc)
            config = argv[++a];
        else if (strcmp(argv[a], "--precision") == 0 && a + 1 < argc)
            mixed = strcmp(argv[++a], "mixed") == 0;
        else if (strcmp(argv[a], "--force-tolerance") == 0 && a + 1 < argc)
            force_tolerance = atof(argv[++a]);
    }
    vs_params prm;
    vs_test_groot_warren(&prm, 8.0);
    char err[512];
    char *text = config ? vs_read_text_file(config, err, sizeof err) : NULL;
    if (!text || vs_config_parse(text, config, NULL, 0, &prm, err, sizeof err) != 0) {
        fprintf(stderr, "usage: test_gpu_molecules --config FILE [--precision double|mixed]"
                        "%s%s\n", text ? ": " : "", text ? err : "");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    free(text);
    prm.exec.precision = mixed ? VS_PRECISION_MIXED : VS_PRECISION_DOUBLE;

    prm.exec.backend = VS_BACKEND_GPU;
    run_result g1, g2, cp;
    run(&prm, MPI_COMM_WORLD, NULL, &g1);
    run(&prm, MPI_COMM_WORLD, NULL, &g2);
    prm.exec.backend = VS_BACKEND_CPU; /* the same ranks: the same ghost set */
    run(&prm, MPI_COMM_WORLD, &g1, &cp);
    int failures = 0;
    if (world.rank == 0) {
        const int64_t want = world.size == 1 ? cp.images : cp.ghosts;
        const int same = g1.ghosts == want;
        printf("%s ghosts at step 0 on %d rank%s: GPU %lld, %s %lld\n", same ? "ok  " : "FAIL",
               world.size, world.size == 1 ? "" : "s", (long long)g1.ghosts,
               world.size == 1 ? "images within the list radius" : "CPU",
               (long long)want);
        failures += !same;
    }
    free_result(&cp);
    if (world.rank == 0) {
        prm.exec.backend = VS_BACKEND_CPU;
        run_result c;
        run(&prm, MPI_COMM_SELF, &g1, &c);
        printf("%s precision, %d rank%s: %lld particles, %lld in molecules\n",
               mixed ? "mixed" : "double", world.size, world.size == 1 ? "" : "s",
               (long long)prm.system.n_particles, (long long)prm.molecules.n_molecule_beads);
        failures +=
            compare(&g1, &c, prm.system.n_particles, mixed, prm.molecules.n_angle_types > 0);
        failures += compare_repeat(&g1, &g2, prm.system.n_particles);
        free_result(&c);
    }
    free_result(&g1);
    free_result(&g2);
    vs_par_bcast_bytes(&world, &failures, sizeof failures, 0);
    vs_par_finalize();
    return failures ? 1 : 0;
}
