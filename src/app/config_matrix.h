/* The species-pair matrices of the dpd group: a_ij (dpd.a) and gamma_ij (dpd.gamma, one
 * number or a map like dpd.a). Their checks against the species (every pair given, names
 * known, symmetric) and their extraction into vs_params. Internal to config.c, which calls
 * it after the per-key pass and the defaults.
 */
#ifndef VESICA_CONFIG_MATRIX_H
#define VESICA_CONFIG_MATRIX_H

#include <libconfig.h>

#include "config_report.h"
#include "params.h"

/* p->species is filled. Fills p->dpd.a and p->dpd.gamma; returns 0, or VS_EXIT_BAD_INPUT with
 * the line. */
int vs_config_dpd_matrices(const cfg_ctx *c, const config_setting_t *root, vs_params *p);

#endif
