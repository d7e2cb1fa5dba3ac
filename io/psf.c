/* PSF topology writer: see psf.h. */
#include "psf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fsutil.h"
#include "log.h"

/* A growing text buffer. */
typedef struct {
    char *s;
    int64_t len, cap;
} text;

static void put(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(text *t, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        const int64_t room = t->cap - t->len;
        const int w = vsnprintf(t->s ? t->s + t->len : NULL, (size_t)(room > 0 ? room : 0), fmt,
                                ap);
        va_end(ap);
        if (w < room) {
            t->len += w;
            return;
        }
        t->cap = 2 * t->cap + w + 4096;
        char *grown = VS_MALLOC((size_t)t->cap);
        if (t->s)
            memcpy(grown, t->s, (size_t)t->len);
        free(t->s);
        t->s = grown;
    }
}

/* Whether bead `tag` writes tuple m of its kind: a bond at its lower tag, an angle at its
 * vertex, a dihedral at its second bead, so each is written once. */
static int writes(const vs_topo *t, const vs_dihedrals *dh, int64_t tag, int arity, int m)
{
    return arity == 2 ? t->bond[m] > tag : (arity == 3 ? t->angle[m][1] : dh->dihedral[m][1]) == tag;
}

/* The bead's tuples of a kind (dh: its dihedrals, or NULL: none). */
static int count_of(const vs_topo *t, const vs_dihedrals *dh, int arity)
{
    return arity == 2 ? t->n_bond : (arity == 3 ? t->n_angle : (dh ? dh->n_dihedral : 0));
}

/* The slab's bonds, angles or dihedrals, formatted, with the global tuple numbers that place
 * the line breaks (PSF: 4 bonds, 3 angles, 2 dihedrals a line). */
static void tuples(const vs_par *par, const vs_particle_rec *slab, const vs_topo *topo,
                   const vs_dihedrals *dih, int64_t n, int arity, text *out, int64_t *total)
{
    int64_t mine = 0;
    for (int64_t i = 0; topo && i < n; ++i) {
        const vs_dihedrals *dh = dih ? &dih[i] : NULL;
        const int count = count_of(&topo[i], dh, arity);
        for (int m = 0; m < count; ++m)
            mine += writes(&topo[i], dh, slab[i].tag, arity, m);
    }
    int64_t k = vs_par_exscan_int64(par, mine);
    *total = mine;
    vs_par_sum_int64(par, total, 1);
    const int per_line = arity == 2 ? 4 : (arity == 3 ? 3 : 2);
    for (int64_t i = 0; topo && i < n; ++i) {
        const vs_topo *t = &topo[i];
        const vs_dihedrals *dh = dih ? &dih[i] : NULL;
        const int count = count_of(t, dh, arity);
        for (int m = 0; m < count; ++m) {
            if (!writes(t, dh, slab[i].tag, arity, m))
                continue;
            if (arity == 2)
                put(out, "%10lld%10lld", (long long)slab[i].tag + 1, (long long)t->bond[m] + 1);
            else if (arity == 3)
                put(out, "%10lld%10lld%10lld", (long long)t->angle[m][0] + 1,
                    (long long)t->angle[m][1] + 1, (long long)t->angle[m][2] + 1);
            else
                for (int a = 0; a < 4; ++a)
                    put(out, "%10lld", (long long)dh->dihedral[m][a] + 1);
            ++k;
            if (k % per_line == 0 || k == *total)
                put(out, "\n");
        }
    }
}

int vs_psf_write(const vs_par *par, const char *path, const vs_params *prm,
                 const vs_particle_rec *slab, const vs_topo *topo, const vs_dihedrals *dih,
                 int64_t n, int64_t lo, char *err, size_t err_len)
{
    (void)lo;
    text atoms = {NULL, 0, 0}, bonds = {NULL, 0, 0}, angles = {NULL, 0, 0};
    text dihedrals = {NULL, 0, 0};
    for (int64_t i = 0; i < n; ++i) {
        const int64_t mol = topo ? topo[i].mol : 0;
        const vs_species *sp = &prm->species.list[slab[i].species];
        const char *seg = mol > 0 ? "MOL" : "FREE";
        put(&atoms, "%10lld %-8s %-8lld %-8s %-8s %-6s %14.6f %14.6f %8d\n",
            (long long)slab[i].tag + 1, seg, (long long)mol, seg, sp->name, sp->name, 0.0,
            sp->mass, 0);
    }
    int64_t n_bonds = 0, n_angles = 0, n_dihedrals = 0;
    tuples(par, slab, topo, dih, n, 2, &bonds, &n_bonds);
    tuples(par, slab, topo, dih, n, 3, &angles, &n_angles);
    tuples(par, slab, topo, dih, n, 4, &dihedrals, &n_dihedrals);

    /* the headers, the same text on every rank (global counts); rank 0 writes them */
    text head[5] = {{NULL, 0, 0}, {NULL, 0, 0}, {NULL, 0, 0}, {NULL, 0, 0}, {NULL, 0, 0}};
    put(&head[0], "PSF EXT NAMD\n\n%10d !NTITLE\n REMARKS Vesica topology: atoms in tag order, "
        "as the rows of traj.h5md; resid = molecule id\n\n%10lld !NATOM\n", 1,
        (long long)prm->system.n_particles);
    put(&head[1], "\n%10lld !NBOND: bonds\n", (long long)n_bonds);
    put(&head[2], "\n%10lld !NTHETA: angles\n", (long long)n_angles);
    put(&head[3], "\n%10lld !NPHI: dihedrals\n", (long long)n_dihedrals);
    put(&head[4], "%s\n%10d !NIMPHI: impropers\n\n", n_dihedrals > 0 ? "" : "\n", 0);

    const text *body[4] = {&atoms, &bonds, &angles, &dihedrals};
    const char *bufs[9];
    int64_t lens[9], offs[9], at = 0;
    for (int s = 0; s < 5; ++s) {
        bufs[2 * s] = head[s].s;
        lens[2 * s] = par->rank == 0 ? head[s].len : 0;
        offs[2 * s] = at;
        at += head[s].len;
        if (s == 4)
            break;
        int64_t total = body[s]->len;
        vs_par_sum_int64(par, &total, 1);
        bufs[2 * s + 1] = body[s]->s ? body[s]->s : "";
        lens[2 * s + 1] = body[s]->len;
        offs[2 * s + 1] = at + vs_par_exscan_int64(par, body[s]->len);
        at += total;
    }
    char tmp[VS_PATH_LEN + 32];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    int rc = vs_par_write_file_at(par, tmp, 9, bufs, lens, offs, err, err_len);
    int failed = 0;
    if (rc == 0 && par->rank == 0)
        failed = vs_rename_into_place(tmp, path, err, err_len) != 0;
    else if (rc != 0 && par->rank == 0)
        unlink(tmp);
    if (rc == 0 && vs_par_agree_error(par, failed, err, err_len))
        rc = -1;
    for (int s = 0; s < 5; ++s)
        free(head[s].s);
    free(atoms.s);
    free(bonds.s);
    free(angles.s);
    free(dihedrals.s);
    return rc;
}
