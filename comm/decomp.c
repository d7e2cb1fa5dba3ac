/* Cartesian decomposition: see decomp.h.
 *
 * The search over factorisations px * py * pz = P is exhaustive (P has few divisors), and the
 * cost is the brick's total face area 2 (bx by + by bz + bz bx), which is proportional to the
 * ghost volume for a thin halo. Ties go to the first candidate in (px, py, pz) order so every
 * rank picks the same one.
 */
#include "decomp.h"

#include <stdio.h>

#include "exit_codes.h"

int vs_decomp_choose(const double box[3], int nranks, const int requested[3], double min_width,
                     int dims[3], char *err, size_t err_len)
{
    if (requested[0] > 0) {
        long prod = (long)requested[0] * requested[1] * requested[2];
        if (prod != nranks) {
            snprintf(err, err_len,
                     "decomposition: [%d, %d, %d] makes %ld bricks but the run has %d ranks",
                     requested[0], requested[1], requested[2], prod, nranks);
            return VS_EXIT_BAD_INPUT;
        }
        for (int d = 0; d < 3; ++d) {
            double w = box[d] / requested[d];
            if (w < min_width) {
                snprintf(err, err_len,
                         "decomposition: bricks along %c are %.6g wide, thinner than the ghost "
                         "width %.6g (r_c + skin, or with molecules the bonded reach + skin: "
                         "bonded.reach, twice with angles, three times with dihedrals); use "
                         "fewer ranks along %c",
                         "xyz"[d], w, min_width, "xyz"[d]);
                return VS_EXIT_BAD_INPUT;
            }
            dims[d] = requested[d];
        }
        return 0;
    }
    double best = -1.0;
    for (int px = 1; px <= nranks; ++px) {
        if (nranks % px)
            continue;
        for (int py = 1; py <= nranks / px; ++py) {
            if ((nranks / px) % py)
                continue;
            int pz = nranks / px / py;
            double bx = box[0] / px, by = box[1] / py, bz = box[2] / pz;
            if (bx < min_width || by < min_width || bz < min_width)
                continue;
            double area = bx * by + by * bz + bz * bx;
            if (best < 0.0 || area < best) {
                best = area;
                dims[0] = px;
                dims[1] = py;
                dims[2] = pz;
            }
        }
    }
    if (best < 0.0) {
        snprintf(err, err_len,
                 "decomposition: %d ranks are too many for a %.6g x %.6g x %.6g box: no brick "
                 "layout keeps every brick at least %.6g wide (r_c + skin, or with molecules the "
                 "bonded reach + skin: bonded.reach, twice with angles, three times with "
                 "dihedrals)",
                 nranks, box[0], box[1], box[2], min_width);
        return VS_EXIT_BAD_INPUT;
    }
    return 0;
}

void vs_decomp_create(vs_decomp *d, const vs_par *par, const double box[3], const int dims[3])
{
    vs_par_cart_create(&d->cart, par, dims);
    vs_par_cart_coords(&d->cart, d->coords);
    for (int k = 0; k < 3; ++k) {
        d->dims[k] = dims[k];
        d->box[k] = box[k];
        d->lo[k] = vs_decomp_face(box[k], d->coords[k], dims[k]);
        d->hi[k] = vs_decomp_face(box[k], d->coords[k] + 1, dims[k]);
        d->wall[k] = 0;
        vs_par_cart_shift(&d->cart, k, &d->lower[k], &d->upper[k]);
    }
}

void vs_decomp_destroy(vs_decomp *d) { vs_par_free(&d->cart); }
