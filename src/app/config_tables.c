/* The table files of the bonded `table` styles: see config_tables.h.
 *
 * A table file is text: '#' starts a comment, blank lines are skipped, every other line is
 * two numbers, x and E(x), with x increasing on a uniform grid (4 to 100000 points). x is the
 * bond length, or the angle in degrees: [0, 180] exactly for angles, [-180, 180] for
 * dihedrals (whose first and last energies must agree: the spline is periodic). A relative
 * path is taken from the configuration file's folder. The spline (src/core/table.h) is kept
 * for the whole run; its coefficients are never freed (the parameters live as long).
 */
#define _POSIX_C_SOURCE 200809L
#include "config_tables.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "table.h"

#define VS_BONDED_TABLE_MAX_POINTS 100000

/* The table's path: as given when absolute or without a configuration file, else beside it. */
static void resolve(const cfg_ctx *c, const char *name, char *out, size_t len)
{
    const char *slash = c->file ? strrchr(c->file, '/') : NULL;
    if (name[0] == '/' || !slash)
        snprintf(out, len, "%s", name);
    else
        snprintf(out, len, "%.*s/%s", (int)(slash - c->file), c->file, name);
}

/* The file's (x, E) pairs into *x, *y (malloc'd); returns the count, or -1 with the problem
 * (path and line first) in why. */
static int read_pairs(const char *path, double **x, double **y, char *why, size_t len)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(why, len, "%s: cannot open the table file: %s", path, strerror(errno));
        return -1;
    }
    int n = 0, cap = 0, rc = 0;
    char *buf = NULL;
    size_t bcap = 0;
    *x = *y = NULL;
    for (long line = 1; rc == 0 && getline(&buf, &bcap, f) >= 0; ++line) {
        char *hash = strchr(buf, '#');
        if (hash)
            *hash = '\0';
        char *s = buf, *end;
        while (*s == ' ' || *s == '\t')
            ++s;
        if (*s == '\0' || *s == '\n' || *s == '\r')
            continue;
        const double a = strtod(s, &end);
        char *mid = end;
        const double b = strtod(mid, &end);
        while (*end == ' ' || *end == '\t' || *end == '\n' || *end == '\r')
            ++end;
        if (mid == s || end == mid || *end != '\0' || !isfinite(a) || !isfinite(b)) {
            snprintf(why, len, "%s:%ld: expected two numbers, x and E", path, line);
            rc = -1;
        } else if (n == VS_BONDED_TABLE_MAX_POINTS) {
            snprintf(why, len, "%s:%ld: more than %d points", path, line, VS_BONDED_TABLE_MAX_POINTS);
            rc = -1;
        } else {
            if (n == cap) {
                cap = cap ? 2 * cap : 256;
                *x = realloc(*x, sizeof(double) * (size_t)cap);
                *y = realloc(*y, sizeof(double) * (size_t)cap);
                if (!*x || !*y)
                    vs_log_fatal(__FILE__, __LINE__, "out of memory reading %s", path);
            }
            (*x)[n] = a;
            (*y)[n] = b;
            ++n;
        }
    }
    free(buf);
    fclose(f);
    if (rc == 0 && n < 4) {
        snprintf(why, len, "%s: expected at least 4 points (got %d)", path, n);
        rc = -1;
    }
    if (rc) {
        free(*x);
        free(*y);
        *x = *y = NULL;
        return -1;
    }
    return n;
}

/* The grid's checks for its kind: uniform, increasing, the range an angle or dihedral
 * needs, a periodic dihedral. Returns 0 or -1 with the problem in why. */
static int check_grid(const char *path, int kind, const double *x, const double *y, int n,
                      char *why, size_t len)
{
    const double dx = (x[n - 1] - x[0]) / (double)(n - 1);
    if (!(dx > 0.0)) {
        snprintf(why, len, "%s: expected increasing x", path);
        return -1;
    }
    for (int k = 0; k < n; ++k)
        if (!(fabs(x[k] - (x[0] + (double)k * dx)) <= 1e-6 * dx)) {
            snprintf(why, len, "%s: expected x on a uniform grid (point %d is %.9g, the grid "
                     "from %.9g to %.9g has %.9g there)", path, k + 1, x[k], x[0], x[n - 1],
                     x[0] + (double)k * dx);
            return -1;
        }
    const double lo = kind == VS_TABLE_DIHEDRAL ? -180.0 : 0.0;
    if (kind == VS_TABLE_BOND && x[0] < 0.0) {
        snprintf(why, len, "%s: expected bond lengths >= 0 (got %g)", path, x[0]);
        return -1;
    }
    if (kind != VS_TABLE_BOND && (fabs(x[0] - lo) > 1e-9 || fabs(x[n - 1] - 180.0) > 1e-9)) {
        snprintf(why, len, "%s: expected the %s table to span %g to 180 degrees (got %g to %g)",
                 path, kind == VS_TABLE_ANGLE ? "angle" : "dihedral", lo, x[0], x[n - 1]);
        return -1;
    }
    if (kind == VS_TABLE_DIHEDRAL &&
        !(fabs(y[n - 1] - y[0]) <= 1e-12 * fmax(1.0, fabs(y[0])))) {
        snprintf(why, len, "%s: expected the same energy at -180 and 180 degrees (got %.17g and "
                 "%.17g)", path, y[0], y[n - 1]);
        return -1;
    }
    return 0;
}

int vs_config_table(const cfg_ctx *c, const config_setting_t *group, const char *key, int kind,
                    vs_table *out)
{
    char fkey[PATH_LEN], path[VS_PATH_LEN], why[VS_PATH_LEN + 200];
    snprintf(fkey, sizeof fkey, "%s.file", key);
    const config_setting_t *file = config_setting_get_member(group, "file");
    if (!file)
        return cfg_fail(c, group, fkey, "required key is missing (style table)");
    resolve(c, config_setting_get_string(file), path, sizeof path);
    double *x, *y;
    const int n = read_pairs(path, &x, &y, why, sizeof why);
    if (n < 0 || check_grid(path, kind, x, y, n, why, sizeof why) != 0) {
        free(x);
        free(y);
        return cfg_fail(c, file, fkey, "%s", why);
    }
    const double deg = kind == VS_TABLE_BOND ? 1.0 : 3.14159265358979323846 / 180.0;
    const double dx = (x[n - 1] - x[0]) / (double)(n - 1);
    double *coef = VS_MALLOC(sizeof(double) * 4 * (size_t)(n - 1));
    vs_table_build(n, dx * deg, y, kind == VS_TABLE_DIHEDRAL, coef);
    out->n = n;
    out->lo = x[0] * deg;
    out->dx = dx * deg;
    out->coef = coef;
    free(x);
    free(y);
    return 0;
}
