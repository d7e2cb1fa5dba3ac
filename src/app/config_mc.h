/* The mc group (the Monte Carlo engine, `vesica mc`): its checks across keys and what it
 * refuses beside it. Internal to config.c, which calls vs_config_mc_groups before the
 * extraction (with mc, the groups dpd and integrator are refused) and vs_config_mc after it.
 */
#ifndef VESICA_CONFIG_MC_H
#define VESICA_CONFIG_MC_H

#include <libconfig.h>

#include "config_report.h"
#include "params.h"

/* Whether the configuration has an mc group. */
int vs_config_mc_given(const config_setting_t *root);

/* With an mc group: no dpd or integrator group (MD's, unused by MC). Returns 0, or
 * VS_EXIT_BAD_INPUT with the line. */
int vs_config_mc_groups(const cfg_ctx *c, const config_setting_t *root);

/* p->mc's landed keys and the rest of p are filled (box, particles, pair styles): the
 * ensemble's keys, the move probabilities (summing to 1), the second box, what MC cannot
 * run yet. Returns 0, or VS_EXIT_BAD_INPUT with the line. */
int vs_config_mc(const cfg_ctx *c, const config_setting_t *root, vs_params *p);

#endif
