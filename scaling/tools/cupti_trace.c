/* A timeline of every kernel, copy and memset on the device, for machines without Nsight
 * Systems (a profiling aid, not part of the simulation).
 *
 * Build: cc -O2 -shared -fPIC -I$CUDA/include scaling/tools/cupti_trace.c -o libcupti_trace.so
 *        -L$CUDA/lib64 -lcupti
 * Use:   CUDA_INJECTION64_PATH=$PWD/libcupti_trace.so CUPTI_TRACE_OUT=/tmp/trace \
 *        mpiexec -n 2 build/vesica run ...
 * Each process writes CUPTI_TRACE_OUT.<rank>.csv (the rank from OMPI_COMM_WORLD_RANK or
 * PMI_RANK, else the pid): kind, start_ns, end_ns, device, stream, correlation, name;
 * CUPTI_TRACE_API=1 adds the host's runtime calls (kind `runtime`). CUPTI's timestamps
 * come from one clock on a host, so two ranks' rows can be laid side by side
 * (scaling/tools/cupti_timeline.py). */
#include <cupti.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static FILE *out;

static void check(CUptiResult rc, const char *what) {
    if (rc != CUPTI_SUCCESS) {
        const char *msg = NULL;
        cuptiGetResultString(rc, &msg);
        fprintf(stderr, "cupti_trace: %s: %s\n", what, msg ? msg : "?");
        exit(1);
    }
}

static void CUPTIAPI requested(uint8_t **buffer, size_t *size, size_t *max_records) {
    *size = 8u << 20;
    *buffer = aligned_alloc(8, *size);
    *max_records = 0;
}

static void CUPTIAPI completed(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size,
                               size_t valid) {
    (void)ctx;
    (void)stream;
    (void)size;
    CUpti_Activity *r = NULL;
    while (out && cuptiActivityGetNextRecord(buffer, valid, &r) == CUPTI_SUCCESS) {
        if (r->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL ||
            r->kind == CUPTI_ACTIVITY_KIND_KERNEL) {
            const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *)r;
            fprintf(out, "kernel,%llu,%llu,%u,%u,%u,%s\n", (unsigned long long)k->start,
                    (unsigned long long)k->end, k->deviceId, k->streamId, k->correlationId,
                    k->name);
        } else if (r->kind == CUPTI_ACTIVITY_KIND_MEMCPY) {
            const CUpti_ActivityMemcpy6 *m = (const CUpti_ActivityMemcpy6 *)r;
            fprintf(out, "memcpy,%llu,%llu,%u,%u,%u,kind%u_%llu\n", (unsigned long long)m->start,
                    (unsigned long long)m->end, m->deviceId, m->streamId, m->correlationId,
                    (unsigned)m->copyKind, (unsigned long long)m->bytes);
        } else if (r->kind == CUPTI_ACTIVITY_KIND_MEMSET) {
            const CUpti_ActivityMemset4 *m = (const CUpti_ActivityMemset4 *)r;
            fprintf(out, "memset,%llu,%llu,%u,%u,%u,bytes%llu\n", (unsigned long long)m->start,
                    (unsigned long long)m->end, m->deviceId, m->streamId, m->correlationId,
                    (unsigned long long)m->bytes);
        } else if (r->kind == CUPTI_ACTIVITY_KIND_RUNTIME ||
                   r->kind == CUPTI_ACTIVITY_KIND_DRIVER) {
            const CUpti_ActivityAPI *a = (const CUpti_ActivityAPI *)r;
            const char *name = NULL;
            cuptiGetCallbackName(r->kind == CUPTI_ACTIVITY_KIND_RUNTIME
                                     ? CUPTI_CB_DOMAIN_RUNTIME_API
                                     : CUPTI_CB_DOMAIN_DRIVER_API,
                                 a->cbid, &name);
            fprintf(out, "%s,%llu,%llu,0,0,%u,%s\n",
                    r->kind == CUPTI_ACTIVITY_KIND_RUNTIME ? "runtime" : "driver",
                    (unsigned long long)a->start, (unsigned long long)a->end, a->correlationId,
                    name ? name : "?");
        }
    }
    free(buffer);
}

/* At exit. CUPTI may still hand back buffers after this (its own teardown): they are freed
 * unread, never written to a closed file. */
static void finish(void) {
    cuptiActivityFlushAll(1);
    if (out) {
        FILE *f = out;
        out = NULL;
        fclose(f);
    }
}

int InitializeInjection(void) {
    const char *prefix = getenv("CUPTI_TRACE_OUT");
    const char *rank = getenv("OMPI_COMM_WORLD_RANK");
    if (!rank)
        rank = getenv("PMI_RANK");
    char name[4096], pid[32];
    snprintf(pid, sizeof pid, "%d", (int)getpid());
    snprintf(name, sizeof name, "%s.%s.csv", prefix ? prefix : "cupti_trace", rank ? rank : pid);
    out = fopen(name, "w");
    if (!out) {
        fprintf(stderr, "cupti_trace: cannot write %s\n", name);
        return 0;
    }
    fprintf(out, "kind,start_ns,end_ns,device,stream,name\n");
    check(cuptiActivityRegisterCallbacks(requested, completed), "register");
    check(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), "kernels");
    check(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY), "copies");
    check(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMSET), "memsets");
    /* the host's calls, matched to the device's work by correlation id: when each was queued */
    if (getenv("CUPTI_TRACE_API"))
        check(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_RUNTIME), "runtime calls");
    atexit(finish);
    return 1;
}
