/* The particle-field interactions of a configuration (config_field.c): the `field` group.
 * Internal to the configuration module: config.c calls it after the species, the integrator
 * and the boundaries are known. */
#ifndef VESICA_CONFIG_FIELD_H
#define VESICA_CONFIG_FIELD_H

#include <libconfig.h>

#include "config_report.h"
#include "params.h"

/* Fill p->field from the `field` group (absent: off, all zero) and check what ties it to the
 * rest: the rows of field.chi name species and are symmetric, and the run is one the field
 * term can join (periodic box, fixed volume, the CPU backend). The grid against the box and
 * the bricks is checked when the decomposition is known (vs_field_check_layout,
 * src/core/field_grid.h). Returns 0, or VS_EXIT_BAD_INPUT with one line in c->err. */
int vs_config_field(const cfg_ctx *c, const config_setting_t *root, vs_params *p);

#endif
