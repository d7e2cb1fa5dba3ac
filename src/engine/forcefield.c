/* The force field: see forcefield.h. */
#include "forcefield.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "exit_codes.h"

extern const vs_term_type vs_term_dpd;   /* term_dpd.c */
#define VS_PAIR_TERM_EXTERN_(ID, NAME) extern const vs_term_type vs_term_##NAME; /* term_pair.c */
VS_PAIR_STYLE_LIST(VS_PAIR_TERM_EXTERN_)
extern const vs_term_type vs_term_aniso; /* term_aniso.c */
extern const vs_term_type vs_term_flow;  /* term_flow.c */
extern const vs_term_type vs_term_wall;  /* term_wall.c */
extern const vs_term_type vs_term_field; /* term_field.c */
extern const vs_term_type vs_term_bond;  /* term_bonded.c */
extern const vs_term_type vs_term_angle; /* term_bonded.c */
extern const vs_term_type vs_term_dihedral; /* term_bonded.c */

/* Every term the code has, in the order they add their forces: the first pair term starts
 * the forces on the GPU (forcefield.h). */
static const vs_term_type *const registry[] = {
    &vs_term_dpd,
#define VS_PAIR_TERM_ENTRY_(ID, NAME) &vs_term_##NAME,
    VS_PAIR_STYLE_LIST(VS_PAIR_TERM_ENTRY_)
    &vs_term_aniso,
    &vs_term_flow,
    &vs_term_wall,
    &vs_term_field,
    &vs_term_bond,
    &vs_term_angle,
    &vs_term_dihedral,
};

int vs_forcefield_init(vs_forcefield *ff, const vs_params *prm, char *err, size_t err_len)
{
    memset(ff, 0, sizeof *ff);
    for (size_t k = 0; k < sizeof registry / sizeof registry[0]; ++k) {
        const vs_term_type *t = registry[k];
        if (!t->active(prm))
            continue;
        ff->terms[ff->n_terms++] = t;
        const double reach = t->reach(prm);
        double *largest = t->bonded ? &ff->bonded_reach : &ff->reach;
        if (reach > *largest)
            *largest = reach;
    }
    /* the lists and the ghost shell have the radius of the pair reach + skin
     * (vs_list_radius) */
    if (ff->reach > vs_pair_reach(prm)) {
        snprintf(err, err_len, "force field: a term reaches %g, beyond the pair terms' largest "
                 "cut-off %g, which sets the neighbour lists and the ghost shell", ff->reach,
                 vs_pair_reach(prm));
        return VS_EXIT_BAD_INPUT;
    }
    /* a bond is measured between its beads' nearest copies, which is the bond itself only
     * while every bond is shorter than half of each box edge */
    const double *box = prm->system.box;
    const double shortest = fmin(box[0], fmin(box[1], box[2]));
    if (ff->bonded_reach > 0.0 && !(prm->molecules.bond_reach < 0.5 * shortest)) {
        snprintf(err, err_len, "bonded.reach: %g is not below half the shortest box edge (%g): "
                 "a bond that long would be measured through the nearest periodic image; "
                 "use a larger box or a shorter reach", prm->molecules.bond_reach,
                 0.5 * shortest);
        return VS_EXIT_BAD_INPUT;
    }
    if (ff->n_terms == 0 || !ff->terms[0]->pair) {
        snprintf(err, err_len, "force field: a pair term (dpd, or a pair style) must be active "
                 "and first (it starts the forces on the GPU)");
        return VS_EXIT_BAD_INPUT;
    }
    return 0;
}

void vs_forcefield_describe(const vs_forcefield *ff, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int k = 0; k < ff->n_terms && used < len; ++k)
        used += (size_t)snprintf(buf + used, len - used, "%s%s", k ? " + " : "",
                                 ff->terms[k]->name);
}
