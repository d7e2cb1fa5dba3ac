/* The input system for the run driver: see run_input.h.
 *
 * One rank reads: the file is parsed once, in order, and a malformed file gives one verdict.
 * The records then reach their bricks through vs_sim_start_from_system (an all-to-all by
 * position), so at the end each rank holds its own particles only; rank 0 holds the whole
 * system while it reads and sends it.
 */
#include "run_input.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "config.h"
#include "exit_codes.h"
#include "log.h"
#include "molecules.h"
#include "parallel.h"

/* Rank 0's special-neighbour lists of the whole system, from the file's bonds, where the
 * configuration asks for them: a bead with too many is bad input, found before anything is
 * written. Returns 0, or -1 with one line in err. */
static int input_special(const vs_params *prm, vs_input_system *sys, char *err, size_t len)
{
    const int depth = vs_special_depth(prm);
    if (depth == 0 || !sys->recs || !sys->topo)
        return 0;
    sys->special = VS_MALLOC(sizeof(vs_special) * (size_t)(sys->n > 0 ? sys->n : 1));
    char why[256];
    if (vs_special_of_records(sys->recs, sys->topo, sys->n, depth, sys->special, why,
                              sizeof why) == 0)
        return 0;
    snprintf(err, len, "%.200s: %s", prm->input.file, why);
    return -1;
}

int vs_run_read_input(const vs_params *prm, int header_only, MPI_Comm comm, vs_params *out,
                      vs_input_system *sys)
{
    vs_par par;
    vs_par_from_comm(&par, comm);
    memset(sys, 0, sizeof *sys);
    char err[VS_ERR_LEN] = "";
    int failed = 0;
    struct stat st;
    if (par.rank == 0 && stat(prm->input.file, &st) != 0 && errno == ENOENT) {
        /* one wording for every format; the examples' inputs come from scripts or runs */
        snprintf(err, sizeof err, "input.file: %.300s: no such file%s; an input file is made "
                 "beforehand (the examples' configurations say by which script at input.file, "
                 "docs/examples.md too)", prm->input.file,
                 prm->input.file[0] == '/' ? "" : " (relative to the current directory)");
        failed = 1;
    } else if (par.rank == 0) {
        failed = vs_input_read(prm, header_only, sys, err, sizeof err) != 0;
    }
    if (vs_par_agree_error(&par, failed, err, sizeof err)) {
        if (par.rank == 0)
            fprintf(stderr, "vesica: error: %s\n", err);
        return VS_EXIT_BAD_INPUT;
    }
    struct {
        double box[3];
        int64_t n;
        int topology, has_velocities;
    } head = {{sys->box[0], sys->box[1], sys->box[2]}, sys->n, sys->topology,
              sys->has_velocities};
    vs_par_bcast_bytes(&par, &head, sizeof head, 0);
    sys->has_velocities = head.has_velocities; /* every rank takes the same path */
    *out = *prm;
    for (int d = 0; d < 3; ++d)
        out->system.box[d] = head.box[d];
    out->system.n_particles = head.n;
    out->system.density = (double)head.n / (head.box[0] * head.box[1] * head.box[2]);
    out->input.topology = head.topology;
    failed = par.rank == 0 && input_special(out, sys, err, sizeof err) != 0;
    if (vs_par_agree_error(&par, failed, err, sizeof err)) {
        if (par.rank == 0)
            fprintf(stderr, "vesica: error: %s\n", err);
        vs_input_system_free(sys);
        return VS_EXIT_BAD_INPUT;
    }
    return 0;
}
