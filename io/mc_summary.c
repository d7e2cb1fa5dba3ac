/* The Monte Carlo run's summary file: see mc_summary.h. */
#define _POSIX_C_SOURCE 200809L
#include "mc_summary.h"

#include <hdf5.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fsutil.h"
#include "h5util.h"
#include "params.h"

static int write_1d(hid_t loc, const char *name, hid_t type, hsize_t n, const void *data)
{
    hid_t sp = H5Screate_simple(1, &n, NULL);
    hid_t d = sp < 0 ? -1 : H5Dcreate2(loc, name, type, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    const int ok = d >= 0 && (n == 0 || H5Dwrite(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) >= 0);
    if (d >= 0)
        H5Dclose(d);
    if (sp >= 0)
        H5Sclose(sp);
    return ok ? 0 : -1;
}

/* The group `name` of f, created on first use. */
static hid_t group(hid_t f, const char *name)
{
    if (H5Lexists(f, name, H5P_DEFAULT) > 0)
        return H5Gopen2(f, name, H5P_DEFAULT);
    return H5Gcreate2(f, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
}

static int write_stats(hid_t f, const vs_mc_summary *s)
{
    for (int i = 0; i < s->n_stats; ++i) {
        const vs_mc_stat *st = &s->stat[i];
        hid_t g = group(f, st->group);
        const double v[2] = {st->mean, st->error};
        int bad = g < 0 || write_1d(g, st->name, H5T_NATIVE_DOUBLE, 2, v);
        if (!bad && s->liquid_rule && strcmp(st->group, "coexistence") == 0 &&
            H5Aexists(g, "liquid") == 0)
            bad = vs_h5_attr_string(g, "liquid", s->liquid_rule);
        if (g >= 0)
            H5Gclose(g);
        if (bad)
            return -1;
    }
    return 0;
}

static int write_hist(hid_t f, const vs_mc_histograms *h)
{
    hid_t g = H5Gcreate2(f, "histogram", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    const hsize_t j = (hsize_t)h->joint_len;
    const int bad = g < 0 || vs_h5_attr_double(g, "energy_bin", &h->energy_bin, 1) ||
                    write_1d(g, "count_n", H5T_NATIVE_INT64, (hsize_t)h->n_len, h->count_n) ||
                    write_1d(g, "joint_n", H5T_NATIVE_INT64, j, h->joint_n) ||
                    write_1d(g, "joint_energy_bin", H5T_NATIVE_INT64, j, h->joint_bin) ||
                    write_1d(g, "joint_count", H5T_NATIVE_INT64, j, h->joint_count);
    if (g >= 0)
        H5Gclose(g);
    return bad ? -1 : 0;
}

static int write_file(const char *tmp, const vs_mc_summary *s)
{
    hid_t f = H5Fcreate(tmp, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (f < 0)
        return -1;
    const int64_t ints[4] = {s->rows, s->blocks, s->first_cycle, s->last_cycle};
    static const char *const int_name[4] = {"rows", "blocks", "first_cycle", "last_cycle"};
    int bad = vs_h5_attr_string(f, "ensemble", s->ensemble) ||
              vs_h5_attr_double(f, "kT", &s->kT, 1);
    for (int i = 0; i < 4 && !bad; ++i)
        bad = vs_h5_attr_int64(f, int_name[i], &ints[i], 1);
    bad = bad || write_stats(f, s) || (s->hist && write_hist(f, s->hist));
    bad |= H5Fflush(f, H5F_SCOPE_GLOBAL) < 0;
    bad |= H5Fclose(f) < 0;
    return bad ? -1 : 0;
}

int vs_mc_summary_write(const char *output_dir, const vs_mc_summary *s, char *err,
                        size_t err_len)
{
    char path[VS_PATH_LEN + 32], tmp[VS_PATH_LEN + 48];
    snprintf(path, sizeof path, "%s/mc_summary.h5", output_dir);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    vs_h5_quiet();
    if (write_file(tmp, s)) {
        unlink(tmp);
        snprintf(err, err_len, "%s: cannot write the Monte Carlo summary", path);
        return -1;
    }
    return vs_rename_into_place(tmp, path, err, err_len);
}
