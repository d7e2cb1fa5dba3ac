/* vesica: command-line entry point.
 *
 *   vesica run CONFIG [--set key=value]... [--restart latest|PATH] [--force-restart]
 *   vesica mc CONFIG  (the same options; the Monte Carlo engine, src/app/run_mc.c)
 *   vesica info           version, backends, GPUs, MPI and HDF5
 *   vesica --help | --version
 *
 * Exit status: 0 finished, 1 runtime fault, 2 bad input (command line or configuration), 3
 * stopped for restart (config.h). Rank 0 reads the configuration and broadcasts its text;
 * every rank parses it, so every rank reaches the same verdict and they exit together.
 */
#define _POSIX_C_SOURCE 200809L
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "fsutil.h"
#include "h5util.h"
#include "log.h"
#include "parallel.h"
#include "pair_table.h"
#include "run.h"
#include "run_mc.h"
#include "version.h"
#ifdef VESICA_HAVE_CUDA
#include "gpu.h"
#endif

#define VS_MAX_SETS 256

static void print_usage(FILE *to)
{
    fprintf(to,
            "Usage: vesica run CONFIG [--set key=value]... [--restart latest|PATH]\n"
            "       vesica mc CONFIG [--set key=value]... [--restart latest|PATH]\n"
            "       vesica info\n"
            "       vesica --help | --version\n"
            "\n"
            "Vesica: dissipative particle dynamics on many GPUs (and CPUs) with MPI.\n"
            "\n"
            "  run CONFIG        run the simulation described by the libconfig file CONFIG\n"
            "  mc CONFIG         Monte Carlo (nvt, npt, gcmc, gibbs) of the system in CONFIG,\n"
            "                    whose mc group gives the ensemble (the CPU; several ranks\n"
            "                    with mc.sweep = \"checkerboard\")\n"
            "  --set key=value   override one configuration key (dotted path, e.g.\n"
            "                    --set integrator.steps=500 --set dpd.gamma=4.5); repeatable\n"
            "  --restart latest  continue from the newest valid checkpoint in\n"
            "                    output.dir/checkpoints (falls back to the previous one)\n"
            "  --restart PATH    continue from the checkpoint file PATH\n"
            "  --force-restart   restart even if the physics keys differ from the checkpoint\n"
            "  info              print version, git commit, backends, GPUs, MPI and HDF5\n"
            "  --help            this text\n"
            "  --version         the version and git commit\n"
            "\n"
            "Run under MPI with: mpirun -n P vesica run CONFIG\n"
            "Exit status: 0 finished, 1 runtime fault, 2 bad input, 3 stopped for restart\n"
            "(a checkpoint was written: continue with --restart latest).\n"
            "Configuration keys: docs/configuration.md\n");
}

static int bad_usage(const char *what)
{
    if (vs_par_world_rank() == 0) {
        fprintf(stderr, "vesica: error: %s\n", what);
        fprintf(stderr, "Usage: vesica run CONFIG [--set key=value]... [--restart latest|PATH] "
                        "| mc CONFIG ... | info | --help | --version\n");
    }
    return VS_EXIT_BAD_INPUT;
}

static int command_info(void)
{
    if (vs_par_world_rank() != 0)
        return 0;
    printf("vesica %s (git %s)\n", VESICA_VERSION, VESICA_GIT_COMMIT);
#ifdef VESICA_HAVE_CUDA
    printf("backends: cpu gpu(CUDA)\n");
    char runtime[32], driver[32], why[256] = "";
    vs_gpu_versions(runtime, sizeof runtime, driver, sizeof driver);
    printf("CUDA: runtime %s, driver %s\n", runtime, driver);
    int n = vs_gpu_device_count(why, sizeof why);
    printf("GPUs visible: %d%s%s%s\n", n, n ? "" : " (", n ? "" : why, n ? "" : ")");
    for (int i = 0; i < n; ++i) {
        vs_gpu_info g;
        if (vs_gpu_device_info(i, &g) == 0)
            printf("  GPU %d: %s, compute capability %d.%d, %.1f GiB, %d SMs, %s\n", i, g.name,
                   g.major, g.minor, (double)g.total_memory / (1024.0 * 1024.0 * 1024.0),
                   g.multiprocessors, g.uuid);
    }
#else
    printf("backends: cpu (built without CUDA)\n");
    printf("GPUs visible: none (built without CUDA)\n");
#endif
    char mpi[512];
    vs_par_library_version(mpi, sizeof mpi);
    printf("MPI: %s\n", mpi);
    unsigned maj = 0, min = 0, rel = 0;
    H5get_libversion(&maj, &min, &rel);
    hbool_t parallel = 0;
#ifdef H5_HAVE_PARALLEL
    parallel = 1;
#endif
    printf("HDF5: %u.%u.%u%s\n", maj, min, rel, parallel ? " (parallel)" : " (serial)");
    return 0;
}

/* Rank 0 reads the file; the text (or the error) reaches every rank. */
static char *read_and_broadcast(const char *path, char *err, size_t err_len)
{
    vs_par world;
    vs_par_from_comm(&world, MPI_COMM_WORLD);
    char *text = NULL;
    long long len = -1;
    if (world.rank == 0) {
        text = vs_read_text_file(path, err, err_len);
        len = text ? (long long)strlen(text) : -1;
    }
    vs_par_bcast_bytes(&world, &len, sizeof len, 0);
    if (len < 0) {
        vs_par_bcast_bytes(&world, err, err_len, 0);
        return NULL;
    }
    if (world.rank != 0)
        text = VS_MALLOC((size_t)len + 1);
    vs_par_bcast_bytes(&world, text, (size_t)len + 1, 0);
    return text;
}

/* `run` (mc = 0) or `mc` (mc = 1): the same options, the engine the command names. */
static int command_run(int argc, char **argv, int mc)
{
    const char *config_path = NULL;
    const char *sets[VS_MAX_SETS];
    int n_sets = 0;
    vs_run_options opt = {NULL, NULL, 0};
    for (int i = 2; i < argc; ++i) {
        if (strcmp(argv[i], "--restart") == 0) {
            if (i + 1 >= argc || argv[i + 1][0] == '\0')
                return bad_usage("--restart needs 'latest' or a checkpoint file");
            opt.restart = argv[++i];
        } else if (strncmp(argv[i], "--restart=", 10) == 0) {
            if (argv[i][10] == '\0')
                return bad_usage("--restart needs 'latest' or a checkpoint file");
            opt.restart = argv[i] + 10;
        } else if (strcmp(argv[i], "--force-restart") == 0) {
            opt.force_restart = 1;
        } else if (strcmp(argv[i], "--set") == 0) {
            if (i + 1 >= argc)
                return bad_usage("--set needs a key=value argument");
            if (n_sets == VS_MAX_SETS)
                return bad_usage("too many --set options");
            sets[n_sets++] = argv[++i];
        } else if (strncmp(argv[i], "--set=", 6) == 0) {
            if (n_sets == VS_MAX_SETS)
                return bad_usage("too many --set options");
            sets[n_sets++] = argv[i] + 6;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            char msg[300];
            snprintf(msg, sizeof msg, "%s: unknown option '%.200s'", argv[1], argv[i]);
            return bad_usage(msg);
        } else if (!config_path) {
            config_path = argv[i];
        } else {
            char msg[300];
            snprintf(msg, sizeof msg, "%s: unexpected argument '%.200s' (one CONFIG only)",
                     argv[1], argv[i]);
            return bad_usage(msg);
        }
    }
    if (!config_path)
        return bad_usage(mc ? "mc: missing CONFIG file" : "run: missing CONFIG file");

    char err[VS_ERR_LEN] = "";
    char *text = read_and_broadcast(config_path, err, sizeof err);
    if (!text) {
        if (vs_par_world_rank() == 0)
            fprintf(stderr, "vesica: error: %s\n", err);
        return VS_EXIT_BAD_INPUT;
    }
    vs_params prm;
    int rc = vs_config_parse(text, config_path, sets, n_sets, &prm, err, sizeof err);
    if (rc != 0) {
        free(text);
        if (vs_par_world_rank() == 0)
            fprintf(stderr, "vesica: error: %s\n", err);
        return rc;
    }
    vs_par world;
    vs_par_from_comm(&world, MPI_COMM_WORLD);
    if (vs_pair_tables_load(&world, &prm, err, sizeof err) != 0) {
        free(text);
        vs_params_release(&prm);
        if (world.rank == 0)
            fprintf(stderr, "vesica: error: %s\n", err);
        return VS_EXIT_BAD_INPUT;
    }
    if (opt.force_restart && !opt.restart) {
        free(text);
        vs_params_release(&prm);
        return bad_usage("--force-restart needs --restart");
    }
    opt.config_text = text; /* stored in checkpoints */
    if (prm.mc.on != mc) {
        free(text);
        vs_params_release(&prm);
        if (world.rank == 0)
            fprintf(stderr, "vesica: error: %s: %s\n", config_path,
                    mc ? "no mc group: `vesica mc` runs a configuration with an mc group "
                         "(`vesica run` runs MD)"
                       : "this configuration has an mc group: run it with `vesica mc`");
        return VS_EXIT_BAD_INPUT;
    }
    rc = mc ? vs_run_mc(&prm, &opt, MPI_COMM_WORLD) : vs_run(&prm, &opt, MPI_COMM_WORLD);
    free(text);
    vs_params_release(&prm); /* the simulation's copy shared the pair set, and is gone */
    return rc;
}

int main(int argc, char **argv)
{
    /* first thing: a stop requested during start-up is a stop, not a kill */
    vs_run_install_stop_handlers();
    if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        print_usage(stdout);
        return 0;
    }
    if (argc >= 2 && strcmp(argv[1], "--version") == 0) {
        printf("vesica %s (git %s)\n", VESICA_VERSION, VESICA_GIT_COMMIT);
        return 0;
    }
    vs_par_init(&argc, &argv);
    int status;
    if (argc < 2)
        status = bad_usage("missing command");
    else if (strcmp(argv[1], "info") == 0)
        status = command_info();
    else if (strcmp(argv[1], "run") == 0)
        status = command_run(argc, argv, 0);
    else if (strcmp(argv[1], "mc") == 0)
        status = command_run(argc, argv, 1);
    else {
        char msg[300];
        snprintf(msg, sizeof msg, "unknown command '%.200s'", argv[1]);
        status = bad_usage(msg);
    }
    if (vs_h5_close_failed()) {
        /* HDF5 1.10 would crash in H5close, or in MPI_Finalize's hook that calls it, on the
         * file whose close failed (h5util.h); the error is printed, leave without them */
        fflush(stdout);
        fflush(stderr);
        _exit(status);
    }
    /* Shut HDF5 down while MPI still runs, not from inside MPI_Finalize's clean-up hook. */
    H5close();
    vs_par_finalize();
    return status;
}
