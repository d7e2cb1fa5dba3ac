/* The force field: the list of terms whose forces, energies and virials add up to the
 * total, and how the step asks for them.
 *
 * A term is one physical contribution: the DPD pair force today; other pair styles, bond,
 * angle and dihedral styles and external fields next. Each term is made of
 *   - its parameters (read from vs_params),
 *   - its evaluator, a VS_HOST_DEVICE function in src/core compiled by both backends,
 *   - its CPU loop (src/cpu) and its GPU kernels (gpu/),
 *   - one vs_term_type here (src/engine/term_<name>.c) and one line in the registry
 *     (forcefield.c) that lists the terms in the order they add their forces.
 * The step, the backends' tables and the checkpoint code do not change when a term is added.
 *
 * The pair terms are DPD and the conservative pair styles (lj, soft, gaussian, table: the
 * `pair` list of the configuration); DPD is inactive when its a_ij and gamma are all zero
 * and another pair style is configured (vs_dpd_active), and the first pair style then
 * starts the forces.
 *
 * A force evaluation: the backend starts it (forces_begin: every owned particle's force is
 * its species' constant body force, the sums zero), then each active term adds its forces
 * and, when energies are due, its energy and virial. On the GPU the first pair term folds the
 * start into its kernel (one pass over the forces instead of two); terms after it add.
 * A pair term's `reach` is its cut-off: the neighbour lists and the ghost shell cover the
 * largest one plus the skin. A bonded term (bonds, angles: `bonded` set) finds its partners by
 * tag among the ghosts (topology.h), not in the lists; its `reach` is the farthest partner it
 * needs, and only the bonded beads are sent as ghosts that far (plus the skin).
 */
#ifndef VESICA_FORCEFIELD_H
#define VESICA_FORCEFIELD_H

#include <stddef.h>
#include <stdint.h>

#include "cpu_backend.h"
#include "params.h"

struct vs_gpu_state; /* gpu/gpu_backend.h; built only with CUDA */

#define VS_MAX_TERMS 16

typedef struct vs_term_type {
    const char *name;
    int bonded; /* 1: partners by tag (molecules), reach sets the bonded ghost width */
    int pair;   /* 1: a pair term over the neighbour lists (DPD, the pair styles): the first
                   active term must be one, it starts the forces on the GPU */
    /* 1 when the configuration asks for this term */
    int (*active)(const vs_params *prm);
    /* the farthest partner this term needs, in length units */
    double (*reach)(const vs_params *prm);
    /* add this term's forces on the owned particles at `step`, and its energy and virial
     * to the backend's sums when want_energy is set */
    void (*cpu)(vs_cpu_state *cpu, int64_t step, int want_energy);
    void (*gpu)(struct vs_gpu_state *gpu, int64_t step, int want_energy);
    /* optional (NULL: none): the GPU forces of this term on a step that reuses the lists,
     * with the step's ghost update overlapped; comm_s: seconds of communication, hidden_s:
     * how many of them ran under force work */
    void (*gpu_overlapped)(struct vs_gpu_state *gpu, int64_t step, int want_energy,
                           double *comm_s, double *hidden_s);
} vs_term_type;

typedef struct {
    const vs_term_type *terms[VS_MAX_TERMS]; /* the active terms, in registry order */
    int n_terms;
    double reach; /* the largest reach of the active pair terms */
    double bonded_reach; /* the largest reach of the active bonded terms (0: none) */
} vs_forcefield;

/* The active terms of a configuration. Returns 0, or VS_EXIT_BAD_INPUT with one line in err
 * (a term the backends cannot combine, a reach beyond what the lists cover). */
int vs_forcefield_init(vs_forcefield *ff, const vs_params *prm, char *err, size_t err_len);
/* "dpd" or "dpd + ...": the active terms, for logs. */
void vs_forcefield_describe(const vs_forcefield *ff, char *buf, size_t len);

#endif
