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

/* The file's (x, E) pairs into *x, *y and their lines in the file into *at (malloc'd);
 * returns the count, or -1 with the problem (path and line first) in why. */
static int read_pairs(const char *path, double **x, double **y, long **at, char *why,
                      size_t len)
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
    *at = NULL;
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
                *at = realloc(*at, sizeof(long) * (size_t)cap);
                if (!*x || !*y || !*at)
                    vs_log_fatal(__FILE__, __LINE__, "out of memory reading %s", path);
            }
            (*x)[n] = a;
            (*y)[n] = b;
            (*at)[n] = line;
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
        free(*at);
        *x = *y = NULL;
        *at = NULL;
        return -1;
    }
    return n;
}

/* The grid's checks for its kind: uniform, increasing, the range an angle or dihedral
 * needs, a periodic dihedral. Returns 0 or -1 with the problem, at the file's line of the
 * point at fault (at[k]), in why. */
static int check_grid(const char *path, int kind, const double *x, const double *y,
                      const long *at, int n, char *why, size_t len)
{
    for (int k = 1; k < n; ++k)
        if (!(x[k] > x[k - 1])) {
            snprintf(why, len, "%s:%ld: expected increasing x (got %.9g after %.9g on line %ld)",
                     path, at[k], x[k], x[k - 1], at[k - 1]);
            return -1;
        }
    const double dx = (x[n - 1] - x[0]) / (double)(n - 1);
    for (int k = 0; k < n; ++k)
        if (!(fabs(x[k] - (x[0] + (double)k * dx)) <= 1e-6 * dx)) {
            snprintf(why, len, "%s:%ld: expected x on a uniform grid (got %.9g, the grid from "
                     "%.9g to %.9g has %.9g there)", path, at[k], x[k], x[0], x[n - 1],
                     x[0] + (double)k * dx);
            return -1;
        }
    const double lo = kind == VS_TABLE_DIHEDRAL ? -180.0 : 0.0;
    if (kind == VS_TABLE_BOND && x[0] < 0.0) {
        snprintf(why, len, "%s:%ld: expected bond lengths >= 0 (got %g)", path, at[0], x[0]);
        return -1;
    }
    if (kind != VS_TABLE_BOND && (fabs(x[0] - lo) > 1e-9 || fabs(x[n - 1] - 180.0) > 1e-9)) {
        const int k = fabs(x[0] - lo) > 1e-9 ? 0 : n - 1;
        snprintf(why, len, "%s:%ld: expected the %s table to span %g to 180 degrees (got %g to "
                 "%g)", path, at[k], kind == VS_TABLE_ANGLE ? "angle" : "dihedral", lo, x[0],
                 x[n - 1]);
        return -1;
    }
    if (kind == VS_TABLE_DIHEDRAL &&
        !(fabs(y[n - 1] - y[0]) <= 1e-12 * fmax(1.0, fabs(y[0])))) {
        snprintf(why, len, "%s:%ld: expected the energy at 180 degrees to equal that at -180 "
                 "on line %ld (got %.17g and %.17g)", path, at[n - 1], at[0], y[n - 1], y[0]);
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
    long *at;
    const int n = read_pairs(path, &x, &y, &at, why, sizeof why);
    const int bad = n < 0 || check_grid(path, kind, x, y, at, n, why, sizeof why) != 0;
    free(at);
    if (bad) {
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
