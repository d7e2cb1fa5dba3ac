/* The table pair style's files: see pair_table.h. */
#include "pair_table.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fsutil.h"
#include "pair_setup.h"

/* A cursor over the lines of a text. */
typedef struct {
    const char *next;
    int line;
    char buf[512];
} line_reader;

/* The next line (comment after '#' removed, trimmed) into r->buf; 0 at the end. */
static int next_line(line_reader *r)
{
    if (!r->next || *r->next == '\0')
        return 0;
    const char *end = strchr(r->next, '\n');
    size_t len = end ? (size_t)(end - r->next) : strlen(r->next);
    if (len >= sizeof r->buf)
        len = sizeof r->buf - 1;
    memcpy(r->buf, r->next, len);
    r->buf[len] = '\0';
    r->next = end ? end + 1 : NULL;
    r->line++;
    char *hash = strchr(r->buf, '#');
    if (hash)
        *hash = '\0';
    size_t n = strlen(r->buf);
    while (n > 0 && isspace((unsigned char)r->buf[n - 1]))
        r->buf[--n] = '\0';
    return 1;
}

static int blank(const char *s)
{
    while (isspace((unsigned char)*s))
        ++s;
    return *s == '\0';
}

/* The parameter line "N n [R rlo rhi] [FP fplo fphi]". */
typedef struct {
    int n, have_r, have_fp;
    double rlo, rhi, fplo, fphi;
} table_header;

static int parse_header(const char *s, table_header *h, char *why, size_t why_len)
{
    memset(h, 0, sizeof *h);
    char word[32];
    int used = 0;
    while (sscanf(s, "%31s%n", word, &used) == 1) {
        s += used;
        if (strcmp(word, "N") == 0) {
            if (sscanf(s, "%d%n", &h->n, &used) != 1)
                break;
        } else if (strcmp(word, "R") == 0) {
            if (sscanf(s, "%lf %lf%n", &h->rlo, &h->rhi, &used) != 2)
                break;
            h->have_r = 1;
        } else if (strcmp(word, "FP") == 0) {
            if (sscanf(s, "%lf %lf%n", &h->fplo, &h->fphi, &used) != 2)
                break;
            h->have_fp = 1;
        } else {
            snprintf(why, why_len, "keyword %s, which is not read (N, R and FP are)", word);
            return -1;
        }
        s += used;
    }
    if (!blank(s) || h->n < 2 || h->n > VS_PAIR_TABLE_MAX_POINTS) {
        snprintf(why, why_len, "%s", s);
        return -1;
    }
    return 0;
}

/* The n data lines after the header into t, checking the grid. */
static int parse_rows(line_reader *r, const char *path, const char *keyword,
                      const table_header *h, vs_pair_table *t, char *err, size_t err_len)
{
    t->n = h->n;
    double r_last = 0.0;
    for (int k = 0; k < h->n; ++k) {
        int more;
        while ((more = next_line(r)) && blank(r->buf))
            ;
        if (!more) {
            snprintf(err, err_len, "%s:%d: pair table %s: expected %d rows 'index r energy "
                     "force' (got %d before the end of the file)", path, r->line, keyword,
                     h->n, k);
            return -1;
        }
        int index = 0, used = 0;
        double rr = 0.0, e = 0.0, f = 0.0;
        if (sscanf(r->buf, "%d %lf %lf %lf%n", &index, &rr, &e, &f, &used) != 4 ||
            !blank(r->buf + used) || index != k + 1 || !isfinite(rr) || !isfinite(e) ||
            !isfinite(f)) {
            snprintf(err, err_len, "%s:%d: pair table %s: expected row '%d r energy force' of "
                     "finite numbers (got '%.120s')", path, r->line, keyword, k + 1, r->buf);
            return -1;
        }
        if (h->have_r)
            rr = h->rlo + (h->rhi - h->rlo) * (double)k / (double)(h->n - 1);
        if (k == 0)
            t->r0 = rr;
        if (k == 1)
            t->dr = rr - t->r0;
        if (k >= 1 && !(t->dr > 0.0 && fabs(rr - (t->r0 + k * t->dr)) <= 1e-6 * t->dr)) {
            snprintf(err, err_len, "%s:%d: pair table %s: expected r on a uniform increasing "
                     "grid, r = %.10g here (got %.10g)", path, r->line, keyword,
                     t->r0 + k * t->dr, rr);
            return -1;
        }
        t->e[k] = e;
        t->f[k] = f;
        r_last = rr;
    }
    if (!(t->r0 >= 0.0)) {
        snprintf(err, err_len, "%s: pair table %s: expected r >= 0 (got a first r of %g)", path,
                 keyword, t->r0);
        return -1;
    }
    t->dr = (r_last - t->r0) / (double)(h->n - 1); /* the grid's spacing from its ends */
    vs_pair_table_spline(t, h->have_fp, h->fplo, h->fphi);
    return 0;
}

int vs_pair_table_parse(const char *path, const char *text, const char *keyword,
                        vs_pair_table *t, char *err, size_t err_len)
{
    line_reader r = {text, 0, ""};
    while (next_line(&r)) {
        if (blank(r.buf))
            continue;
        char word[VS_NAME_LEN + 8];
        if (sscanf(r.buf, "%39s", word) != 1)
            continue;
        const int mine = strcmp(word, keyword) == 0;
        int more;
        while ((more = next_line(&r)) && blank(r.buf))
            ;
        table_header h;
        char why[200] = "";
        if (!more || parse_header(r.buf, &h, why, sizeof why) != 0) {
            snprintf(err, err_len, "%s:%d: pair table %s: expected the line 'N n [R rlo rhi] [FP "
                     "fplo fphi]' after the keyword, 2 <= n <= %d (got '%.120s')", path, r.line,
                     word, VS_PAIR_TABLE_MAX_POINTS, more ? r.buf : "the end of the file");
            return -1;
        }
        if (mine)
            return parse_rows(&r, path, keyword, &h, t, err, err_len);
        for (int k = 0; k < h.n; ++k) /* another section: its rows */
            while ((more = next_line(&r)) && blank(r.buf))
                ;
    }
    snprintf(err, err_len, "%s: pair table %s: expected a section of that keyword (none in "
             "the file)", path, keyword);
    return -1;
}

/* Rank 0: every table of p from its file. */
static int read_tables(vs_params *p, char *err, size_t err_len)
{
    const char *path = p->pair.set->style[VS_PAIR_TABLE].file;
    char *text = vs_read_text_file(path, err, err_len);
    if (!text)
        return -1;
    int rc = 0;
    for (int k = 0; k < p->pair.set->n_tables && rc == 0; ++k)
        rc = vs_pair_table_parse(path, text, p->pair.set->table_keyword[k], &p->pair.set->tables[k],
                                 err, err_len);
    free(text);
    return rc;
}

/* The table style's pairs: cut-off within the table, shift, reach. */
static int finish_pairs(vs_params *p, char *err, size_t err_len)
{
    vs_pair_style_params *ps = &p->pair.set->style[VS_PAIR_TABLE];
    ps->reach = 0.0;
    for (int i = 0; i < p->species.n; ++i)
        for (int j = 0; j < p->species.n; ++j) {
            vs_pair_coeff *c = &ps->c[i][j];
            if (!c->on)
                continue;
            const vs_pair_table *t = &p->pair.set->tables[c->table];
            const double last = t->r0 + (t->n - 1) * t->dr;
            if (c->rc == 0.0)
                c->rc = last;
            if (!(c->rc > t->r0 && c->rc <= last * (1.0 + 1e-12))) {
                snprintf(err, err_len,
                         "%s: pair table %s: expected the cut-off of pair (%s, "
                         "%s) within the table's r range (%g, %g] (got rc = %g)",
                         ps->file, p->pair.set->table_keyword[c->table], p->species.list[i].name,
                         p->species.list[j].name, t->r0, last, c->rc);
                return -1;
            }
            vs_pair_coeff_finish(VS_PAIR_TABLE, c, ps->shift, p->pair.set->tables);
            if (c->rc > ps->reach)
                ps->reach = c->rc;
        }
    vs_pair_set_code(p); /* the tables' contents are physics a restart must match */
    return 0;
}

int vs_pair_tables_load(const vs_par *par, vs_params *p, char *err, size_t err_len)
{
    if (!vs_pair_style_of(p, VS_PAIR_TABLE)->active)
        return 0;
    int failed = par->rank == 0 ? read_tables(p, err, err_len) != 0 : 0;
    if (vs_par_agree_error(par, failed, err, err_len))
        return -1;
    vs_par_bcast_bytes(par, p->pair.set->tables, sizeof p->pair.set->tables, 0);
    return finish_pairs(p, err, err_len); /* the same verdict on every rank */
}
