/* Time-dependent species and connectivity in the trajectory: see h5md_reactions.h.
 *
 * A frame's tuples are gathered nowhere: each rank writes its slab's rows at the offset an
 * exclusive scan gives, as the fixed connectivity does, into the frame's row of a dataset
 * whose tuple dimension grows to the largest count so far. Rows a frame does not fill read as
 * the fill value (-1 for ids, 0 for types), which HDF5 supplies for elements never written. */
#include "h5md_reactions.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h5util.h"
#include "log.h"

#define RX_CHUNK_ROWS 4096 /* tuples per chunk of a frame */
#define RX_CHUNK_PARTICLES 65536

static const char *const TUPLE_GROUPS[3] = {"connectivity/bonds", "connectivity/angles",
                                            "connectivity/dihedrals"};
static const char *const TYPE_GROUPS[3] = {"parameters/vesica/bond_type",
                                           "parameters/vesica/angle_type",
                                           "parameters/vesica/dihedral_type"};
static const char *const PARTICLE_GROUPS[2] = {"particles/all/species",
                                               "particles/all/molecule"};

/* A time-dependent element `name` under parent: step and time linked to position's, and an
 * empty value of per-frame shape inner[0 .. rank-1) (inner[0] unlimited with grow), chunked
 * by frame, whose unwritten elements read as *fill. */
static int td_element(hid_t parent, const char *name, hid_t position, hid_t type, int rank,
                      const hsize_t *inner, int grow, const void *fill)
{
    hid_t g = H5Gcreate2(parent, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0)
        return -1;
    int rc = H5Lcreate_hard(position, "step", g, "step", H5P_DEFAULT, H5P_DEFAULT) < 0;
    rc |= H5Lcreate_hard(position, "time", g, "time", H5P_DEFAULT, H5P_DEFAULT) < 0;
    hsize_t dims[3] = {0, 0, 0}, maxd[3] = {H5S_UNLIMITED, 0, 0}, chunk[3] = {1, 1, 1};
    for (int k = 1; k < rank; ++k) {
        dims[k] = grow && k == 1 ? 0 : inner[k - 1];
        maxd[k] = grow && k == 1 ? H5S_UNLIMITED : inner[k - 1];
        chunk[k] = inner[k - 1] > 0 ? inner[k - 1] : 1;
    }
    if (grow)
        chunk[1] = RX_CHUNK_ROWS;
    else if (chunk[1] > RX_CHUNK_PARTICLES)
        chunk[1] = RX_CHUNK_PARTICLES;
    hid_t space = H5Screate_simple(rank, dims, maxd);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    rc |= H5Pset_chunk(dcpl, rank, chunk) < 0;
    rc |= H5Pset_fill_value(dcpl, type, fill) < 0;
    hid_t d = H5Dcreate2(g, "value", type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    rc |= d < 0;
    if (d >= 0)
        H5Dclose(d);
    H5Pclose(dcpl);
    H5Sclose(space);
    H5Gclose(g);
    return rc ? -1 : 0;
}

/* The group at `path`, created where missing (the fixed layout may have made it). */
static hid_t open_or_make(hid_t f, const char *path)
{
    if (H5Lexists(f, path, H5P_DEFAULT) > 0)
        return H5Gopen2(f, path, H5P_DEFAULT);
    return H5Gcreate2(f, path, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
}

int vs_h5md_rx_layout(hid_t f, const vs_params *prm)
{
    int rc = 0;
    hid_t position = H5Gopen2(f, "particles/all/position", H5P_DEFAULT);
    hid_t all = H5Gopen2(f, "particles/all", H5P_DEFAULT);
    const hsize_t n = (hsize_t)prm->system.n_particles;
    const int32_t no_species = -1, no_type = 0;
    const int64_t no_id = -1, no_mol = 0;
    rc |= td_element(all, "species", position, H5T_NATIVE_INT32, 2, &n, 0, &no_species);
    rc |= td_element(all, "molecule", position, H5T_NATIVE_INT64, 2, &n, 0, &no_mol);
    if (rc == 0) { /* the species' names, as on the fixed dataset */
        hid_t sp = H5Gopen2(all, "species", H5P_DEFAULT);
        const char *names[VS_MAX_SPECIES];
        for (int s = 0; s < prm->species.n; ++s)
            names[s] = prm->species.list[s].name;
        rc |= sp < 0 || vs_h5_attr_strings(sp, "names", names, prm->species.n) != 0;
        if (sp >= 0)
            H5Gclose(sp);
    }
    hid_t conn = open_or_make(f, "connectivity");
    hid_t params = open_or_make(f, "parameters");
    hid_t vesica = open_or_make(f, "parameters/vesica");
    hobj_ref_t ref;
    rc |= H5Rcreate(&ref, f, "/particles/all", H5R_OBJECT, -1) < 0;
    for (int k = 0; k < 3 && rc == 0; ++k) {
        const hsize_t inner[2] = {0, (hsize_t)(2 + k)};
        const char *leaf = strrchr(TUPLE_GROUPS[k], '/') + 1;
        rc |= td_element(conn, leaf, position, H5T_NATIVE_INT64, 3, inner, 1, &no_id);
        rc |= td_element(vesica, strrchr(TYPE_GROUPS[k], '/') + 1, position, H5T_NATIVE_INT32,
                         2, inner, 1, &no_type);
        hid_t g = H5Gopen2(conn, leaf, H5P_DEFAULT);
        hid_t scalar = H5Screate(H5S_SCALAR);
        hid_t a = g < 0 ? -1
                        : H5Acreate2(g, "particles_group", H5T_STD_REF_OBJ, scalar, H5P_DEFAULT,
                                     H5P_DEFAULT);
        rc |= a < 0 || H5Awrite(a, H5T_STD_REF_OBJ, &ref) < 0;
        if (a >= 0)
            H5Aclose(a);
        H5Sclose(scalar);
        if (g >= 0)
            H5Gclose(g);
    }
    H5Gclose(vesica);
    H5Gclose(params);
    H5Gclose(conn);
    H5Gclose(all);
    H5Gclose(position);
    return rc ? -1 : 0;
}

/* Whether `path` is a group (a time-dependent element of this file's layout). */
static int is_group(hid_t f, const char *path)
{
    if (H5Lexists(f, path, H5P_DEFAULT) <= 0)
        return 0;
    hid_t o = H5Oopen(f, path, H5P_DEFAULT);
    const int g = o >= 0 && H5Iget_type(o) == H5I_GROUP;
    if (o >= 0)
        H5Oclose(o);
    return g;
}

int vs_h5md_rx_set_frames(hid_t f, hsize_t frames)
{
    if (!is_group(f, "particles/all/molecule"))
        return 0;
    int rc = 0;
    char path[96];
    for (int k = 0; k < 2; ++k) {
        snprintf(path, sizeof path, "%s/value", PARTICLE_GROUPS[k]);
        rc |= vs_h5_extend(f, path, frames, 0) < 0;
    }
    for (int k = 0; k < 3; ++k) {
        snprintf(path, sizeof path, "%s/value", TUPLE_GROUPS[k]);
        rc |= vs_h5_extend(f, path, frames, 0) < 0;
        snprintf(path, sizeof path, "%s/value", TYPE_GROUPS[k]);
        rc |= vs_h5_extend(f, path, frames, 0) < 0;
    }
    return rc ? -1 : 0;
}

/* This frame's tuples of one arity: the tuple dimension grown to the count, each rank's rows
 * at its offset. */
static int write_tuples(hid_t f, hid_t dxpl, const vs_par *par, hsize_t frame, int k,
                        const vs_particle_rec *slab, const vs_topo *topo,
                        const vs_dihedrals *dih, int64_t n)
{
    const int arity = 2 + k;
    int64_t *ids = NULL;
    int32_t *types = NULL;
    const int64_t mine = vs_h5md_local_tuples(slab, topo, dih, n, arity, &ids, &types);
    const int64_t row0 = vs_par_exscan_int64(par, mine);
    int64_t count = mine;
    vs_par_sum_int64(par, &count, 1);
    char vpath[96], tpath[96];
    snprintf(vpath, sizeof vpath, "%s/value", TUPLE_GROUPS[k]);
    snprintf(tpath, sizeof tpath, "%s/value", TYPE_GROUPS[k]);
    int rc = vs_h5_extend(f, vpath, frame + 1, (hsize_t)count) < 0 ||
             vs_h5_extend(f, tpath, frame + 1, (hsize_t)count) < 0;
    hid_t d = H5Dopen2(f, vpath, H5P_DEFAULT), t = H5Dopen2(f, tpath, H5P_DEFAULT);
    rc |= d < 0 || vs_h5_write_rows(d, H5T_NATIVE_INT64, dxpl, 1, frame, (hsize_t)row0,
                                    (hsize_t)mine, (hsize_t)arity, ids) != 0;
    rc |= t < 0 || vs_h5_write_rows(t, H5T_NATIVE_INT32, dxpl, 1, frame, (hsize_t)row0,
                                    (hsize_t)mine, 1, types) != 0;
    if (d >= 0)
        H5Dclose(d);
    if (t >= 0)
        H5Dclose(t);
    free(ids);
    free(types);
    return rc ? -1 : 0;
}

int vs_h5md_rx_frame(hid_t f, hid_t dxpl, const vs_par *par, hsize_t frame,
                     const vs_particle_rec *slab, const vs_topo *topo, const vs_dihedrals *dih,
                     int64_t n, int64_t lo)
{
    int rc = 0;
    int32_t *sp = VS_MALLOC(sizeof(int32_t) * (size_t)(n > 0 ? n : 1));
    int64_t *mol = VS_MALLOC(sizeof(int64_t) * (size_t)(n > 0 ? n : 1));
    for (int64_t i = 0; i < n; ++i) {
        sp[i] = slab[i].species;
        mol[i] = topo[i].mol;
    }
    const void *rows[2] = {sp, mol};
    const hid_t types[2] = {H5T_NATIVE_INT32, H5T_NATIVE_INT64};
    for (int k = 0; k < 2; ++k) {
        char path[96];
        snprintf(path, sizeof path, "%s/value", PARTICLE_GROUPS[k]);
        hid_t d = H5Dopen2(f, path, H5P_DEFAULT);
        rc |= d < 0 || vs_h5_write_rows(d, types[k], dxpl, 1, frame, (hsize_t)lo, (hsize_t)n,
                                        1, rows[k]) != 0;
        if (d >= 0)
            H5Dclose(d);
    }
    free(sp);
    free(mol);
    for (int k = 0; k < 3; ++k) /* every rank takes part in every arity's writes */
        rc |= write_tuples(f, dxpl, par, frame, k, slab, topo, dih, n);
    return rc ? -1 : 0;
}
