/* Backend selection. A backend is a table of the step's phases that the backend fills itself
 * (src/core/backend_table.h: vs_backend_cpu in src/cpu, vs_backend_gpu in gpu/); this picks
 * one at run time. `backend = "auto"` picks `gpu` when it is compiled in and a device is
 * usable, else `cpu`.
 */
#ifndef VESICA_BACKEND_H
#define VESICA_BACKEND_H

#include <stddef.h>

#include "backend_table.h"
#include "cpu_backend.h"
#include "params.h"
#ifdef VESICA_HAVE_CUDA
#include "gpu_backend.h"
#endif

/* Resolve the configured backend. Returns NULL with one line in err when it cannot run here.
 * `device` receives a description of what will run ("cpu: <model>", "gpu: <name>"). */
const vs_backend *vs_backend_select(vs_backend_kind kind, int n_ranks, char *device,
                                    size_t device_len, char *err, size_t err_len);

#endif
