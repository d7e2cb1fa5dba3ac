/* LAMMPS data file reader (input.format = "lammps-data"): see input_system.h.
 *
 * What is read: the header counts (atoms, bonds, angles, dihedrals, types; impropers must
 * be 0), the orthogonal box, Masses (checked against the species' masses), Atoms in the
 * molecular layout (id mol type x y z [ix iy iz]; styles molecular, bond, angle) or the full
 * one (id mol type q x y z [ix iy iz]; the charge is ignored): the style comment "Atoms #
 * full" decides, else the column count. Velocities, Bonds, Angles and Dihedrals when present
 * (a dihedral id type a b c d turns about b-c, as in LAMMPS); Atom Type
 * Labels or the Masses comments ("1 1.0 # A") name the types for input.species = "name".
 * Coefficient sections are skipped: the configuration's bonded.bonds, .angles and .dihedrals give
 * the parameters, type k of the file being entry k-1. Atom ids must be exactly 1..N.
 *
 * A section must hold exactly the header's count of lines (blank and comment lines aside);
 * the line after it must start the next section or end the file.
 */
#define _POSIX_C_SOURCE 200809L
#include "input_system.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "log.h"

typedef struct {
    FILE *f;
    const char *path;
    char *buf;       /* the current line, comment cut off */
    size_t cap;
    char comment[64]; /* the current line's comment, trimmed */
    long long line;  /* its number */
    int pushed;      /* the current line is to be read again */
    char *err;
    size_t err_len;
} reader;

/* The file's header, and what the sections have seen. */
typedef struct {
    const vs_params *prm;
    int64_t atoms, bonds, angles, dihedrals, atom_types, bond_types, angle_types,
        dihedral_types;
    double lo[3];
    long long header_line; /* the last header line (for "declared by" messages) */
    long long count_line[8]; /* the header line of each count of `counts` below */
    int seen_atoms, seen_velocities, seen_bonds, seen_angles, seen_dihedrals, seen_masses;
    char (*type_name)[VS_NAME_LEN]; /* per atom type: its label or Masses comment */
    double *type_mass;              /* per atom type: Masses (NaN: none) */
    long long *type_line;           /* where the type got its name */
    unsigned char *seen;            /* per atom: given in Atoms (1), in Velocities (2) */
} lmp_file;

static int fail(reader *r, long long line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(reader *r, long long line, const char *fmt, ...)
{
    int used = line > 0 ? snprintf(r->err, r->err_len, "%s:%lld: ", r->path, line)
                        : snprintf(r->err, r->err_len, "%s: ", r->path);
    if (used < 0 || (size_t)used >= r->err_len)
        return -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->err + used, r->err_len - (size_t)used, fmt, ap);
    va_end(ap);
    return -1;
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        ++s;
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    return s;
}

/* The next non-blank line (comment cut, kept in r->comment), or NULL at the end. */
static char *next_line(reader *r)
{
    if (r->pushed) {
        r->pushed = 0;
        return trim(r->buf);
    }
    for (;;) {
        if (getline(&r->buf, &r->cap, r->f) < 0)
            return NULL;
        r->line++;
        char *hash = strchr(r->buf, '#');
        r->comment[0] = '\0';
        if (hash) {
            *hash = '\0';
            snprintf(r->comment, sizeof r->comment, "%s", trim(hash + 1));
        }
        char *s = trim(r->buf);
        if (*s)
            return s;
    }
}

/* A line that starts with a letter names a section (numbers start every data line). */
static int is_section(const char *s) { return isalpha((unsigned char)s[0]); }

/* Split into at most `max` whitespace-separated words; returns the count. */
static int split(char *s, char **w, int max)
{
    int n = 0;
    for (char *t = strtok(s, " \t\r\n"); t; t = strtok(NULL, " \t\r\n"))
        if (n < max + 1)
            w[n < max ? n : max - 1] = t, ++n;
    return n;
}

static int to_int64(const char *s, int64_t *v)
{
    char *end;
    errno = 0;
    const long long x = strtoll(s, &end, 10);
    *v = x;
    return errno == 0 && end != s && *end == '\0';
}

static int to_double(const char *s, double *v)
{
    char *end;
    *v = strtod(s, &end);
    return end != s && *end == '\0' && isfinite(*v);
}

/* ---- header ------------------------------------------------------------------------------ */

static int header_line(reader *r, lmp_file *h, vs_input_system *sys, char *s)
{
    static const struct {
        const char *word;
        size_t off;
    } counts[] = {{"atoms", offsetof(lmp_file, atoms)},
                  {"bonds", offsetof(lmp_file, bonds)},
                  {"angles", offsetof(lmp_file, angles)},
                  {"dihedrals", offsetof(lmp_file, dihedrals)},
                  {"atom types", offsetof(lmp_file, atom_types)},
                  {"bond types", offsetof(lmp_file, bond_types)},
                  {"angle types", offsetof(lmp_file, angle_types)},
                  {"dihedral types", offsetof(lmp_file, dihedral_types)}};
    char *w[8];
    char copy[256];
    snprintf(copy, sizeof copy, "%s", s);
    const int n = split(copy, w, 8);
    char rest[128] = "";
    for (int k = 1; k < n && k < 8; ++k) /* the words after the first number */
        snprintf(rest + strlen(rest), sizeof rest - strlen(rest), "%s%s", k > 1 ? " " : "", w[k]);
    h->header_line = r->line;
    for (size_t k = 0; k < sizeof counts / sizeof counts[0]; ++k)
        if (strcmp(rest, counts[k].word) == 0) {
            int64_t v;
            if (!to_int64(w[0], &v) || v < 0)
                return fail(r, r->line, "expected a count >= 0 of %s (got '%s')", rest, w[0]);
            *(int64_t *)((char *)h + counts[k].off) = v;
            h->count_line[k] = r->line;
            return 0;
        }
    const char *bounds[3] = {"xlo xhi", "ylo yhi", "zlo zhi"};
    for (int d = 0; d < 3; ++d) {
        if (n != 4 || strncmp(w[2], bounds[d], 3) != 0 || w[2][3] != '\0' ||
            strcmp(w[3], bounds[d] + 4) != 0)
            continue;
        double lo, hi;
        if (!to_double(w[0], &lo) || !to_double(w[1], &hi) || !(hi > lo))
            return fail(r, r->line, "expected %s with lo < hi (got '%s %s')", bounds[d], w[0],
                        w[1]);
        h->lo[d] = lo;
        sys->box[d] = hi - lo;
        return 0;
    }
    if (n == 6 && strcmp(w[3], "xy") == 0 && strcmp(w[4], "xz") == 0 && strcmp(w[5], "yz") == 0)
        return fail(r, r->line, "a triclinic box (xy xz yz) is not supported: Vesica's box is "
                    "orthogonal");
    if (strstr(rest, "improper") || strcmp(rest, "ellipsoids") == 0
        || strcmp(rest, "lines") == 0 || strcmp(rest, "triangles") == 0 ||
        strcmp(rest, "bodies") == 0) {
        int64_t v;
        if (to_int64(w[0], &v) && (v == 0 || strstr(rest, "types") || strstr(rest, "per atom")))
            return 0; /* none of them, or only their type counts */
        return fail(r, r->line, "%s are not supported (got %s)", rest, w[0]);
    }
    if (strncmp(rest, "extra ", 6) == 0)
        return 0; /* LAMMPS's room for later topology */
    return fail(r, r->line, "unknown header line '%s'", s);
}

/* ---- sections ---------------------------------------------------------------------------- */

/* Atom id (1..N) of a word, as a tag. */
static int atom_tag(reader *r, const lmp_file *h, const char *word, const char *what,
                    int64_t *tag)
{
    int64_t id;
    if (!to_int64(word, &id))
        return fail(r, r->line, "expected an integer %s (got '%s')", what, word);
    if (id < 1 || id > h->atoms)
        return fail(r, r->line, "%s %lld out of range: the header declares %lld atoms (ids 1 to "
                    "%lld)", what, (long long)id, (long long)h->atoms, (long long)h->atoms);
    *tag = id - 1;
    return 0;
}

static int type_number(reader *r, const char *word, int64_t max, const char *what, int *type)
{
    int64_t t;
    if (!to_int64(word, &t))
        return fail(r, r->line, "expected an integer %s (got '%s')", what, word);
    if (t < 1 || t > max)
        return fail(r, r->line, "unknown %s %lld: the header declares %lld %ss", what,
                    (long long)t, (long long)max, what);
    *type = (int)t;
    return 0;
}

/* One line of Atoms; `full`: -1 undecided (by the column count), 0 molecular, 1 full. */
static int atom_line(reader *r, lmp_file *h, vs_input_system *sys, char *s, int *full)
{
    char *w[11];
    const int n = split(s, w, 11);
    if (*full < 0 && (n == 6 || n == 9 || n == 7 || n == 10))
        *full = n == 7 || n == 10;
    const int base = *full > 0 ? 7 : 6;
    if (*full < 0 || (n != base && n != base + 3))
        return fail(r, r->line, "expected %s (got %d columns)",
                    *full < 0 ? "6 or 9 columns (molecular) or 7 or 10 (full)"
                    : *full ? "id mol type q x y z [ix iy iz] (atom style full)"
                            : "id mol type x y z [ix iy iz] (atom style molecular)", n);
    int64_t tag, mol;
    int type;
    if (atom_tag(r, h, w[0], "atom id", &tag) ||
        type_number(r, w[2], h->atom_types, "atom type", &type))
        return -1;
    if (!h->prm->input.species_by_name && type > h->prm->species.n)
        return fail(r, r->line, "atom %lld has type %d, but the configuration has %d species "
                    "(input.species = \"type\": type k is species.[k-1])", (long long)tag + 1,
                    type, h->prm->species.n);
    if (!to_int64(w[1], &mol) || mol < 0)
        return fail(r, r->line, "expected a molecule id >= 0 (got '%s')", w[1]);
    if (h->seen[tag] & 1)
        return fail(r, r->line, "atom id %lld given twice", (long long)tag + 1);
    h->seen[tag] |= 1;
    vs_particle_rec *p = &sys->recs[tag];
    const int x0 = base - 3;
    for (int d = 0; d < 3; ++d) {
        if (!to_double(w[x0 + d], &p->x[d]))
            return fail(r, r->line, "expected a finite coordinate (got '%s')", w[x0 + d]);
        p->x[d] -= h->lo[d];
        int64_t img = 0;
        if (n == base + 3 && (!to_int64(w[base + d], &img) || img < INT32_MIN ||
                              img > INT32_MAX))
            return fail(r, r->line, "expected an integer image flag (got '%s')", w[base + d]);
        p->image[d] = (int32_t)img;
    }
    p->tag = tag;
    p->species = type; /* the file's type until map_species */
    sys->topo[tag].mol = mol;
    return 0;
}

static int velocity_line(reader *r, lmp_file *h, vs_input_system *sys, char *s)
{
    char *w[5];
    int64_t tag;
    if (split(s, w, 5) != 4)
        return fail(r, r->line, "expected id vx vy vz");
    if (atom_tag(r, h, w[0], "atom id", &tag))
        return -1;
    if (h->seen[tag] & 2)
        return fail(r, r->line, "velocity of atom %lld given twice", (long long)tag + 1);
    h->seen[tag] |= 2;
    for (int d = 0; d < 3; ++d)
        if (!to_double(w[1 + d], &sys->recs[tag].v[d]))
            return fail(r, r->line, "expected a finite velocity (got '%s')", w[1 + d]);
    return 0;
}

/* Bonds (arity 2), Angles (arity 3) and Dihedrals (arity 4): id type atoms... */
static int tuple_line(reader *r, lmp_file *h, const vs_params *prm, vs_input_system *sys,
                      char *s, int arity)
{
    static const char *const atoms[3] = {"atom1 atom2", "atom1 atom2 atom3",
                                         "atom1 atom2 atom3 atom4"};
    static const char *const whats[3] = {"bond", "angle", "dihedral"};
    static const char *const types[3] = {"bond type", "angle type", "dihedral type"};
    char *w[7];
    const char *what = whats[arity - 2];
    if (split(s, w, 7) != 2 + arity)
        return fail(r, r->line, "expected id type %s", atoms[arity - 2]);
    int type;
    int64_t t[4];
    const int64_t declared = arity == 2   ? h->bond_types
                             : arity == 3 ? h->angle_types
                                          : h->dihedral_types;
    const int configured = arity == 2   ? prm->molecules.n_bond_types
                           : arity == 3 ? prm->molecules.n_angle_types
                                        : prm->molecules.n_dihedral_types;
    if (type_number(r, w[1], declared, types[arity - 2], &type))
        return -1;
    if (type > configured)
        return fail(r, r->line, "%s type %d has no entry in bonded.%ss of the configuration "
                    "(%d given)", what, type, what, configured);
    for (int k = 0; k < arity; ++k)
        if (atom_tag(r, h, w[2 + k], "atom id", &t[k]))
            return -1;
    char why[200];
    const int rc = arity == 2   ? vs_input_add_bond(sys->topo, t[0], t[1], type - 1, why,
                                                    sizeof why)
                   : arity == 3 ? vs_input_add_angle(sys->topo, t[0], t[1], t[2], type - 1,
                                                     why, sizeof why)
                                : vs_input_add_dihedral(sys->dih, t, type - 1, why, sizeof why);
    return rc ? fail(r, r->line, "%s", why) : 0;
}

/* Masses and Atom Type Labels: per type, its mass or its name. */
static int type_line(reader *r, lmp_file *h, char *s, int labels)
{
    char *w[3];
    int type;
    if (split(s, w, 3) != 2)
        return fail(r, r->line, "expected %s", labels ? "type label" : "type mass");
    if (type_number(r, w[0], h->atom_types, "atom type", &type))
        return -1;
    const char *name = labels ? w[1] : r->comment;
    if (!labels && !to_double(w[1], &h->type_mass[type - 1]))
        return fail(r, r->line, "expected a mass (got '%s')", w[1]);
    if (name[0] && (labels || h->type_line[type - 1] == 0)) {
        snprintf(h->type_name[type - 1], VS_NAME_LEN, "%s", name);
        h->type_line[type - 1] = r->line;
    }
    return 0;
}

/* Skip a section we take nothing from (coefficients: the configuration gives them). */
static int skip_section(reader *r)
{
    for (char *s = next_line(r); s; s = next_line(r))
        if (is_section(s)) {
            r->pushed = 1;
            return 0;
        }
    return 0;
}

/* Read `count` data lines of the section named `name` (begun at line `start`). */
static int read_section(reader *r, lmp_file *h, const vs_params *prm, vs_input_system *sys,
                        const char *name, int64_t count, int *full)
{
    const long long start = r->line;
    for (int64_t k = 0; k < count; ++k) {
        char *s = next_line(r);
        if (!s)
            return fail(r, start, "%s: expected %lld lines (the header's count), the file ends "
                        "after %lld", name, (long long)count, (long long)k);
        if (is_section(s))
            return fail(r, r->line, "%s (line %lld): expected %lld lines (the header's count), "
                        "found %lld before the next section '%s'", name, start,
                        (long long)count, (long long)k, s);
        int rc;
        if (strcmp(name, "Atoms") == 0)
            rc = atom_line(r, h, sys, s, full);
        else if (strcmp(name, "Velocities") == 0)
            rc = velocity_line(r, h, sys, s);
        else if (strcmp(name, "Bonds") == 0 || strcmp(name, "Angles") == 0 ||
                 strcmp(name, "Dihedrals") == 0)
            rc = tuple_line(r, h, prm, sys, s, name[1] == 'o' ? 2 : (name[0] == 'A' ? 3 : 4));
        else
            rc = type_line(r, h, s, strcmp(name, "Atom Type Labels") == 0);
        if (rc)
            return -1;
    }
    char *s = next_line(r);
    if (s && !is_section(s))
        return fail(r, r->line, "%s (line %lld): more lines than the header's %lld (expected "
                    "the next section or the end of the file)", name, start, (long long)count);
    r->pushed = s != NULL;
    return 0;
}

/* ---- the whole file ---------------------------------------------------------------------- */

/* The type of every atom onto a species: by number or by name. */
static int map_species(reader *r, lmp_file *h, const vs_params *prm, vs_input_system *sys)
{
    int32_t *map = VS_MALLOC(sizeof(int32_t) * (size_t)(h->atom_types + 1));
    int rc = 0;
    for (int64_t t = 1; t <= h->atom_types && rc == 0; ++t) {
        map[t] = -1;
        if (!prm->input.species_by_name) {
            map[t] = t <= prm->species.n ? (int32_t)(t - 1) : -1;
        } else {
            for (int s = 0; s < prm->species.n; ++s)
                if (strcmp(prm->species.list[s].name, h->type_name[t - 1]) == 0)
                    map[t] = s;
        }
        const double m = h->type_mass[t - 1];
        if (map[t] >= 0 && !isnan(m) && m != prm->species.list[map[t]].mass)
            rc = fail(r, 0, "atom type %lld has mass %g in Masses, species %s has mass %g",
                      (long long)t, m, prm->species.list[map[t]].name,
                      prm->species.list[map[t]].mass);
    }
    for (int64_t i = 0; i < sys->n && rc == 0; ++i) {
        const int t = sys->recs[i].species;
        if (map[t] >= 0) {
            sys->recs[i].species = map[t];
        } else if (prm->input.species_by_name) {
            rc = h->type_name[t - 1][0]
                     ? fail(r, h->type_line[t - 1], "atom type %d is named '%s', which is no "
                            "species of the configuration", t, h->type_name[t - 1])
                     : fail(r, 0, "atom type %d (atom %lld) has no name (input.species = "
                            "\"name\" needs Atom Type Labels or Masses comments)", t,
                            (long long)i + 1);
        } else {
            rc = fail(r, 0, "atom %lld has type %d, but the configuration has %d species "
                      "(input.species = \"type\": type k is species.[k-1])", (long long)i + 1,
                      t, prm->species.n);
        }
    }
    free(map);
    return rc;
}

/* The most types of each kind a file may declare: the per-type tables stay small, and no
 * force field names more. */
#define VS_LMP_MAX_TYPES 1000000

/* The header's counts against what the file can hold, before anything is allocated: every
 * atom, bond, angle and dihedral is a line of at least 6, 4, 5 and 6 numbers (11, 7, 9, 11
 * characters and a newline), so a regular file of S bytes holds at most S / 12 atoms. */
static int check_counts(reader *r, const lmp_file *h)
{
    static const char *const what[8] = {"atoms", "bonds", "angles", "dihedrals", "atom types",
                                        "bond types", "angle types", "dihedral types"};
    const int64_t count[8] = {h->atoms, h->bonds, h->angles, h->dihedrals,
                              h->atom_types, h->bond_types, h->angle_types, h->dihedral_types};
    static const int line_bytes[4] = {12, 8, 10, 12};
    for (int k = 4; k < 8; ++k)
        if (count[k] > VS_LMP_MAX_TYPES)
            return fail(r, h->count_line[k], "%lld %s: more than the %d a data file may "
                        "declare", (long long)count[k], what[k], VS_LMP_MAX_TYPES);
    struct stat st;
    if (fstat(fileno(r->f), &st) != 0 || !S_ISREG(st.st_mode))
        return 0; /* a pipe: the sections' own checks find a short file */
    const double size = (double)st.st_size + 1.0; /* the last line may lack its newline */
    for (int k = 0; k < 4; ++k) {
        if ((double)count[k] * line_bytes[k] > size)
            return fail(r, h->count_line[k], "the header declares %lld %s, more than the "
                        "file's %lld bytes can hold (a line of at least %d bytes each)",
                        (long long)count[k], what[k], (long long)st.st_size, line_bytes[k]);
    }
    return 0;
}

static int allocate(reader *r, lmp_file *h, vs_input_system *sys, int header_only)
{
    if (h->atoms < 1)
        return fail(r, h->header_line, "expected at least 1 atom in the header");
    for (int d = 0; d < 3; ++d)
        if (!(sys->box[d] > 0.0))
            return fail(r, h->header_line, "the header gives no %c box bounds (%clo %chi)",
                        'x' + d, 'x' + d, 'x' + d);
    sys->n = h->atoms;
    sys->n_bonds = h->bonds;
    sys->n_angles = h->angles;
    sys->n_dihedrals = h->dihedrals;
    sys->topology = 1; /* molecular and full atoms always carry molecule ids */
    if (header_only)
        return 0;
    const size_t n = (size_t)h->atoms, nt = (size_t)(h->atom_types > 0 ? h->atom_types : 1);
    sys->recs = VS_MALLOC(sizeof(vs_particle_rec) * n);
    sys->topo = VS_MALLOC(sizeof(vs_topo) * n);
    memset(sys->recs, 0, sizeof(vs_particle_rec) * n);
    memset(sys->topo, 0, sizeof(vs_topo) * n);
    /* without dihedral types a dihedral of the file is an unknown type */
    if (h->prm->molecules.n_dihedral_types > 0) {
        sys->dih = VS_MALLOC(sizeof(vs_dihedrals) * n);
        memset(sys->dih, 0, sizeof(vs_dihedrals) * n);
    }
    h->seen = VS_MALLOC(n);
    memset(h->seen, 0, n);
    h->type_name = VS_MALLOC(VS_NAME_LEN * nt);
    memset(h->type_name, 0, VS_NAME_LEN * nt);
    h->type_mass = VS_MALLOC(sizeof(double) * nt);
    h->type_line = VS_MALLOC(sizeof(long long) * nt);
    for (size_t t = 0; t < nt; ++t) {
        h->type_mass[t] = NAN;
        h->type_line[t] = 0;
    }
    return 0;
}

/* Which count a section holds and whether it was seen; NULL for sections to skip. */
static int64_t *section_count(lmp_file *h, const char *name, int **seen)
{
    static int64_t one_per_type;
    one_per_type = h->atom_types;
    struct {
        const char *name;
        int64_t *count;
        int *seen;
    } known[] = {{"Atoms", &h->atoms, &h->seen_atoms},
                 {"Velocities", &h->atoms, &h->seen_velocities},
                 {"Bonds", &h->bonds, &h->seen_bonds},
                 {"Angles", &h->angles, &h->seen_angles},
                 {"Dihedrals", &h->dihedrals, &h->seen_dihedrals},
                 {"Masses", &one_per_type, &h->seen_masses},
                 {"Atom Type Labels", &one_per_type, NULL}};
    for (size_t k = 0; k < sizeof known / sizeof known[0]; ++k)
        if (strcmp(name, known[k].name) == 0) {
            *seen = known[k].seen;
            return known[k].count;
        }
    return NULL;
}

static int read_body(reader *r, lmp_file *h, const vs_params *prm, vs_input_system *sys)
{
    static const char *const skipped[] = {
        "Pair Coeffs", "PairIJ Coeffs", "Bond Coeffs", "Angle Coeffs", "Dihedral Coeffs",
        "Improper Coeffs", "BondBond Coeffs", "BondAngle Coeffs", "Bond Type Labels",
        "Angle Type Labels", "Dihedral Type Labels", "Improper Type Labels"};
    int full = -1;
    for (char *s = next_line(r); s; s = next_line(r)) {
        char name[64];
        snprintf(name, sizeof name, "%s", s);
        if (!is_section(name))
            return fail(r, r->line, "expected a section name (got '%s')", s);
        if (strcmp(name, "Atoms") == 0 && r->comment[0]) {
            const char *st = r->comment;
            if (strcmp(st, "full") == 0)
                full = 1;
            else if (strcmp(st, "molecular") == 0 || strcmp(st, "bond") == 0 ||
                     strcmp(st, "angle") == 0)
                full = 0;
            else
                return fail(r, r->line, "atom style '%s' is not supported (molecular, bond, "
                            "angle or full)", st);
        }
        int *seen = NULL;
        int64_t *count = section_count(h, name, &seen);
        if (count) {
            if (seen && *seen)
                return fail(r, r->line, "a second %s section", name);
            if (seen)
                *seen = 1;
            if (read_section(r, h, prm, sys, name, *count, &full))
                return -1;
            continue;
        }
        int skip = 0;
        for (size_t k = 0; k < sizeof skipped / sizeof skipped[0]; ++k)
            skip |= strcmp(name, skipped[k]) == 0;
        if (!skip)
            return fail(r, r->line, "unknown or unsupported section '%s'", name);
        skip_section(r);
    }
    const struct {
        int64_t count;
        int seen;
        const char *name, *what;
    } needed[] = {{1, h->seen_atoms, "Atoms", "atoms"},
                  {h->bonds, h->seen_bonds, "Bonds", "bonds"},
                  {h->angles, h->seen_angles, "Angles", "angles"},
                  {h->dihedrals, h->seen_dihedrals, "Dihedrals", "dihedrals"}};
    for (int k = 0; k < 4; ++k)
        if (needed[k].count > 0 && !needed[k].seen)
            return fail(r, h->count_line[k], "no %s section in the file, but the header "
                        "declares %lld %s here", needed[k].name,
                        (long long)(k ? needed[k].count : h->atoms), needed[k].what);
    sys->has_velocities = h->seen_velocities;
    return map_species(r, h, prm, sys);
}

int vs_lammps_data_read(const vs_params *prm, int header_only, vs_input_system *sys, char *err,
                        size_t err_len)
{
    reader r = {NULL, prm->input.file, NULL, 0, "", 0, 0, err, err_len};
    r.f = fopen(r.path, "r");
    if (!r.f) {
        snprintf(err, err_len, "%s: cannot open the input file: %s", r.path, strerror(errno));
        return -1;
    }
    lmp_file h;
    memset(&h, 0, sizeof h);
    h.prm = prm;
    int rc = 0;
    /* the first line is a title, whatever it holds */
    if (getline(&r.buf, &r.cap, r.f) < 0)
        rc = fail(&r, 0, "empty file (expected a LAMMPS data file)");
    else
        r.line = 1;
    char *s = NULL;
    while (rc == 0 && (s = next_line(&r)) != NULL && !is_section(s))
        rc = header_line(&r, &h, sys, s);
    if (rc == 0 && !s)
        rc = fail(&r, r.line, "no sections after the header (expected Atoms)");
    if (rc == 0)
        rc = check_counts(&r, &h);
    if (rc == 0 && !header_only)
        rc = vs_input_check_memory(h.atoms, (double)(sizeof(vs_particle_rec) + sizeof(vs_topo) +
                                                     sizeof(vs_dihedrals) + 1),
                                   r.path, err, err_len);
    if (rc == 0)
        rc = allocate(&r, &h, sys, header_only);
    if (rc == 0 && !header_only) {
        r.pushed = 1;
        rc = read_body(&r, &h, prm, sys);
    }
    if (rc == 0)
        rc = vs_input_finish(prm, sys, r.path, err, err_len);
    free(h.seen);
    free(h.type_name);
    free(h.type_mass);
    free(h.type_line);
    free(r.buf);
    fclose(r.f);
    return rc;
}
