/* The molecules of a configuration (config_molecules.c). Internal to the configuration
 * module: config.c calls it after the per-key pass and the particle count. */
#ifndef VESICA_CONFIG_MOLECULES_H
#define VESICA_CONFIG_MOLECULES_H

#include <libconfig.h>

#include "config_report.h"
#include "params.h"

/* Fill p's molecule templates, bond and angle types, n_molecule_beads and bond_reach from
 * the `molecules` list and the `bonded` group (none: a plain fluid, all zero). Returns 0, or
 * VS_EXIT_BAD_INPUT with one line in c->err. */
int vs_config_molecules(const cfg_ctx *c, const config_setting_t *root, vs_params *p);

/* Fill p->input and the bond and angle types (bonded.bonds, bonded.angles) of a
 * configuration whose system comes from a file (the input group). Box and particle count stay
 * zero: the run reads them from the file. Returns 0, or VS_EXIT_BAD_INPUT with one line. */
int vs_config_input(const cfg_ctx *c, const config_setting_t *root, vs_params *p);

/* One bond (angle) type from its group, named by `key` in messages (molecules.[i].bond,
 * bonded.bonds.[i], reactions.chain.bond, ...). Returns 0, or VS_EXIT_BAD_INPUT with one line. */
int vs_config_parse_bond(const cfg_ctx *c, const config_setting_t *bond, const char *key,
                         vs_bond_type *b);
int vs_config_parse_angle(const cfg_ctx *c, const config_setting_t *angle, const char *key,
                          vs_angle_type *a);

#endif
