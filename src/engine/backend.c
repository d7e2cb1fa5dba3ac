/* Backend selection: see backend.h. */
#include "backend.h"

#include <stdio.h>
#include <string.h>

#ifdef VESICA_HAVE_CUDA
#include "gpu.h"
#endif

static void cpu_model(char *buf, size_t len)
{
    snprintf(buf, len, "cpu");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) == 0) {
            char *colon = strchr(line, ':');
            if (colon) {
                char *nl = strchr(colon, '\n');
                if (nl)
                    *nl = '\0';
                snprintf(buf, len, "cpu:%s", colon + 1);
            }
            break;
        }
    }
    fclose(f);
}

const vs_backend *vs_backend_select(vs_backend_kind kind, int n_ranks, char *device,
                                    size_t device_len, char *err, size_t err_len)
{
    if (kind == VS_BACKEND_CPU) {
        cpu_model(device, device_len);
        return &vs_backend_cpu;
    }
#ifdef VESICA_HAVE_CUDA
    char why[256] = "";
    const int n_gpus = vs_gpu_device_count(why, sizeof why);
    (void)n_ranks; /* every rank drives one GPU (shared when ranks outnumber devices) */
    if (n_gpus > 0) {
        vs_gpu_info info;
        if (vs_gpu_device_info(0, &info) == 0)
            snprintf(device, device_len, "gpu: %s", info.name);
        else
            snprintf(device, device_len, "gpu");
        return &vs_backend_gpu;
    }
    if (kind == VS_BACKEND_GPU) {
        snprintf(err, err_len, "backend: \"gpu\" requested but no GPU is usable (%s)", why);
        return NULL;
    }
#else
    (void)n_ranks;
    if (kind == VS_BACKEND_GPU) {
        snprintf(err, err_len,
                 "backend: \"gpu\" requested but this build has no CUDA support "
                 "(configure with -DVESICA_CUDA=ON on a machine with nvcc)");
        return NULL;
    }
#endif
    cpu_model(device, device_len);
    return &vs_backend_cpu;
}
