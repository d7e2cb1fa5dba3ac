/* The parts of the Monte Carlo domain split that its two files share (mc_domain.c: the
 * migration, layouts, sweeps, files; mc_domain_view.c: the boxes as the moves see them).
 * Private to src/engine/mc. */
#ifndef VESICA_MC_DOMAIN_PARTS_H
#define VESICA_MC_DOMAIN_PARTS_H

#include <stdint.h>

#include "mc_domain.h"
#include "mc_ranks.h"

/* A particle on its way to another rank. */
typedef struct {
    double x[3];
    int64_t gid, tag;
    int32_t species;
    uint32_t cell;
} rec;

/* One box's part on this rank, beside its vs_mc_box of the particles held. */
typedef struct {
    int64_t n, count[VS_MAX_SPECIES]; /* over the ranks */
    int64_t *gid, gid_cap;            /* each held particle's global index */
    int64_t *hkey, *hval, hcap;       /* gid -> slot in the box (open addressing, -1 empty) */
    vs_mc_sweep_plan last;            /* the last sweep's grid: where an insertion goes */
    int have_last;
} dbox;

/* Particles laid out over a grid for a sweep or a whole-box energy: this rank's cells and
 * its ghost cells, slots in cell order (gid order within a cell), positions by axis. */
typedef struct {
    int nc[3], lo[3], hi[3];
    int64_t ncell, n, n_own, cap, start_cap; /* n slots, n_own of them the brick's */
    double *xs;
    int32_t *ss;
    int64_t *gid, *tag, *start;
    int n_peers;
    int *peer;
    int64_t *scell, *rcell;   /* cells sent to and received from each peer, by peer */
    int64_t *sfirst, *rfirst; /* n_peers + 1: each peer's first entry */
} layout;

struct vs_mc_domain {
    vs_par par;
    vs_mc_ranks *ranks;
    dbox box[VS_MC_MAX_BOXES];
    layout lay;
    struct vs_gpu_mc *gpu[VS_MC_MAX_BOXES]; /* backend = "gpu": each box's sweeps there */
    uint32_t *cells;                        /* a colour's cells of the brick (the GPU's list) */
    int64_t cells_cap;
};

/* gid -> slot of box part d (open addressing) */
int64_t vs_mcd_map_get(const dbox *d, int64_t g);
void vs_mcd_map_put(dbox *d, int64_t g, int64_t slot);
void vs_mcd_map_erase(dbox *d, int64_t g);

/* Box bi's pair energy (and virial) over the ranks, each pair once from its lower gid.
 * Collective. */
vs_wide vs_mcd_energy(vs_mc_state *s, int bi, double *virial);

#endif
