/* The staged exchange: what every ghost and migration exchange shares, host and device.
 *
 * Stage d (x, then y, then z) sends towards the lower neighbour (direction 0) and the upper
 * one (direction 1). A message that crosses the periodic boundary carries coordinate d
 * shifted by the box, so the receiver sees a periodic image; a dimension with one rank
 * exchanges with itself (no MPI) and its ghosts are its own periodic images.
 */
#ifndef VESICA_EXCHANGE_H
#define VESICA_EXCHANGE_H

#include "decomp.h"

/* shift[d][dir]: what stage d adds to coordinate d of the records it sends in direction dir
 * (0: towards the lower neighbour, +L from the bottom brick; 1: towards the upper one, -L
 * from the top brick; 0 elsewhere). */
void vs_exchange_shifts(const vs_decomp *dc, double shift[3][2]);

#endif
