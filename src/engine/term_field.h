/* The particle-field term's engine side (term_field.c): its checks against the grid of ranks
 * and its thermo column. The term itself is vs_term_field in the force field's registry. */
#ifndef VESICA_TERM_FIELD_H
#define VESICA_TERM_FIELD_H

#include <stddef.h>

#include "backend_table.h"
#include "params.h"
#include "parallel.h"

/* The grid of field.spacing against the box (a whole number of cells, at least 4, along
 * each edge) and the bricks of `dims` (each owns at least the halo's width of vertices along
 * each axis). Returns 0, or VS_EXIT_BAD_INPUT with one line in err. No field: 0. */
int vs_field_check_layout(const vs_params *prm, const int dims[3], char *err, size_t err_len);

/* The field energy of the last evaluation that computed energies, summed over the ranks
 * (collective; backend_state: the running backend's, CPU or GPU). NaN where a vertex's share
 * was out of the exact sums' range on the GPU (the CPU marks its thermo sums instead). */
double vs_field_energy(const vs_par *par, const vs_backend *backend, void *backend_state);

#endif
