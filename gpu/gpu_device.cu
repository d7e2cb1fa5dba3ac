/* Device discovery for `vesica info` and backend selection. Every CUDA call is checked; a
 * machine without a driver or a GPU reports zero devices and the reason. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>

extern "C" {
#include "gpu.h"
}

extern "C" int vs_gpu_device_count(char *why, size_t why_len)
{
    int n = 0;
    cudaError_t rc = cudaGetDeviceCount(&n);
    if (rc != cudaSuccess) {
        int driver = 0, runtime = 0;
        cudaDriverGetVersion(&driver); /* 0: no driver loaded */
        cudaRuntimeGetVersion(&runtime);
        char reason[256];
        if (rc == cudaErrorInsufficientDriver && driver == 0)
            snprintf(reason, sizeof reason, "no NVIDIA driver on this machine: no GPU, or its "
                     "driver is not installed; the cpu backend runs without one");
        else if (rc == cudaErrorInsufficientDriver)
            snprintf(reason, sizeof reason, "the NVIDIA driver supports CUDA %d.%d, older than "
                     "the CUDA runtime %d.%d this build needs: update the driver",
                     driver / 1000, driver % 1000 / 10, runtime / 1000, runtime % 1000 / 10);
        else if (rc == cudaErrorNoDevice)
            snprintf(reason, sizeof reason, "the driver sees no CUDA device "
                     "(CUDA_VISIBLE_DEVICES?)");
        else
            snprintf(reason, sizeof reason, "%s", cudaGetErrorString(rc));
        if (why && why_len)
            snprintf(why, why_len, "%s", reason);
        cudaGetLastError(); /* clear the sticky-free error so later calls start clean */
        return 0;
    }
    if (n == 0 && why && why_len)
        snprintf(why, why_len, "no CUDA device visible");
    return n;
}

extern "C" int vs_gpu_device_info(int index, vs_gpu_info *info)
{
    cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, index) != cudaSuccess)
        return -1;
    memset(info, 0, sizeof(*info));
    snprintf(info->name, sizeof info->name, "%s", prop.name);
    const unsigned char *u = (const unsigned char *)prop.uuid.bytes;
    snprintf(info->uuid, sizeof info->uuid,
             "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0],
             u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13],
             u[14], u[15]);
    info->major = prop.major;
    info->minor = prop.minor;
    info->total_memory = prop.totalGlobalMem;
    info->multiprocessors = prop.multiProcessorCount;
    return 0;
}

extern "C" void vs_gpu_versions(char *runtime, size_t rlen, char *driver, size_t dlen)
{
    int r = 0, d = 0;
    if (cudaRuntimeGetVersion(&r) != cudaSuccess)
        r = 0;
    if (cudaDriverGetVersion(&d) != cudaSuccess)
        d = 0;
    snprintf(runtime, rlen, "%d.%d", r / 1000, (r % 1000) / 10);
    if (d)
        snprintf(driver, dlen, "%d.%d", d / 1000, (d % 1000) / 10);
    else
        snprintf(driver, dlen, "none");
}
