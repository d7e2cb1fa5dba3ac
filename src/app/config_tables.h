/* The table files of the bonded `table` styles (config_tables.c). Internal to the
 * configuration module. */
#ifndef VESICA_CONFIG_TABLES_H
#define VESICA_CONFIG_TABLES_H

#include <libconfig.h>

#include "config_report.h"
#include "params.h"

enum { VS_TABLE_BOND = 0, VS_TABLE_ANGLE = 1, VS_TABLE_DIHEDRAL = 2 };

/* Read the table file named by `file` in `group` (the bond, angle or dihedral group at
 * `key`), check it for its kind and fill *out with its spline. Returns 0, or
 * VS_EXIT_BAD_INPUT with one line (the key, the table file and its line) in c->err. */
int vs_config_table(const cfg_ctx *c, const config_setting_t *group, const char *key, int kind,
                    vs_table *out);

#endif
