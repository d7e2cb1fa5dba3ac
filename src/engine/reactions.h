/* Reactions during the run: the reaction step (reactions.c) and the special-neighbour lists
 * it keeps current (reactions_topo.c). vs_reaction_params (params.h) says what reacts,
 * src/core/reaction.h how every rank reaches the same decisions.
 *
 * A reaction step (every reactions.interval steps, after the step's first half and a full
 * rebuild of ghosts and lists, so every rank sees its beads' partners where they are now):
 *   1. this rank's claims are listed: on the CPU backend by vs_cpu_reaction_claims over its
 *      own state; on the GPU on the device (gpu/gpu_reaction.h: the same tests and draws of
 *      src/core/reaction.h on the same doubles, only the claims read back); on another
 *      device backend, or the GPU with VESICA_GPU_REACTIONS=mirror, over the host mirror, a
 *      CPU state made over the host particles, into which the backend brings its owned
 *      particles (sync_host) and which builds their ghosts and a cell list for the search,
 *      so every backend decides with the same code from the same doubles;
 *   2. every rank receives every claim (an all-gather: claims are few, one per active end
 *      or candidate bead) and orders them by their content alone;
 *   3. every rank resolves the same events from them: every claimed break; of the creation
 *      claims the mutual pairs that pass their draw, then the chain claims in the order of
 *      their draws, each bead in at most one new bond (a monomer two ends chose goes to the
 *      lowest draw, ties by tag);
 *   4. every rank applies the events to the beads it owns: bonds, the angles along them (and
 *      the removal of those a broken bond was part of), species, molecule ids, and the
 *      special-neighbour lists of the beads near a changed bond;
 * then the engine rebuilds the ghosts (their species and bonded marks) and the lists, and the
 * step's forces see the new topology. On the GPU's device path the records the events touch
 * (and the special lists near them) are fetched, changed by the same code and stored back
 * (the rest of the state stays there);
 * through the host mirror the changed host particles go back to the device backend first
 * (reload, as after a checkpoint's canonical state), so the engine migrates before that
 * rebuild. The counters (vs_reaction_state) are the same on every
 * rank and travel in checkpoints. */
#ifndef VESICA_REACTIONS_H
#define VESICA_REACTIONS_H

#include <stdint.h>

#include "observables.h"
#include "parallel.h"
#include "params.h"
#include "particles.h"
#include "backend_table.h"
#include "reaction.h"

typedef struct {
    vs_reaction_state st; /* the counters (checkpointed) */
    vs_claim_list mine;   /* this rank's claims of the current step */
    vs_tagmap owned;      /* scratch: tag -> index of the owned particles */
    void *mirror;         /* device backends: the host mirror (a CPU backend state over the
                             host particles; NULL until the first reaction step) */
    struct vs_gpu_rx *device; /* the GPU's device path: its scratch (gpu/gpu_reaction.h;
                                 NULL until its first step) */
    double seconds;       /* wall time of this rank's reaction steps */
    int64_t steps;        /* reaction steps run by this process */
} vs_reactions;

/* An event of a reaction step, the same on every rank. */
typedef struct {
    int32_t kind;                    /* VS_CLAIM_BREAK: the bond a-b breaks; else a bond a-b
                                        is made (VS_CLAIM_CREATE, VS_CLAIM_CHAIN) */
    int32_t bond_type, angle_type;   /* the new bond's; its angles' (-1: none) */
    int32_t new_a, new_b;            /* the beads' species after it (-1: unchanged) */
    int32_t n_a, n_b;                /* the beads' other bond partners, as pa and pb */
    int64_t a, b;
    int64_t mol_a, mol_b;            /* their molecule ids after it */
    int64_t pa[VS_MAX_BONDS], pb[VS_MAX_BONDS];
} vs_reaction_event;

/* Whether `step` is a reaction step: reactions on and a positive multiple of the interval. */
static inline int vs_reactions_due(const vs_params *prm, int64_t step)
{
    return prm->reactions.on && step > 0 && step % prm->reactions.interval == 0;
}

void vs_reactions_init(vs_reactions *rx);
void vs_reactions_free(vs_reactions *rx);
/* A new run at step 0: the counters zero, the monomers counted. Collective. */
void vs_reactions_start(vs_reactions *rx, const vs_params *prm, const vs_par *par,
                        const vs_particles *p);
/* What a reaction step did to the backend's state (the same on every rank). */
enum {
    VS_REACTIONS_UNCHANGED = 0, /* no event */
    VS_REACTIONS_IN_PLACE = 1,  /* events stored into the backend's own owned beads, which
                                   kept their places (the CPU, the GPU's device path) */
    VS_REACTIONS_RELOADED = 2   /* events applied to p, which the backend took back (reload) */
};
/* One reaction step on the owned particles p (the backend's host particles, the ghosts and
 * lists of this step's build in the backend's state). host: what the host mirror is made
 * from where the backend is not the CPU's (its parts are p). Returns one of the above.
 * Collective. */
int vs_reactions_step(vs_reactions *rx, const vs_params *prm, const vs_par *par,
                      vs_particles *p, const vs_backend *b, void *backend_state,
                      const vs_backend_setup *host, int64_t step);
/* The thermo row's columns: the events of the last reaction step, the conversion and the
 * active ends (counted now). Collective. */
void vs_reactions_thermo(const vs_reactions *rx, const vs_params *prm, const vs_par *par,
                         const vs_particles *p, vs_thermo *out);

/* reactions_topo.c: the special-neighbour lists (depth levels) of every owned bead near the
 * events' bonds, rebuilt from the bond graph around them, after the events have changed the
 * owned beads' bonds (their lists are still the old ones). A bead with too many special
 * neighbours stops the run. Collective. */
void vs_reactions_special(const vs_par *par, vs_particles *p, int depth,
                          const vs_reaction_event *ev, int64_t n_ev, int64_t step);

/* Where a backend keeps the owned beads itself (the GPU's device path), the same lists from
 * copies of the few beads they need, after the events are stored: */
typedef struct {
    void *ctx;
    /* the owned beads that are one of `ends` (n, ascending) or whose list names one: tag,
     * topo and special (n_owned of them, tags ascending) */
    void (*affected)(void *ctx, const int64_t *ends, int64_t n, vs_particles *out);
    /* the owned beads among `tags` (n, ascending, distinct): tag and topo, as they are now */
    void (*records)(void *ctx, const int64_t *tags, int64_t n, vs_particles *out);
    /* the special lists of beads (from `affected`) back to the backend */
    void (*store)(void *ctx, const vs_particles *beads);
    void (*release)(vs_particles *beads);
} vs_special_io;
/* vs_reactions_special over copies fetched through io: the same lists, the same rounds. */
void vs_reactions_special_fetched(const vs_par *par, int depth, const vs_reaction_event *ev,
                                  int64_t n_ev, int64_t step, const vs_special_io *io);

#endif
