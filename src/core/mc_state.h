/* The Monte Carlo engine's global state (src/engine/mc/), in core because its checkpoint
 * (io/checkpoint_mc.c) stores it and a layer includes only the layers below it. */
#ifndef VESICA_MC_STATE_H
#define VESICA_MC_STATE_H

#include <stdint.h>

#include "params.h"

#define VS_MC_MAX_BOXES 2

/* Counters per move kind and box: displacement in box b; volume (b = 0); exchange: gcmc
 * insertion (b = 0) and deletion (b = 1), gibbs transfer into box b. */
typedef struct {
    int64_t attempted[VS_MC_MOVES][VS_MC_MAX_BOXES];
    int64_t accepted[VS_MC_MOVES][VS_MC_MAX_BOXES];
} vs_mc_counts;

/* What a checkpoint stores beside the particles; the energies are derived from them. */
typedef struct {
    int64_t cycle;                 /* cycles done */
    int64_t next_tag;              /* the tag of the next inserted particle */
    int64_t moves_per_cycle;       /* fixed at the start: a cycle whose length followed the
                                      state would sample small N more often (gcmc) */
    double max_disp[VS_MC_MAX_BOXES]; /* largest displacement per axis, per box (length) */
    double max_dlnv[VS_MC_MAX_BOXES]; /* largest change of ln V of box b (npt: box 0;
                                      gibbs_npt: each box its own) or of ln(V1/V2) (gibbs:
                                      [0], the one move of both boxes) */
    vs_mc_counts total;            /* since the start of the campaign */
    vs_mc_counts at_tune;          /* the totals at the last tuning */
} vs_mc_progress;

/* One box as a checkpoint holds it. */
typedef struct {
    double L[3];
    int64_t n;
    double *x;          /* 3 n */
    int32_t *species;   /* n */
    int64_t *tag;       /* n */
} vs_mc_box_data;

#endif
