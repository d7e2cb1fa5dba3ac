/* The integrator group's ensemble keys (integrator.kind and the parameters each kind needs):
 * their checks across keys and their extraction into vs_params. Internal to config.c, which
 * calls it after the per-key pass and the defaults.
 */
#ifndef VESICA_CONFIG_INTEGRATOR_H
#define VESICA_CONFIG_INTEGRATOR_H

#include <libconfig.h>

#include "config_report.h"
#include "params.h"

/* p->dpd.gamma and p->dpd.kT (dpd.gamma, dpd.kT) are filled. A parameter the chosen kind needs must be given; one it does
 * not use is refused, so a restart never compares values that play no part. Returns 0, or
 * VS_EXIT_BAD_INPUT with the line. */
int vs_config_extract_integrator(const cfg_ctx *c, const config_setting_t *root, vs_params *p);

#endif
