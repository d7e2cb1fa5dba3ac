/* Multi-GPU runs against one GPU and against the CPU backend (label gpu).
 *
 * Run under mpiexec -n P on a machine with GPUs (ranks share devices when P exceeds them,
 * e.g. 4 ranks on 2 GPUs as 2 x 2 bricks). The Groot-Warren fluid is set up from (seed, tag)
 * only, so every run below starts from the same particles:
 *   - step-0 forces of the P-rank GPU run (mixed) agree with the CPU backend on one rank, the
 *     CPU backend on P ranks and the GPU on one rank to 1e-5 relative (the mixed-precision
 *     tolerance of test_gpu_backend), and in double precision with the P-rank CPU run to
 *     1e-12;
 *   - every transport (host, peer, and mpi-device where MPI is CUDA-aware), and the host
 *     transport without overlapping the ghost exchange with the forces, give bit-identical
 *     forces at step 0 and a bit-identical state after 300 steps with migrations (the same
 *     bytes arrive, whichever way they travel, and every force is the same sum in the same
 *     order), and no particle is lost.
 *   - the cell-list force kernel (no Verlet list; each pair once in mixed precision) on P
 *     GPUs agrees with both CPU references to 1e-5 and loses no particle over 300 steps;
 *     with the overlap (the ghosts from other ranks kept out of the cell list, their pairs
 *     added apart), host and peer transports give forces and a state bit-identical to the
 *     run without it, and on a slab with a skin some communication was hidden.
 * `--skin S` sets the Verlet skin of every run (0: migration, ghosts and lists on every step).
 * Exit 0 on success, 1 on failure.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "log.h"
#include "simulation.h"
#include "test_support.h"

#define N_STEPS 300

/* x, y, z of the given per-particle fields of every owned particle, on rank 0, by tag:
 * out[3 * tag + d]. */
static double *gather_by_tag(vs_sim *sim, double *const field[3])
{
    const vs_par *par = &sim->dc.cart;
    const int64_t n_total = sim->prm.n_particles;
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

static void start_or_die(vs_sim *sim, const vs_params *prm, MPI_Comm comm)
{
    char err[512] = "";
    if (vs_sim_create(sim, prm, comm, err, sizeof err) != 0 ||
        vs_sim_start(sim, err, sizeof err) != 0) {
        fprintf(stderr, "set-up failed: %s\n", err);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

/* Step-0 forces by tag (rank 0 of comm; NULL elsewhere). */
static double *forces_at_start(const vs_params *prm, MPI_Comm comm)
{
    vs_sim sim;
    start_or_die(&sim, prm, comm);
    sim.backend->sync_host(&sim);
    double *f = gather_by_tag(&sim, sim.parts.f);
    vs_sim_destroy(&sim);
    return f;
}

/* Positions and velocities after N_STEPS (6N values by tag on rank 0), the integrity
 * verdict and, if asked, this rank's communication time hidden under forces. */
static double *state_after_run(const vs_params *prm, int *lost, double *hidden_s)
{
    vs_sim sim;
    start_or_die(&sim, prm, MPI_COMM_WORLD);
    for (int k = 0; k < N_STEPS; ++k)
        vs_sim_step(&sim);
    *lost = vs_sim_check_integrity(&sim);
    if (hidden_s)
        *hidden_s = sim.comm_hidden_s;
    sim.backend->sync_host(&sim);
    double *x = gather_by_tag(&sim, sim.parts.x);
    double *v = gather_by_tag(&sim, sim.parts.v);
    double *out = NULL;
    if (x) {
        const size_t n3 = 3 * (size_t)prm->n_particles;
        out = VS_MALLOC(2 * n3 * sizeof(double));
        memcpy(out, x, n3 * sizeof(double));
        memcpy(out + n3, v, n3 * sizeof(double));
    }
    free(x);
    free(v);
    vs_sim_destroy(&sim);
    return out;
}


static int check(int rank, const char *what, double value, double tol)
{
    if (rank != 0)
        return 0;
    const int ok = value <= tol;
    printf("%s %s: %.3e (tolerance %.0e)\n", ok ? "ok  " : "FAIL", what, value, tol);
    return !ok;
}

/* A run against the reference run: `n_fields` x 3N doubles compared bit for bit (rank 0). */
static int check_bits(const char *run, const char *reference, const char *what,
                      const double *values, const double *ref, int n_fields, int64_t n)
{
    char line[240];
    snprintf(line, sizeof line, "%s vs %s: %s differ (bits)", run, reference, what);
    return check(0, line,
                 memcmp(values, ref, (size_t)n_fields * 3 * (size_t)n * sizeof(double)) != 0,
                 0.0);
}

int main(int argc, char **argv)
{
    vs_par_init(&argc, &argv);
    vs_par world;
    vs_par_from_comm(&world, MPI_COMM_WORLD);
    const int root = world.rank == 0;
    vs_params prm;
    vs_test_groot_warren(&prm, 10.0);
    if (argc == 3 && strcmp(argv[1], "--skin") == 0)
        prm.skin = atof(argv[2]);
    const int64_t n = prm.n_particles;
    int failures = 0;

    /* references: the CPU backend on one rank and on P ranks, the GPU on one rank */
    prm.backend = VS_BACKEND_CPU;
    double *cpu_single = root ? forces_at_start(&prm, MPI_COMM_SELF) : NULL;
    double *cpu_multi = forces_at_start(&prm, MPI_COMM_WORLD);
    prm.backend = VS_BACKEND_GPU;
    prm.precision = VS_PRECISION_MIXED;
    double *gpu_single = root ? forces_at_start(&prm, MPI_COMM_SELF) : NULL;

    /* double precision on P GPUs against the CPU on P ranks */
    prm.precision = VS_PRECISION_DOUBLE;
    prm.transport = VS_TRANSPORT_HOST;
    double *gpu_double = forces_at_start(&prm, MPI_COMM_WORLD);
    if (root)
        failures += check(0, "double, P GPUs vs P CPU ranks, step-0 forces",
                          vs_test_worst_relative(gpu_double, cpu_multi, n), 1e-12);
    prm.precision = VS_PRECISION_MIXED;

    const vs_transport_kind kinds[4] = {VS_TRANSPORT_HOST, VS_TRANSPORT_PEER,
                                        VS_TRANSPORT_MPI_DEVICE, VS_TRANSPORT_HOST};
    const int overlap[4] = {1, 1, 1, 0};
    const char *names[4] = {"host", "peer", "mpi-device", "host without overlap"};
    double *forces0 = NULL, *state0 = NULL;
    for (int k = 0; k < 4; ++k) {
        if (kinds[k] == VS_TRANSPORT_MPI_DEVICE && !vs_par_cuda_aware()) {
            if (root)
                printf("skip mpi-device transport: MPI is not CUDA-aware here\n");
            continue;
        }
        prm.transport = kinds[k];
        prm.overlap = overlap[k];
        double *f = forces_at_start(&prm, MPI_COMM_WORLD);
        int lost = 0;
        double *state = state_after_run(&prm, &lost, NULL);
        char what[160];
        snprintf(what, sizeof what, "%s transport: particle lost or duplicated", names[k]);
        failures += check(world.rank, what, (double)lost, 0.0);
        if (root && k == 0) {
            failures += check(0, "mixed, P GPUs vs 1 CPU rank, step-0 forces",
                              vs_test_worst_relative(f, cpu_single, n), 1e-5);
            failures += check(0, "mixed, P GPUs vs P CPU ranks, step-0 forces",
                              vs_test_worst_relative(f, cpu_multi, n), 1e-5);
            failures += check(0, "mixed, P GPUs vs 1 GPU, step-0 forces",
                              vs_test_worst_relative(f, gpu_single, n), 1e-5);
            forces0 = f;
            state0 = state;
            continue;
        }
        if (root) {
            char run[160], after[80];
            snprintf(run, sizeof run, "%s transport", names[k]);
            snprintf(after, sizeof after, "states after %d steps", N_STEPS);
            failures += check_bits(run, "host transport", "step-0 forces", f, forces0, 1, n);
            failures += check_bits(run, "host transport", after, state, state0, 2, n);
        }
        free(f);
        free(state);
    }

    /* the cell-list kernel, which evaluates each pair once (ghosts have threads of their
     * own), on P GPUs against the CPU backend, and no particle lost; with the overlap and
     * one dimension split (2 ranks), the ghosts from the other rank stay out of the cell
     * list and add their pairs apart while the list's pairs run: the same fixed-point sums,
     * so bit-identical to the run without the overlap, with either transport */
    const vs_gpu_builder_kind builder = prm.gpu_builder;
    prm.gpu_builder = VS_GPU_BUILDER_CELLS;
    const vs_transport_kind cell_kinds[3] = {VS_TRANSPORT_HOST, VS_TRANSPORT_HOST,
                                             VS_TRANSPORT_PEER};
    const int cell_overlap[3] = {0, 1, 1};
    const char *cell_names[3] = {"host without overlap", "host", "peer"};
    double *cells0 = NULL, *cells_state0 = NULL;
    int split = 0; /* dimensions split over ranks */
    {
        vs_sim sim;
        start_or_die(&sim, &prm, MPI_COMM_WORLD);
        for (int d = 0; d < 3; ++d)
            split += sim.dc.dims[d] > 1;
        vs_sim_destroy(&sim);
    }
    for (int k = 0; k < 3; ++k) {
        prm.transport = cell_kinds[k];
        prm.overlap = cell_overlap[k];
        double *cells = forces_at_start(&prm, MPI_COMM_WORLD);
        int cells_lost = 0;
        double hidden = 0.0;
        double *cells_state = state_after_run(&prm, &cells_lost, &hidden);
        char what[200];
        snprintf(what, sizeof what, "cell-list kernel, %s transport: particle lost or duplicated",
                 cell_names[k]);
        failures += check(world.rank, what, (double)cells_lost, 0.0);
        /* with a skin the list is reused, and those steps overlap (one split dimension) */
        const int overlaps = cell_overlap[k] && split == 1 && prm.skin > 0.0;
        const int hidden_ran = !vs_par_any(&world, !(hidden > 0.0));
        if (root)
            printf("     cell-list kernel, %s transport: %.6f s of comm hidden on rank 0\n",
                   cell_names[k], hidden);
        if (overlaps) {
            snprintf(what, sizeof what, "cell-list kernel, %s transport: no comm hidden",
                     cell_names[k]);
            failures += check(world.rank, what, hidden_ran ? 0.0 : 1.0, 0.0);
        }
        if (root && k == 0) {
            failures += check(0, "cell-list kernel, mixed, P GPUs vs 1 CPU rank, step-0 forces",
                              vs_test_worst_relative(cells, cpu_single, n), 1e-5);
            failures += check(0, "cell-list kernel, mixed, P GPUs vs P CPU ranks, step-0 forces",
                              vs_test_worst_relative(cells, cpu_multi, n), 1e-5);
            cells0 = cells;
            cells_state0 = cells_state;
            continue;
        }
        if (root) {
            char run[160], after[80];
            snprintf(run, sizeof run, "cell-list kernel, %s", cell_names[k]);
            snprintf(after, sizeof after, "states after %d steps", N_STEPS);
            failures += check_bits(run, "host without overlap", "step-0 forces", cells, cells0,
                                   1, n);
            failures += check_bits(run, "host without overlap", after, cells_state,
                                   cells_state0, 2, n);
        }
        free(cells);
        free(cells_state);
    }
    free(cells0);
    free(cells_state0);

    /* the same with two species of different masses and amplitudes (the pair's amplitude
     * is looked up by the ghost's species in the remote ghosts' kernel) and a body force */
    const vs_params one_species = prm;
    prm.n_species = 2;
    snprintf(prm.species[1].name, VS_NAME_LEN, "B");
    prm.species[0].fraction = 0.6;
    prm.species[1].fraction = 0.4;
    prm.species[1].mass = 2.0;
    prm.species[1].body_force[0] = 0.3;
    prm.a[0][1] = prm.a[1][0] = 40.0;
    prm.a[1][1] = 30.0;
    prm.transport = VS_TRANSPORT_PEER;
    double *mix_state[2] = {NULL, NULL};
    for (int k = 0; k < 2; ++k) {
        prm.overlap = k;
        int lost = 0;
        mix_state[k] = state_after_run(&prm, &lost, NULL);
        failures += check(world.rank, "cell-list kernel, two species: particle lost or duplicated",
                          (double)lost, 0.0);
    }
    if (root)
        failures += check_bits("cell-list kernel, two species, overlap", "none",
                               "states after 300 steps", mix_state[1], mix_state[0], 2, n);
    free(mix_state[0]);
    free(mix_state[1]);
    prm = one_species;
    prm.gpu_builder = builder;

    free(cpu_single);
    free(cpu_multi);
    free(gpu_single);
    free(gpu_double);
    free(forces0);
    free(state0);
    const int failed = vs_par_any(&world, failures != 0);
    if (root)
        printf("%s on %d ranks\n", failed ? "FAILED" : "passed", world.size);
    vs_par_finalize();
    return failed ? 1 : 0;
}
