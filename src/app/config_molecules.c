/* The molecules of a configuration: the checks that tie the `molecules` and `bonded` keys
 * to the species and the particle count, and their extraction into vs_params (the per-key
 * checks are the schema's, param_schema.c). Internal to the configuration module. */
#include "config_molecules.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bonded.h"
#include "config_report.h"
#include "config_tables.h"
#include "exit_codes.h"

static const config_setting_t *get(const config_setting_t *g, const char *name)
{
    return g ? config_setting_get_member(g, name) : NULL;
}

static double num(const config_setting_t *s)
{
    return config_setting_type(s) == CONFIG_TYPE_FLOAT ? config_setting_get_float(s)
                                                       : (double)config_setting_get_int64(s);
}

static int species_named(const vs_params *p, char letter)
{
    for (int s = 0; s < p->species.n; ++s)
        if (p->species.list[s].name[0] == letter && p->species.list[s].name[1] == '\0')
            return s;
    return -1;
}

/* The chain of template i: its sequence as species, repeat and count. */
static int extract_chain(const cfg_ctx *c, const config_setting_t *e, int i, vs_params *p)
{
    vs_mol_template *t = &p->molecules.mol[i];
    char key[PATH_LEN];
    snprintf(t->name, sizeof t->name, "%s", config_setting_get_string(get(e, "name")));
    for (int j = 0; j < i; ++j)
        if (strcmp(p->molecules.mol[j].name, t->name) == 0) {
            snprintf(key, sizeof key, "molecules.[%d].name", i);
            return cfg_fail(c, get(e, "name"), key, "expected a name no other template uses "
                            "(got \"%s\", as molecules.[%d].name)", t->name, j);
        }
    const config_setting_t *seq = get(e, "sequence");
    const char *text = config_setting_get_string(seq);
    snprintf(key, sizeof key, "molecules.[%d].sequence", i);
    if (text[0] == '\0')
        return cfg_fail(c, seq, key, "expected at least one bead (got \"\")");
    t->n_seq = (int)strlen(text);
    for (int k = 0; k < t->n_seq; ++k) {
        const int s = species_named(p, text[k]);
        if (s < 0)
            return cfg_fail(c, seq, key, "expected one-letter species names (got '%c' at "
                            "position %d, which is no species)", text[k], k + 1);
        t->seq[k] = s;
    }
    t->repeat = config_setting_get_int64(get(e, "repeat"));
    const int64_t nb = (int64_t)t->n_seq * t->repeat;
    const config_setting_t *frac = get(e, "bead_fraction");
    if (frac && get(e, "count")) {
        snprintf(key, sizeof key, "molecules.[%d].bead_fraction", i);
        return cfg_fail(c, frac, key, "expected only one of molecules.[%d].count and "
                        "molecules.[%d].bead_fraction (got both)", i, i);
    }
    t->count = frac ? llround(num(frac) * (double)p->system.n_particles / (double)nb)
                    : config_setting_get_int64(get(e, "count"));
    return 0;
}

/* Fail on a missing key `name` of group g (at `key`) that style `style` needs. */
static int missing(const cfg_ctx *c, const config_setting_t *g, const char *key,
                   const char *name, const char *what, const char *style)
{
    char k[PATH_LEN];
    snprintf(k, sizeof k, "%s.%s", key, name);
    return cfg_fail(c, g, k, "required key is missing (%s style %s)", what, style);
}

/* A bond type from its group (molecules.[i].bond or bonded.bonds.[i], named by `key`). */
int vs_config_parse_bond(const cfg_ctx *c, const config_setting_t *bond, const char *key,
                         vs_bond_type *b)
{
    const char *style = config_setting_get_string(get(bond, "style"));
    memset(b, 0, sizeof *b);
    b->style = strcmp(style, "fene") == 0    ? VS_BOND_FENE
               : strcmp(style, "table") == 0 ? VS_BOND_TABLE
                                             : VS_BOND_HARMONIC;
    if (b->style == VS_BOND_TABLE)
        return vs_config_table(c, bond, key, VS_TABLE_BOND, &b->tab);
    if (!get(bond, "K"))
        return missing(c, bond, key, "K", "bond", style);
    b->K = num(get(bond, "K"));
    const char *len_key = b->style == VS_BOND_FENE ? "R0" : "r0";
    const config_setting_t *len = get(bond, len_key);
    if (!len) {
        char k[PATH_LEN];
        snprintf(k, sizeof k, "%s.%s", key, len_key);
        return cfg_fail(c, bond, k, "required key is missing (bond style %s)",
                        b->style == VS_BOND_FENE ? "fene" : "harmonic");
    }
    b->r0 = num(len);
    return 0;
}

int vs_config_parse_angle(const cfg_ctx *c, const config_setting_t *angle, const char *key,
                          vs_angle_type *a)
{
    const char *style = config_setting_get_string(get(angle, "style"));
    memset(a, 0, sizeof *a);
    a->style = strcmp(style, "cosine") == 0           ? VS_ANGLE_COSINE
               : strcmp(style, "cosine_squared") == 0 ? VS_ANGLE_COSINE_SQUARED
               : strcmp(style, "table") == 0          ? VS_ANGLE_TABLE
                                                      : VS_ANGLE_HARMONIC;
    if (a->style == VS_ANGLE_TABLE)
        return vs_config_table(c, angle, key, VS_TABLE_ANGLE, &a->tab);
    if (!get(angle, "K"))
        return missing(c, angle, key, "K", "angle", style);
    a->K = num(get(angle, "K"));
    a->theta0 = num(get(angle, "theta0")) * 3.14159265358979323846 / 180.0;
    return 0;
}

/* A dihedral type from its group (molecules.[i].dihedral or bonded.dihedrals.[i], named by
 * `key`): K for periodic and harmonic, A for multi_harmonic. */
static int parse_dihedral(const cfg_ctx *c, const config_setting_t *g, const char *key,
                          vs_dihedral_type *d)
{
    const double deg = 3.14159265358979323846 / 180.0;
    const char *style = config_setting_get_string(get(g, "style"));
    memset(d, 0, sizeof *d);
    d->style = strcmp(style, "harmonic") == 0         ? VS_DIHEDRAL_HARMONIC
               : strcmp(style, "multi_harmonic") == 0 ? VS_DIHEDRAL_MULTI_HARMONIC
               : strcmp(style, "table") == 0          ? VS_DIHEDRAL_TABLE
                                                      : VS_DIHEDRAL_PERIODIC;
    if (d->style == VS_DIHEDRAL_TABLE)
        return vs_config_table(c, g, key, VS_TABLE_DIHEDRAL, &d->tab);
    const char *need = d->style == VS_DIHEDRAL_MULTI_HARMONIC ? "A" : "K";
    const config_setting_t *v = get(g, need);
    if (!v)
        return missing(c, g, key, need, "dihedral", style);
    if (d->style == VS_DIHEDRAL_MULTI_HARMONIC) {
        for (int k = 0; k < config_setting_length(v); ++k)
            d->A[k] = num(config_setting_get_elem(v, (unsigned)k));
        return 0;
    }
    d->K = num(v);
    d->n = (int)config_setting_get_int64(get(g, "n"));
    d->phi0 = num(get(g, d->style == VS_DIHEDRAL_HARMONIC ? "phi0" : "delta")) * deg;
    return 0;
}

/* The grid point of a bond table's lowest energy (the default step of the random walk). */
static double table_minimum(const vs_table *t)
{
    double best = t->lo, emin = t->coef[0];
    for (int k = 1; k < t->n - 1; ++k)
        if (t->coef[4 * k] < emin) {
            emin = t->coef[4 * k];
            best = t->lo + k * t->dx;
        }
    return best > 0.0 ? best : t->lo + t->dx;
}

/* Bond, angle and dihedral of template i: types i of vs_params' tables. */
static int extract_styles(const cfg_ctx *c, const config_setting_t *e, int i, vs_params *p)
{
    vs_mol_template *t = &p->molecules.mol[i];
    const config_setting_t *bond = get(e, "bond");
    vs_bond_type *b = &p->molecules.bond_types[i];
    char key[PATH_LEN];
    snprintf(key, sizeof key, "molecules.[%d].bond", i);
    if (vs_config_parse_bond(c, bond, key, b))
        return VS_EXIT_BAD_INPUT;
    const config_setting_t *step = get(bond, "length");
    if (step)
        t->bond_length = num(step);
    else if (b->style == VS_BOND_TABLE)
        t->bond_length = table_minimum(&b->tab);
    else if (b->style == VS_BOND_FENE)
        t->bond_length = 0.5 * b->r0;
    else if (b->r0 > 0.0)
        t->bond_length = b->r0;
    else /* a zero-length spring: its root-mean-square length at kT */
        t->bond_length =
            b->K > 0.0 && p->dpd.kT > 0.0 ? sqrt(3.0 * p->dpd.kT / b->K) : 0.5 * p->dpd.rc;
    if (b->style == VS_BOND_FENE && !(t->bond_length < b->r0)) {
        snprintf(key, sizeof key, "molecules.[%d].bond.length", i);
        return cfg_fail(c, step, key, "expected a length below R0 = %g (got %g)", b->r0,
                        t->bond_length);
    }
    t->bond_type = i;
    p->molecules.n_bond_types = i + 1;
    t->angle_type = -1;
    t->dihedral_type = -1;
    const config_setting_t *angle = get(e, "angle");
    if (get(angle, "style")) { /* absent: no angles (the defaults make an empty group) */
        snprintf(key, sizeof key, "molecules.[%d].angle", i);
        if (vs_config_parse_angle(c, angle, key, &p->molecules.angle_types[i]))
            return VS_EXIT_BAD_INPUT;
        t->angle_type = i;
        p->molecules.n_angle_types = i + 1;
    }
    const config_setting_t *dihedral = get(e, "dihedral");
    if (get(dihedral, "style")) {
        snprintf(key, sizeof key, "molecules.[%d].dihedral", i);
        if (parse_dihedral(c, dihedral, key, &p->molecules.dihedral_types[i]))
            return VS_EXIT_BAD_INPUT;
        t->dihedral_type = i;
        p->molecules.n_dihedral_types = i + 1;
    }
    return 0;
}

/* The ghost reach of bonded beads: bonded.reach, else the largest of rc and the FENE R0s. */
static int extract_reach(const cfg_ctx *c, const config_setting_t *root, vs_params *p)
{
    const config_setting_t *reach = get(get(root, "bonded"), "reach");
    p->molecules.bond_reach = p->dpd.rc;
    for (int i = 0; i < p->molecules.n_moltypes; ++i)
        if (p->molecules.bond_types[i].style == VS_BOND_FENE &&
            p->molecules.bond_types[i].r0 > p->molecules.bond_reach)
            p->molecules.bond_reach = p->molecules.bond_types[i].r0;
    if (reach)
        p->molecules.bond_reach = num(reach);
    for (int i = 0; i < p->molecules.n_moltypes; ++i)
        if (!(p->molecules.mol[i].bond_length < p->molecules.bond_reach))
            return cfg_fail(c, reach ? reach : get(root, "molecules"), "bonded.reach",
                            "expected more than the bond length %g of molecules.[%d] (got %g)",
                            p->molecules.mol[i].bond_length, i, p->molecules.bond_reach);
    return 0;
}

int vs_config_molecules(const cfg_ctx *c, const config_setting_t *root, vs_params *p)
{
    const char *lists[3] = {"bonds", "angles", "dihedrals"};
    for (int k = 0; k < 3; ++k) {
        const config_setting_t *l = get(get(root, "bonded"), lists[k]);
        if (l) {
            char key[PATH_LEN];
            snprintf(key, sizeof key, "bonded.%s", lists[k]);
            return cfg_fail(c, l, key, "expected %s only with input (molecule templates give "
                            "their own)", key);
        }
    }
    const config_setting_t *list = get(root, "molecules");
    if (!list)
        return 0;
    p->molecules.n_moltypes = config_setting_length(list);
    int64_t beads = 0;
    for (int i = 0; i < p->molecules.n_moltypes; ++i) {
        const config_setting_t *e = config_setting_get_elem(list, (unsigned)i);
        int rc = extract_chain(c, e, i, p);
        if (!rc)
            rc = extract_styles(c, e, i, p);
        if (rc)
            return rc;
        const vs_mol_template *t = &p->molecules.mol[i];
        const double more = (double)t->n_seq * (double)t->repeat * (double)t->count;
        if (!((double)beads + more <= (double)p->system.n_particles))
            return cfg_fail(c, e, "molecules", "expected at most the %lld particles of the "
                            "system in molecules (got %.0f beads up to molecules.[%d])",
                            (long long)p->system.n_particles, (double)beads + more, i);
        beads += (int64_t)more;
    }
    p->molecules.n_molecule_beads = beads;
    vs_bonded_set_code(p);
    return extract_reach(c, root, p);
}

int vs_config_input(const cfg_ctx *c, const config_setting_t *root, vs_params *p)
{
    const config_setting_t *in = get(root, "input");
    vs_input *w = &p->input;
    w->format = strcmp(config_setting_get_string(get(in, "format")), "h5md") == 0
                    ? VS_INPUT_H5MD : VS_INPUT_LAMMPS_DATA;
    const config_setting_t *file = get(in, "file");
    snprintf(w->file, sizeof w->file, "%s", config_setting_get_string(file));
    if (w->file[0] == '\0')
        return cfg_fail(c, file, "input.file", "expected a file name (got \"\")");
    w->species_by_name = strcmp(config_setting_get_string(get(in, "species")), "name") == 0;
    w->frame = config_setting_get_int64(get(in, "frame"));
    const config_setting_t *rep = get(in, "replicate");
    for (int d = 0; d < 3; ++d)
        w->replicate[d] = config_setting_get_int_elem(rep, d);
    const config_setting_t *bonded = get(root, "bonded");
    const config_setting_t *bonds = get(bonded, "bonds"), *angles = get(bonded, "angles");
    p->molecules.n_bond_types = bonds ? config_setting_length(bonds) : 0;
    for (int i = 0; i < p->molecules.n_bond_types; ++i) {
        char key[PATH_LEN];
        snprintf(key, sizeof key, "bonded.bonds.[%d]", i);
        if (vs_config_parse_bond(c, config_setting_get_elem(bonds, (unsigned)i), key,
                                 &p->molecules.bond_types[i]))
            return VS_EXIT_BAD_INPUT;
    }
    p->molecules.n_angle_types = angles ? config_setting_length(angles) : 0;
    for (int i = 0; i < p->molecules.n_angle_types; ++i) {
        char key[PATH_LEN];
        snprintf(key, sizeof key, "bonded.angles.[%d]", i);
        if (vs_config_parse_angle(c, config_setting_get_elem(angles, (unsigned)i), key,
                                  &p->molecules.angle_types[i]))
            return VS_EXIT_BAD_INPUT;
    }
    const config_setting_t *dihedrals = get(bonded, "dihedrals");
    p->molecules.n_dihedral_types = dihedrals ? config_setting_length(dihedrals) : 0;
    for (int i = 0; i < p->molecules.n_dihedral_types; ++i) {
        char key[PATH_LEN];
        snprintf(key, sizeof key, "bonded.dihedrals.[%d]", i);
        if (parse_dihedral(c, config_setting_get_elem(dihedrals, (unsigned)i), key,
                           &p->molecules.dihedral_types[i]))
            return VS_EXIT_BAD_INPUT;
    }
    /* the ghost reach of bonded beads, as for templates; the reader checks every bond */
    const config_setting_t *reach = get(bonded, "reach");
    p->molecules.bond_reach = p->dpd.rc;
    for (int i = 0; i < p->molecules.n_bond_types; ++i)
        if (p->molecules.bond_types[i].style == VS_BOND_FENE &&
            p->molecules.bond_types[i].r0 > p->molecules.bond_reach)
            p->molecules.bond_reach = p->molecules.bond_types[i].r0;
    if (reach)
        p->molecules.bond_reach = num(reach);
    vs_bonded_set_code(p);
    return 0;
}
