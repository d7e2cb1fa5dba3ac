/* Plain C interface to the CUDA code: host files include this, never a CUDA header.
 *
 * Without CUDA compiled in (VESICA_HAVE_CUDA undefined) the functions below are not linked;
 * callers test VESICA_HAVE_CUDA first. */
#ifndef VESICA_GPU_H
#define VESICA_GPU_H

#include <stddef.h>

typedef struct {
    char name[256];
    char uuid[48];        /* GPU-xxxxxxxx-xxxx-... as nvidia-smi prints it */
    int major, minor;     /* compute capability */
    size_t total_memory;  /* bytes */
    int multiprocessors;
} vs_gpu_info;

/* Number of usable CUDA devices (0 when the driver or devices are missing); on failure
 * writes the CUDA error to why (may be NULL). */
int vs_gpu_device_count(char *why, size_t why_len);
/* Fill info for device `index`. Returns 0 on success. */
int vs_gpu_device_info(int index, vs_gpu_info *info);
/* CUDA runtime and driver versions as "13.0" strings. */
void vs_gpu_versions(char *runtime, size_t rlen, char *driver, size_t dlen);

#endif
