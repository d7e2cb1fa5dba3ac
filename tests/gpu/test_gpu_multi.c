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
    sim.backend->sync_host(sim.backend_state, &sim.parts);
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
    sim.backend->sync_host(sim.backend_state, &sim.parts);
    double *x = gather_by_tag(&sim, sim.parts.x);
    double *v = gather_by_tag(&sim, sim.parts.v);
    double *out = NULL;
    if (x) {
        const size_t n3 = 3 * (size_t)prm->system.n_particles;
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

/* Step-0 forces by tag that the P-GPU runs are compared with (rank 0; NULL elsewhere). */
typedef struct {
    double *cpu_single; /* CPU backend on one rank */
    double *cpu_multi;  /* CPU backend on P ranks */
    double *gpu_single; /* GPU backend on one rank, mixed precision */
} references;

/* How a P-GPU run moves its ghosts: the transport, and whether the ghost exchange overlaps
 * the forces. */
typedef struct {
    vs_transport_kind transport;
    int overlap;
    const char *name;
} comm_variant;

static void make_references(vs_params prm, int root, references *ref)
{
    prm.exec.backend = VS_BACKEND_CPU;
    ref->cpu_single = root ? forces_at_start(&prm, MPI_COMM_SELF) : NULL;
    ref->cpu_multi = forces_at_start(&prm, MPI_COMM_WORLD);
    prm.exec.backend = VS_BACKEND_GPU;
    prm.exec.precision = VS_PRECISION_MIXED;
    ref->gpu_single = root ? forces_at_start(&prm, MPI_COMM_SELF) : NULL;
}

static void free_references(references *ref)
{
    free(ref->cpu_single);
    free(ref->cpu_multi);
    free(ref->gpu_single);
}

/* Mixed-precision step-0 forces of P GPUs against the CPU references and, unless gpu_single
 * is NULL, the GPU on one rank, to 1e-5 (rank 0). `prefix` starts every line. */
static int check_against_references(const char *prefix, const double *f, const references *ref,
                                    const double *gpu_single, int64_t n)
{
    const char *const against[3] = {"1 CPU rank", "P CPU ranks", "1 GPU"};
    const double *const reference[3] = {ref->cpu_single, ref->cpu_multi, gpu_single};
    int failures = 0;
    for (int r = 0; r < 3; ++r) {
        if (!reference[r])
            continue;
        char what[200];
        snprintf(what, sizeof what, "%smixed, P GPUs vs %s, step-0 forces", prefix, against[r]);
        failures += check(0, what, vs_test_worst_relative(f, reference[r], n), 1e-5);
    }
    return failures;
}

/* A run's step-0 forces and state after N_STEPS against the reference run's, bit for bit
 * (rank 0). */
static int check_same_bits(const char *run, const char *reference, const double *forces,
                           const double *forces_ref, const double *state,
                           const double *state_ref, int64_t n)
{
    char after[80];
    snprintf(after, sizeof after, "states after %d steps", N_STEPS);
    int failures = check_bits(run, reference, "step-0 forces", forces, forces_ref, 1, n);
    failures += check_bits(run, reference, after, state, state_ref, 2, n);
    return failures;
}

/* One P-GPU run with the variant's transport and overlap: its step-0 forces and its state
 * after N_STEPS (by tag on rank 0, NULL elsewhere) and, if asked, this rank's communication
 * time hidden under forces. Fails if a particle was lost or duplicated; `prefix` starts the
 * line that says so. */
static int run_variant(vs_params prm, const comm_variant *v, const char *prefix, int rank,
                       double **forces, double **state, double *hidden_s)
{
    prm.exec.transport = v->transport;
    prm.exec.overlap = v->overlap;
    *forces = forces_at_start(&prm, MPI_COMM_WORLD);
    int lost = 0;
    *state = state_after_run(&prm, &lost, hidden_s);
    char what[200];
    snprintf(what, sizeof what, "%s%s transport: particle lost or duplicated", prefix, v->name);
    return check(rank, what, (double)lost, 0.0);
}

/* Double precision on P GPUs against the CPU on P ranks, step-0 forces to 1e-12. */
static int check_double_precision(vs_params prm, int root, const references *ref)
{
    prm.exec.precision = VS_PRECISION_DOUBLE;
    prm.exec.transport = VS_TRANSPORT_HOST;
    double *f = forces_at_start(&prm, MPI_COMM_WORLD);
    int failures = 0;
    if (root)
        failures += check(0, "double, P GPUs vs P CPU ranks, step-0 forces",
                          vs_test_worst_relative(f, ref->cpu_multi, prm.system.n_particles), 1e-12);
    free(f);
    return failures;
}

/* Every transport, and the host transport without the overlap, against the host transport:
 * bit-identical step-0 forces and states after N_STEPS; the host transport's forces against
 * the references. mpi-device is skipped where MPI is not CUDA-aware. */
static int check_transports(vs_params prm, const vs_par *world, const references *ref)
{
    static const comm_variant variants[4] = {{VS_TRANSPORT_HOST, 1, "host"},
                                             {VS_TRANSPORT_PEER, 1, "peer"},
                                             {VS_TRANSPORT_MPI_DEVICE, 1, "mpi-device"},
                                             {VS_TRANSPORT_HOST, 0, "host without overlap"}};
    const int root = world->rank == 0;
    const int64_t n = prm.system.n_particles;
    int failures = 0;
    double *forces0 = NULL, *state0 = NULL;
    for (int k = 0; k < 4; ++k) {
        if (variants[k].transport == VS_TRANSPORT_MPI_DEVICE && !vs_par_cuda_aware()) {
            if (root)
                printf("skip mpi-device transport: MPI is not CUDA-aware here\n");
            continue;
        }
        double *f, *state;
        failures += run_variant(prm, &variants[k], "", world->rank, &f, &state, NULL);
        if (k == 0) {
            if (root)
                failures += check_against_references("", f, ref, ref->gpu_single, n);
            forces0 = f;
            state0 = state;
            continue;
        }
        if (root) {
            char run[160];
            snprintf(run, sizeof run, "%s transport", variants[k].name);
            failures += check_same_bits(run, "host transport", f, forces0, state, state0, n);
        }
        free(f);
        free(state);
    }
    free(forces0);
    free(state0);
    return failures;
}

/* Dimensions of the decomposition that are split over ranks. */
static int split_dimensions(const vs_params *prm)
{
    vs_sim sim;
    start_or_die(&sim, prm, MPI_COMM_WORLD);
    int split = 0;
    for (int d = 0; d < 3; ++d)
        split += sim.dc.dims[d] > 1;
    vs_sim_destroy(&sim);
    return split;
}

/* Prints rank 0's communication time hidden under forces. Where the run overlaps (with a
 * skin the list is reused, and those steps overlap with one split dimension), fails unless
 * every rank hid some. Collective. */
static int check_hidden(const vs_par *world, const comm_variant *v, int split, double skin,
                        double hidden)
{
    const int overlaps = v->overlap && split == 1 && skin > 0.0;
    const int hidden_ran = !vs_par_any(world, !(hidden > 0.0));
    if (world->rank == 0)
        printf("     cell-list kernel, %s transport: %.6f s of comm hidden on rank 0\n", v->name,
               hidden);
    if (!overlaps)
        return 0;
    char what[200];
    snprintf(what, sizeof what, "cell-list kernel, %s transport: no comm hidden", v->name);
    return check(world->rank, what, hidden_ran ? 0.0 : 1.0, 0.0);
}

/* The cell-list kernel, which evaluates each pair once (ghosts have threads of their own), on
 * P GPUs against the CPU backend, and no particle lost; with the overlap and one dimension
 * split (2 ranks), the ghosts from the other rank stay out of the cell list and add their
 * pairs apart while the list's pairs run: the same fixed-point sums, so bit-identical to the
 * run without the overlap, with either transport. */
static int check_cell_kernel(vs_params prm, const vs_par *world, const references *ref)
{
    static const comm_variant variants[3] = {{VS_TRANSPORT_HOST, 0, "host without overlap"},
                                             {VS_TRANSPORT_HOST, 1, "host"},
                                             {VS_TRANSPORT_PEER, 1, "peer"}};
    const int root = world->rank == 0;
    const int64_t n = prm.system.n_particles;
    prm.exec.gpu_builder = VS_GPU_BUILDER_CELLS;
    prm.exec.transport = variants[0].transport; /* the bricks of the reference run */
    prm.exec.overlap = variants[0].overlap;
    const int split = split_dimensions(&prm);
    int failures = 0;
    double *forces0 = NULL, *state0 = NULL;
    for (int k = 0; k < 3; ++k) {
        double *f, *state;
        double hidden = 0.0;
        failures += run_variant(prm, &variants[k], "cell-list kernel, ", world->rank, &f,
                                &state, &hidden);
        failures += check_hidden(world, &variants[k], split, prm.neighbor.skin, hidden);
        if (k == 0) {
            if (root)
                failures += check_against_references("cell-list kernel, ", f, ref, NULL, n);
            forces0 = f;
            state0 = state;
            continue;
        }
        if (root) {
            char run[160];
            snprintf(run, sizeof run, "cell-list kernel, %s", variants[k].name);
            failures += check_same_bits(run, "host without overlap", f, forces0, state, state0,
                                        n);
        }
        free(f);
        free(state);
    }
    free(forces0);
    free(state0);
    return failures;
}

/* The cell-list kernel with two species of different masses and amplitudes (the pair's
 * amplitude is looked up by the ghost's species in the remote ghosts' kernel) and a body
 * force, peer transport: no particle lost, and the state after N_STEPS bit-identical with and
 * without the overlap. */
static int check_two_species(vs_params prm, const vs_par *world)
{
    prm.exec.gpu_builder = VS_GPU_BUILDER_CELLS;
    prm.species.n = 2;
    snprintf(prm.species.list[1].name, VS_NAME_LEN, "B");
    prm.species.list[0].fraction = 0.6;
    prm.species.list[1].fraction = 0.4;
    prm.species.list[1].mass = 2.0;
    prm.species.list[1].body_force[0] = 0.3;
    prm.dpd.a[0][1] = prm.dpd.a[1][0] = 40.0;
    prm.dpd.a[1][1] = 30.0;
    prm.exec.transport = VS_TRANSPORT_PEER;
    int failures = 0;
    double *state[2] = {NULL, NULL};
    for (int k = 0; k < 2; ++k) {
        prm.exec.overlap = k;
        int lost = 0;
        state[k] = state_after_run(&prm, &lost, NULL);
        failures += check(world->rank, "cell-list kernel, two species: particle lost or duplicated",
                          (double)lost, 0.0);
    }
    if (world->rank == 0)
        failures +=
            check_bits("cell-list kernel, two species, overlap", "none", "states after 300 steps",
                       state[1], state[0], 2, prm.system.n_particles);
    free(state[0]);
    free(state[1]);
    return failures;
}

int main(int argc, char **argv)
{
    vs_par_init(&argc, &argv);
    vs_par world;
    vs_par_from_comm(&world, MPI_COMM_WORLD);
    vs_params prm;
    vs_test_groot_warren(&prm, 10.0);
    if (argc == 3 && strcmp(argv[1], "--skin") == 0)
        prm.neighbor.skin = atof(argv[2]);

    references ref;
    make_references(prm, world.rank == 0, &ref);
    prm.exec.backend = VS_BACKEND_GPU; /* every run below: P GPUs, mixed unless said otherwise */
    prm.exec.precision = VS_PRECISION_MIXED;
    int failures = check_double_precision(prm, world.rank == 0, &ref);
    failures += check_transports(prm, &world, &ref);
    failures += check_cell_kernel(prm, &world, &ref);
    failures += check_two_species(prm, &world);
    free_references(&ref);

    const int failed = vs_par_any(&world, failures != 0);
    if (world.rank == 0)
        printf("%s on %d ranks\n", failed ? "FAILED" : "passed", world.size);
    vs_par_finalize();
    return failed ? 1 : 0;
}
