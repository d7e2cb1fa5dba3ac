/* The same physics on any rank count.
 *
 * Run under mpiexec -n P. The Groot-Warren fluid is set up on all P ranks (a P-brick
 * decomposition, ghosts from neighbour ranks) and, on rank 0, again on MPI_COMM_SELF (one
 * brick, ghosts are periodic images). The initial state is a function of (seed, tag) only, so
 * both runs start from identical particles and must agree:
 *   - every particle's force at step 0 to 1e-12 relative (only the summation order differs),
 *   - potential energy and pressure at step 0 to 1e-12 relative,
 *   - thermo over the first 50 steps to 1e-8 relative,
 * and the decomposed run conserves momentum to round-off. Exit 0 on success, 1 on failure.
 * `--skin S` sets the Verlet skin (0: every list, ghost layer and migration rebuilt on every
 * step). `--flow` adds the double Poiseuille force (g = 0.5 along y, changing sign across z):
 * the flow term on any rank count; it puts momentum in, so the momentum check is skipped.
 * `--config FILE` takes the system from a configuration file instead (the molecules'
 * test: bonds, angles and dihedrals across brick faces, edges and corners, chains longer
 * than a brick; then the bond, angle and dihedral energies are compared as well).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "fsutil.h"
#include "log.h"
#include "simulation.h"
#include "test_support.h"
#include "thermo.h"

#define N_STEPS 50

typedef struct {
    int64_t *tag;
    double *f[3];
    int64_t n;
} gathered_forces;

/* Forces of every owned particle, gathered on rank 0 and indexed by tag. */
static void gather_forces_by_tag(const vs_sim *sim, int64_t n_total, gathered_forces *out)
{
    const vs_par *par = &sim->dc.cart;
    const int n = (int)sim->parts.n_owned;
    int *counts = VS_MALLOC(sizeof(int) * (size_t)par->size);
    int *displs = VS_MALLOC(sizeof(int) * (size_t)par->size);
    int64_t *tags = VS_MALLOC(sizeof(int64_t) * (size_t)(n_total + 1));
    double *buf = VS_MALLOC(sizeof(double) * (size_t)(n_total + 1));
    vs_par_gather_int64(par, sim->parts.tag, n, tags, counts, displs, 0);
    out->n = n_total;
    out->tag = NULL;
    for (int d = 0; d < 3; ++d) {
        vs_par_gather_double(par, sim->parts.f[d], n, buf, counts, displs, 0);
        if (par->rank == 0) {
            out->f[d] = VS_MALLOC(sizeof(double) * (size_t)n_total);
            for (int64_t k = 0; k < n_total; ++k)
                out->f[d][tags[k]] = buf[k];
        }
    }
    free(counts);
    free(displs);
    free(tags);
    free(buf);
}

static int rel_differs(double a, double b, double tol, double floor_scale)
{
    const double scale = fmax(fabs(b), floor_scale);
    return !(fabs(a - b) <= tol * scale);
}

static void run(vs_sim *sim, vs_thermo thermo[N_STEPS + 1], double *max_momentum)
{
    vs_sim_start(sim, NULL, 0);
    vs_sim_thermo(sim, &thermo[0]);
    *max_momentum = 0.0;
    for (int k = 1; k <= N_STEPS; ++k) {
        sim->energy_due = 1;
        vs_sim_step(sim);
        vs_sim_thermo(sim, &thermo[k]);
        for (int d = 0; d < 3; ++d)
            *max_momentum = fmax(*max_momentum, fabs(thermo[k].momentum[d]));
    }
}

static void create_or_die(vs_sim *sim, const vs_params *prm, MPI_Comm comm)
{
    char err[512];
    if (vs_sim_create(sim, prm, comm, err, sizeof err) != 0) {
        fprintf(stderr, "setup failed: %s\n", err);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

/* Forces at step 0 on the ranks of comm, gathered on its rank 0 before any step. */
static void forces_at_start(const vs_params *prm, MPI_Comm comm, gathered_forces *forces)
{
    vs_sim sim;
    char err[512];
    create_or_die(&sim, prm, comm);
    vs_sim_start(&sim, err, sizeof err);
    gather_forces_by_tag(&sim, prm->system.n_particles, forces);
    vs_sim_destroy(&sim);
}

/* The P-brick run on every rank: forces at step 0 (on rank 0), the thermo of every step and
 * the largest |total momentum|. Prints the layout; fails with skin 0 unless every step
 * rebuilt the lists. */
static int run_decomposed(const vs_params *prm, const vs_par *world, gathered_forces *forces,
                          vs_thermo thermo[N_STEPS + 1], double *max_momentum)
{
    forces_at_start(prm, MPI_COMM_WORLD, forces);
    vs_sim multi;
    create_or_die(&multi, prm, MPI_COMM_WORLD);
    run(&multi, thermo, max_momentum);
    if (world->rank == 0)
        printf("ranks %d, skin %g: bricks %d x %d x %d, %lld owned on rank 0, %lld ghosts, "
               "%lld builds in %d steps\n",
               world->size, prm->neighbor.skin, multi.dc.dims[0], multi.dc.dims[1],
               multi.dc.dims[2], (long long)multi.parts.n_owned, (long long)multi.parts.n_ghost,
               (long long)multi.n_builds, N_STEPS);
    int failures = 0;
    if (prm->neighbor.skin == 0.0 && multi.n_builds != N_STEPS + 1) {
        if (world->rank == 0)
            printf("FAIL skin 0: %lld builds in %d steps, expected one per step plus the first\n",
                   (long long)multi.n_builds, N_STEPS);
        failures++;
    }
    vs_sim_destroy(&multi);
    return failures;
}

/* The same system on one rank (rank 0 only, MPI_COMM_SELF). */
static void run_single(const vs_params *prm, gathered_forces *forces,
                       vs_thermo thermo[N_STEPS + 1], double *max_momentum)
{
    forces_at_start(prm, MPI_COMM_SELF, forces);
    vs_sim single;
    create_or_die(&single, prm, MPI_COMM_SELF);
    run(&single, thermo, max_momentum);
    vs_sim_destroy(&single);
}

/* Every particle's step-0 force against the one-rank run's, to 1e-12 relative to the larger
 * of its size and 1e-3 of the rms force. `failures` is the running count; while it is below
 * 5 a failing particle is printed. */
static void compare_forces(const gathered_forces *fm, const gathered_forces *fs, int64_t n,
                           int *failures)
{
    double rms = 0.0;
    for (int64_t t = 0; t < n; ++t)
        for (int d = 0; d < 3; ++d)
            rms += fs->f[d][t] * fs->f[d][t];
    rms = sqrt(rms / (double)n);
    double worst = 0.0;
    for (int64_t t = 0; t < n; ++t) {
        const double ref = sqrt(fs->f[0][t] * fs->f[0][t] + fs->f[1][t] * fs->f[1][t] +
                                fs->f[2][t] * fs->f[2][t]);
        const double dx = fm->f[0][t] - fs->f[0][t], dy = fm->f[1][t] - fs->f[1][t],
                     dz = fm->f[2][t] - fs->f[2][t];
        const double rel = sqrt(dx * dx + dy * dy + dz * dz) / fmax(ref, 1e-3 * rms);
        worst = fmax(worst, rel);
        if (rel > 1e-12 && (*failures)++ < 5)
            printf("FAIL force of particle %lld: relative difference %.3e\n", (long long)t, rel);
    }
    printf("step 0 forces: worst relative difference %.3e (tolerance 1e-12)\n", worst);
}

/* Potential energy and pressure at step 0 to 1e-12, and temperature, pressure, kinetic and
 * potential energy of every step to 1e-8, against the one-rank run's. `failures` is the
 * running count; while it is below 10 a failing quantity is printed. */
static void compare_thermo(const vs_thermo tm[N_STEPS + 1], const vs_thermo ts[N_STEPS + 1],
                           int *failures)
{
    if (rel_differs(tm[0].potential, ts[0].potential, 1e-12, 0.0) ||
        rel_differs(tm[0].pressure, ts[0].pressure, 1e-12, 0.0)) {
        printf("FAIL step 0: potential %.17g vs %.17g, pressure %.17g vs %.17g\n",
               tm[0].potential, ts[0].potential, tm[0].pressure, ts[0].pressure);
        (*failures)++;
    }
    double worst_thermo = 0.0;
    for (int k = 0; k <= N_STEPS; ++k) {
        const double pairs[7][2] = {{tm[k].temperature, ts[k].temperature},
                                    {tm[k].pressure, ts[k].pressure},
                                    {tm[k].kinetic, ts[k].kinetic},
                                    {tm[k].potential, ts[k].potential},
                                    {tm[k].bond_energy, ts[k].bond_energy},
                                    {tm[k].angle_energy, ts[k].angle_energy},
                                    {tm[k].dihedral_energy, ts[k].dihedral_energy}};
        for (int q = 0; q < (ts[k].molecules ? 7 : 4); ++q) {
            const double diff = fabs(pairs[q][0] - pairs[q][1]);
            const double rel = diff == 0.0 ? 0.0 : diff / fabs(pairs[q][1]);
            worst_thermo = fmax(worst_thermo, rel);
            if (rel > 1e-8 && (*failures)++ < 10)
                printf("FAIL step %d quantity %d: %.17g vs %.17g\n", k, q, pairs[q][0],
                       pairs[q][1]);
        }
    }
    printf("thermo over %d steps: worst relative difference %.3e (tolerance 1e-8)\n", N_STEPS,
           worst_thermo);
}

int main(int argc, char **argv)
{
    vs_par_init(&argc, &argv);
    vs_par world;
    vs_par_from_comm(&world, MPI_COMM_WORLD);
    vs_params prm;
    vs_test_groot_warren(&prm, 8.0);
    int flow = 0;
    const char *config = NULL;
    for (int a = 1; a < argc; ++a) {
        if (strcmp(argv[a], "--skin") == 0 && a + 1 < argc)
            prm.neighbor.skin = atof(argv[++a]);
        else if (strcmp(argv[a], "--flow") == 0)
            flow = 1;
        else if (strcmp(argv[a], "--config") == 0 && a + 1 < argc)
            config = argv[++a];
    }
    if (config) {
        char err[512];
        char *text = vs_read_text_file(config, err, sizeof err);
        if (!text || vs_config_parse(text, config, NULL, 0, &prm, err, sizeof err) != 0) {
            fprintf(stderr, "%s\n", err);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        free(text);
    }
    if (flow) {
        prm.flow.kind = VS_FLOW_DOUBLE_POISEUILLE;
        prm.flow.axis = 1;
        prm.flow.across = 2;
        prm.flow.species = -1;
        prm.flow.g = 0.5;
    }

    gathered_forces fm;
    vs_thermo tm[N_STEPS + 1];
    double pmax_multi;
    int failures = run_decomposed(&prm, &world, &fm, tm, &pmax_multi);
    if (world.rank == 0) {
        gathered_forces fs;
        vs_thermo ts[N_STEPS + 1];
        double pmax_single;
        run_single(&prm, &fs, ts, &pmax_single);
        compare_forces(&fm, &fs, prm.system.n_particles, &failures);
        compare_thermo(tm, ts, &failures);
        printf("largest |total momentum|: %.3e on %d ranks, %.3e on one\n", pmax_multi,
               world.size, pmax_single);
        if (!flow && !(pmax_multi < 1e-10)) {
            printf("FAIL momentum not conserved on %d ranks\n", world.size);
            failures++;
        }
        for (int d = 0; d < 3; ++d) {
            free(fs.f[d]);
            free(fm.f[d]);
        }
    }
    vs_par_bcast_bytes(&world, &failures, sizeof failures, 0);
    vs_par_finalize();
    return failures ? 1 : 0;
}
