/* Disk space for a checkpoint: see checkpoint_space.h. */
#include "checkpoint_space.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "fsutil.h"
#include "special.h"
#include "topology.h"

double vs_ckpt_size_bound(int64_t n_total, const vs_particle_ext *ext, const char *config_text)
{
    /* tag, species, position, velocity, predicted velocity, force, image */
    double row = 8 + 4 + 4 * 24 + 12;
    if (ext && ext->topo) /* molecule, bonds and types, angles and types */
        row += 8 * (1 + 2 * VS_MAX_BONDS + 4 * VS_MAX_ANGLES);
    if (ext && ext->dih)
        row += 8 * 5 * VS_MAX_DIHEDRALS;
    if (ext && ext->special)
        row += 8 * VS_MAX_SPECIAL;
    const double data = row * (double)n_total + (config_text ? (double)strlen(config_text) : 0);
    /* metadata (attributes, object headers, chunk indices, checksums): tens of KiB */
    return 1.02 * data + 1048576.0;
}

int vs_ckpt_reserve(const vs_par *par, const char *tmp, double bytes, char *err,
                    size_t err_len)
{
    vs_par_bcast_bytes(par, &bytes, sizeof bytes, 0); /* rank 0's bound for everyone */
    int failed = 0;
    struct rlimit lim;
    if (getrlimit(RLIMIT_FSIZE, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY &&
        (double)lim.rlim_cur < bytes) {
        snprintf(err, err_len, "%.400s: write failed (the checkpoint needs up to %.1f MiB, the "
                 "file size limit of rank %d is %.1f MiB: %s)", tmp, bytes / 1048576.0,
                 par->rank, (double)lim.rlim_cur / 1048576.0, strerror(EFBIG));
        failed = 1;
    }
    if (!failed && par->rank == 0) {
        const int e = vs_reserve_space(tmp, bytes);
        if (e == ENOSPC || e == EDQUOT)
            snprintf(err, err_len, "%.400s: write failed (%s: %.1f MiB free, the checkpoint "
                     "needs up to %.1f MiB)", tmp, e == ENOSPC ? "disk full" : "disk quota "
                     "exceeded", vs_free_bytes(tmp) / 1048576.0, bytes / 1048576.0);
        else if (e != 0)
            snprintf(err, err_len, "%.400s: write failed (cannot reserve %.1f MiB: %s)", tmp,
                     bytes / 1048576.0, strerror(e));
        failed = e != 0;
    }
    if (vs_par_any(par, failed))
        return failed ? -1 : 1;
    return 0;
}

void vs_ckpt_release(const vs_par *par, const char *tmp, double bytes)
{
    if (par->rank == 0)
        vs_release_reserve(tmp, bytes);
}
