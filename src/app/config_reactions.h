/* The reactions of a configuration (config_reactions.c): the `reactions` group. Internal to
 * the configuration module: config.c calls it last, after the species, the pair terms, the
 * molecules (or the input's bonded types) and the skin. */
#ifndef VESICA_CONFIG_REACTIONS_H
#define VESICA_CONFIG_REACTIONS_H

#include <libconfig.h>

#include "config_report.h"
#include "params.h"

/* Fill p->reactions from the `reactions` group (no rule: reactions off, all zero), append the
 * rules' bond and angle types to p->molecules' and check what ties the rules to the rest: the
 * species exist and keep their roles apart, a frozen species reacts only into a frozen one, a
 * new bond (at most the radius long) fits within bonded.reach and the radius within the ghost
 * width, the GPU backend is not asked for. Returns 0, or VS_EXIT_BAD_INPUT with one line in
 * c->err. */
int vs_config_reactions(const cfg_ctx *c, const config_setting_t *root, vs_params *p);

#endif
