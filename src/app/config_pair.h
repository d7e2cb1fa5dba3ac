/* The pair list of a configuration (config_pair.c): the conservative pair styles beside DPD.
 * Internal to the configuration module: config.c calls it after the per-key pass and the
 * species. */
#ifndef VESICA_CONFIG_PAIR_H
#define VESICA_CONFIG_PAIR_H

#include <libconfig.h>

#include "config_report.h"
#include "params.h"

/* Fill p->pair (every style's options, per species pair coefficients and cut-offs, reach)
 * and the table keywords from the `pair` list (absent: no style active). The table style's
 * coefficients are finished by vs_pair_tables_load once its file is read. Returns 0, or
 * VS_EXIT_BAD_INPUT with one line in c->err. */
int vs_config_pair(const cfg_ctx *c, const config_setting_t *root, vs_params *p);

#endif
