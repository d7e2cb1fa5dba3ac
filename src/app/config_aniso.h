/* The anisotropic pair style of a configuration (config_aniso.c): the `aniso` group and the
 * species' orientations. Internal to the configuration module: config.c calls it after the
 * species, the pair list and the backend. */
#ifndef VESICA_CONFIG_ANISO_H
#define VESICA_CONFIG_ANISO_H

#include <libconfig.h>

#include "config_report.h"
#include "params.h"

/* Fill p->aniso (style, per species pair coefficients and cut-offs, reach, the physics code)
 * from the `aniso` group (absent: no anisotropic interaction) and the species' inertia.
 * Refuses a pair with a species that has no orientation, and oriented species on the GPU
 * backend. Returns 0, or VS_EXIT_BAD_INPUT with one line in c->err. */
int vs_config_aniso(const cfg_ctx *c, const config_setting_t *root, vs_params *p);

#endif
