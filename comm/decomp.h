/* Cartesian spatial decomposition: the box is cut into px * py * pz bricks, one per rank.
 *
 * The factorisation minimises the ghost surface (the area of one brick's faces, which sets the
 * halo volume each rank imports every step) for the box's shape; `decomposition = [px,py,pz]`
 * overrides it. Brick bounds are computed from the integer coordinates with one expression,
 * so two neighbours agree bit for bit on their common face.
 */
#ifndef VESICA_DECOMP_H
#define VESICA_DECOMP_H

#include <stddef.h>

#include "parallel.h"

typedef struct vs_decomp {
    vs_par cart;             /* periodic Cartesian communicator */
    int dims[3];             /* ranks per dimension */
    int coords[3];           /* this rank's brick */
    int lower[3], upper[3];  /* neighbour ranks in -d and +d (may be this rank) */
    double box[3];           /* global box edges */
    double lo[3], hi[3];     /* this brick: lo <= x < hi */
    int wall[3];             /* 1: walls at the box's faces along d (not periodic): nothing
                                crosses them (exchange.c); 0 by default */
} vs_decomp;

/* Choose dims for `nranks` ranks (requested all zero = automatic). Every brick must be at least
 * `min_width` wide (the ghost width). Returns 0, or VS_EXIT_BAD_INPUT with one line in err. */
int vs_decomp_choose(const double box[3], int nranks, const int requested[3], double min_width,
                     int dims[3], char *err, size_t err_len);

/* Build the Cartesian communicator and this rank's brick. Collective over par. */
void vs_decomp_create(vs_decomp *d, const vs_par *par, const double box[3], const int dims[3]);
void vs_decomp_destroy(vs_decomp *d);

/* Whether direction dir (0: down, 1: up) of dimension k leaves the box through a wall. */
static inline int vs_decomp_at_wall(const vs_decomp *d, int k, int dir)
{
    return d->wall[k] && d->coords[k] == (dir == 0 ? 0 : d->dims[k] - 1);
}

/* Lower face of brick `c` of `n` along an edge of length `len` (shared by both neighbours). */
static inline double vs_decomp_face(double len, int c, int n)
{
    return c == n ? len : len * (double)c / (double)n;
}

#endif
