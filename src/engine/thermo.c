/* Thermo reductions and the integrity check: see thermo.h. */
#include "thermo.h"

#include "ensemble.h"

#include <math.h>
#include <stdlib.h>

#include "cpu_backend.h"
#include "log.h"

void vs_par_sum_wide(const vs_par *par, vs_wide *w, int n)
{
    int64_t limbs[3 * 16];
    for (int first = 0; first < n; first += 16) {
        const int m = n - first < 16 ? n - first : 16;
        for (int k = 0; k < m; ++k)
            vs_wide_to_limbs(w[first + k], &limbs[3 * k]);
        vs_par_sum_int64(par, limbs, 3 * m);
        for (int k = 0; k < m; ++k)
            w[first + k] = vs_wide_from_limbs(&limbs[3 * k]);
    }
}

/* The exact sums over all ranks, each rounded once. A rank whose sums are not exact (a
 * blown-up run) makes the row NaN, as its doubles would. */
static int reduce_exact(const vs_par *par, const vs_thermo_local *local, double out[])
{
    vs_wide w[VS_EXACT_SUMS + 1];
    for (int k = 0; k < VS_EXACT_SUMS; ++k)
        w[k] = vs_wide_from_limbs(local->exact[k]);
    w[VS_EXACT_SUMS] = local->exact_invalid != 0;
    vs_par_sum_wide(par, w, VS_EXACT_SUMS + 1);
    if (w[VS_EXACT_SUMS] != 0)
        return 0;
    for (int k = 0; k < VS_EXACT_SUMS; ++k)
        out[k] = vs_wide_to_double(w[k]);
    out[VS_EXACT_SUMS] = vs_wide_to_double(w[VS_EXACT_PAIR] + w[VS_EXACT_BOND] +
                                           w[VS_EXACT_ANGLE] + w[VS_EXACT_DIHEDRAL]);
    return 1;
}

/* output.pressure_tensor: the six components from the exact sums of sum m v_a v_b and the
 * virial tensor over all ranks (NaN where a rank's shares were out of range). */
static void reduce_tensor(const vs_par *par, const vs_thermo_local *local, double volume,
                          vs_thermo *out)
{
    vs_wide w[2 * VS_TENSOR + 1];
    for (int k = 0; k < 2 * VS_TENSOR; ++k)
        w[k] = vs_wide_from_limbs(local->tensor[k]);
    w[2 * VS_TENSOR] = local->tensor_invalid != 0;
    vs_par_sum_wide(par, w, 2 * VS_TENSOR + 1);
    for (int k = 0; k < VS_TENSOR; ++k)
        out->ptensor[k] = w[2 * VS_TENSOR] != 0
                              ? NAN
                              : vs_wide_to_double(w[k] + w[VS_TENSOR + k]) / volume;
}

void vs_thermo_reduce(const vs_par *par, const vs_params *prm, const vs_thermo_local *local,
                      int64_t step, vs_thermo *out)
{
    out->molecules = vs_params_molecular(prm);
    double exact[VS_EXACT_SUMS + 1]; /* the last: the potential, pair + bonded */
    if (!reduce_exact(par, local, exact))
        for (int k = 0; k <= VS_EXACT_SUMS; ++k)
            exact[k] = NAN;
    out->pair_energy = exact[VS_EXACT_PAIR];
    out->bond_energy = out->molecules ? exact[VS_EXACT_BOND] : 0.0;
    out->angle_energy = out->molecules ? exact[VS_EXACT_ANGLE] : 0.0;
    out->dihedral_energy = out->molecules ? exact[VS_EXACT_DIHEDRAL] : 0.0;
    /* the moving particles (frozen wall particles have no temperature) */
    const double n = (double)(prm->system.n_particles - prm->boundary.n_frozen);
    const double volume = prm->system.box[0] * prm->system.box[1] * prm->system.box[2];
    const double dof = vs_ensemble_dof(prm);
    out->step = step;
    out->time = (double)step * prm->integrator.dt;
    for (int d = 0; d < 3; ++d)
        out->momentum[d] = exact[VS_EXACT_PX + d];
    out->kinetic = exact[VS_EXACT_KINETIC];
    out->potential = exact[VS_EXACT_SUMS];
    out->virial = exact[VS_EXACT_VIRIAL];
    out->temperature = dof > 0.0 ? 2.0 * out->kinetic / dof : 0.0;
    out->pressure = (n * out->temperature + out->virial / 3.0) / volume;
    out->tensor = prm->output.pressure_tensor;
    if (out->tensor)
        reduce_tensor(par, local, volume, out);
}

/* sum_{t<n} t and sum_{t<n} t^2, modulo 2^64 (division done before the wrapping products). */
static void expected_tag_sums(uint64_t n, uint64_t out[2])
{
    uint64_t a = n, b = n - 1, c = 2 * n - 1;
    if (n == 0) {
        out[0] = out[1] = 0;
        return;
    }
    out[0] = (a % 2 == 0) ? (a / 2) * b : a * (b / 2);
    /* n (n-1) (2n-1) / 6: take the factor 2 from a or b and the factor 3 from a, b or c */
    if (a % 2 == 0)
        a /= 2;
    else
        b /= 2;
    if (a % 3 == 0)
        a /= 3;
    else if (b % 3 == 0)
        b /= 3;
    else
        c /= 3;
    out[1] = a * b * c;
}

int vs_integrity_sums_ok(const uint64_t global[3], int64_t n_total)
{
    uint64_t expect[2];
    expected_tag_sums((uint64_t)n_total, expect);
    return global[0] == (uint64_t)n_total && global[1] == expect[0] && global[2] == expect[1];
}

static int compare_int64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Slow path after a failed checksum: gather every tag on rank 0 and name the culprit. */
static void report_lost_or_duplicated(const vs_par *par, const vs_particles *p,
                                      int64_t n_total, int64_t step)
{
    int64_t n_found = p->n_owned;
    vs_par_sum_int64(par, &n_found, 1);
    int *counts = NULL, *displs = NULL;
    int64_t *tags = NULL;
    if (par->rank == 0) {
        counts = VS_MALLOC(sizeof(int) * (size_t)par->size);
        displs = VS_MALLOC(sizeof(int) * (size_t)par->size);
        tags = VS_MALLOC(sizeof(int64_t) * (size_t)(n_found + 1));
    }
    vs_par_gather_int64(par, p->tag, (int)p->n_owned, tags, counts, displs, 0);
    if (par->rank == 0) {
        int64_t *sorted = VS_MALLOC(sizeof(int64_t) * (size_t)(n_found + 1));
        for (int64_t k = 0; k < n_found; ++k)
            sorted[k] = tags[k];
        qsort(sorted, (size_t)n_found, sizeof(int64_t), compare_int64);
        int64_t expect = 0, missing = -1, duplicate = -1;
        for (int64_t k = 0; k < n_found; ++k) {
            if (k > 0 && sorted[k] == sorted[k - 1]) {
                if (duplicate < 0)
                    duplicate = sorted[k];
                continue;
            }
            if (sorted[k] != expect && missing < 0)
                missing = expect;
            expect = sorted[k] + 1;
        }
        if (missing < 0 && expect < n_total)
            missing = expect;
        if (duplicate >= 0) {
            int ranks[2] = {-1, -1}, found = 0;
            for (int r = 0; r < par->size && found < 2; ++r)
                for (int k = 0; k < counts[r]; ++k)
                    if (tags[displs[r] + k] == duplicate) {
                        ranks[found++] = r;
                        if (found == 2)
                            break;
                    }
            vs_log_error("step %lld: particle %lld is duplicated (held by ranks %d and %d); "
                         "%lld particles found, %lld expected",
                         (long long)step, (long long)duplicate, ranks[0], ranks[1],
                         (long long)n_found, (long long)n_total);
        }
        if (missing >= 0)
            vs_log_error("step %lld: lost particles: %lld found, %lld expected; first "
                         "missing tag %lld",
                         (long long)step, (long long)n_found, (long long)n_total,
                         (long long)missing);
        free(sorted);
        free(tags);
        free(counts);
        free(displs);
    }
}

int vs_check_integrity(const vs_par *par, const vs_particles *p, int64_t n_total,
                       int64_t step)
{
    vs_integrity_local local;
    vs_cpu_integrity_local(p, &local);
    return vs_integrity_verify(par, &local, p, n_total, step);
}

int vs_integrity_verify(const vs_par *par, const vs_integrity_local *local,
                        const vs_particles *p, int64_t n_total, int64_t step)
{
    uint64_t sums[3] = {local->count, local->tag_sum, local->tag_square_sum};
    const int64_t bad = local->bad_tag;
    if (bad >= 0)
        vs_log_error("step %lld: particle %lld has a non-finite position or velocity; the "
                     "time step is probably too large",
                     (long long)step, (long long)bad);
    vs_par_sum_uint64(par, sums, 3);
    const int lost = !vs_integrity_sums_ok(sums, n_total);
    if (lost)
        report_lost_or_duplicated(par, p, n_total, step);
    return vs_par_any(par, bad >= 0) || lost;
}
