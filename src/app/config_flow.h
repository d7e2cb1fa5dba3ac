/* The flow and profiles groups of the configuration: their checks across keys (a species by
 * name, an axis against another, windows against the run) and their extraction into
 * vs_params. Internal to config.c, which calls it after the per-key pass and the defaults.
 */
#ifndef VESICA_CONFIG_FLOW_H
#define VESICA_CONFIG_FLOW_H

#include <libconfig.h>

#include "config_report.h"
#include "params.h"

/* p->species, p->integrator.dt and p->integrator.steps are filled. Returns 0, or VS_EXIT_BAD_INPUT
 * with the line. */
int vs_config_extract_flow(const cfg_ctx *c, const config_setting_t *root, vs_params *p);

#endif
