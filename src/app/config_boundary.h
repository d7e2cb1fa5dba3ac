/* The boundary group and the frozen species of the configuration: their checks across keys
 * (a wall velocity only on a no-slip wall and along the wall, a wall force only at a wall and
 * with its range, no barostat against a wall). Internal to config.c, which calls it after the
 * per-key pass, the defaults and the landing of the boundary rows.
 */
#ifndef VESICA_CONFIG_BOUNDARY_H
#define VESICA_CONFIG_BOUNDARY_H

#include <libconfig.h>

#include "config_report.h"
#include "params.h"

/* p->boundary (landed) and p->integrator are filled. Returns 0, or VS_EXIT_BAD_INPUT with the
 * line. */
int vs_config_boundary(const cfg_ctx *c, const config_setting_t *root, vs_params *p);

#endif
