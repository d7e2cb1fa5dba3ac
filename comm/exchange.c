/* The staged exchange: see exchange.h. */
#include "exchange.h"

void vs_exchange_shifts(const vs_decomp *dc, double shift[3][2])
{
    for (int d = 0; d < 3; ++d) {
        const double len = dc->box[d];
        shift[d][0] = dc->coords[d] == 0 ? len : 0.0;
        shift[d][1] = dc->coords[d] == dc->dims[d] - 1 ? -len : 0.0;
    }
}
