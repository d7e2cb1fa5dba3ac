/* How long one GPU's stream takes to see another process's GPU finish a kernel: the signal
 * latency that orders the slab exchange's two waits per step (gpu/gpu_slab.cu).
 *
 * Two ranks, one GPU each, ping-pong ROUNDS times, every round queued ahead by the hosts:
 * rank 0 runs a one-thread kernel and signals, rank 1 waits for the signal, runs the same
 * kernel and signals back. One way = the round trip / 2 less one kernel. The signals:
 *   event     an interprocess event recorded after the kernel; the peer's stream waits on it
 *             (cudaStreamWaitEvent), after an MPI message that says it was recorded (what
 *             the peer transport does today)
 *   pull      cuStreamWriteValue64 to a word in the signaller's own memory; the peer's stream
 *             waits on that word across the link (cuStreamWaitValue64 GEQ)
 *   push      cuStreamWriteValue64 to a word in the waiter's memory (mapped by IPC); the
 *             waiter's stream waits on its own memory
 *   kpush     the kernel itself stores the word into the waiter's memory after a system fence;
 *             the waiter's stream waits on its own memory
 * and, as the floor, `local`: both kernels on one stream of one GPU, no signal.
 *
 * mpiexec -n 2 build/vesica_peer_signal [ROUNDS]   (prints one line per signal)
 */
#include <cuda.h>
#include <cuda_runtime.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(x)                                                                                   \
    do {                                                                                           \
        cudaError_t e_ = (x);                                                                      \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));            \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                          \
        }                                                                                          \
    } while (0)

typedef CUresult (*value64_fn)(CUstream, CUdeviceptr, cuuint64_t, unsigned int);
static value64_fn write_value64, wait_value64;

static void check_cu(CUresult rc, const char *what) {
    if (rc != CUDA_SUCCESS) {
        fprintf(stderr, "%s failed: CUresult %d\n", what, (int)rc);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

__global__ void tick(unsigned long long *sink) { *sink += 1; }

/* The kernel and, from thread 0 after a system-scope fence, the signal's count in the
 * waiter's memory. */
__global__ void tick_and_store(unsigned long long *sink, unsigned long long *remote,
                               unsigned long long count) {
    *sink += 1;
    __threadfence_system();
    *(volatile unsigned long long *)remote = count;
}

enum { EVENT, PULL, PUSH, KPUSH, KINDS };
static const char *const names[KINDS] = {"event", "pull", "push", "kpush"};

static double run(int kind, int rank, int rounds, cudaStream_t s, unsigned long long *sink,
                  uint64_t *mine, uint64_t *theirs) {
    const int peer = 1 - rank;
    cudaEvent_t ev_mine, ev_theirs = NULL;
    CHECK(cudaEventCreateWithFlags(&ev_mine, cudaEventInterprocess | cudaEventDisableTiming));
    cudaIpcEventHandle_t hm, ht;
    CHECK(cudaIpcGetEventHandle(&hm, ev_mine));
    MPI_Sendrecv(&hm, sizeof hm, MPI_BYTE, peer, 1, &ht, sizeof ht, MPI_BYTE, peer, 1,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(cudaIpcOpenEventHandle(&ev_theirs, ht));
    CHECK(cudaMemsetAsync(mine, 0, 2 * sizeof(uint64_t), s));
    CHECK(cudaStreamSynchronize(s));
    MPI_Barrier(MPI_COMM_WORLD);
    cudaEvent_t t0, t1;
    CHECK(cudaEventCreate(&t0));
    CHECK(cudaEventCreate(&t1));
    const double h0 = MPI_Wtime();
    CHECK(cudaEventRecord(t0, s));
    /* word 0 of each rank's block: pushes into it; word 1: its own pulls' source */
    for (int i = 1; i <= rounds; ++i) {
        for (int turn = 0; turn < 2; ++turn) {
            const int me = turn == rank; /* rank 0 goes first in each round */
            if (me) {
                if (kind == KPUSH)
                    tick_and_store<<<1, 1, 0, s>>>(sink, (unsigned long long *)theirs, i);
                else
                    tick<<<1, 1, 0, s>>>(sink);
                if (kind == EVENT) {
                    CHECK(cudaEventRecord(ev_mine, s));
                    MPI_Send(&i, 1, MPI_INT, peer, 2, MPI_COMM_WORLD);
                } else if (kind == PULL) {
                    check_cu(write_value64((CUstream)s, (CUdeviceptr)(mine + 1), i, 0), "write");
                } else if (kind == PUSH) {
                    check_cu(write_value64((CUstream)s, (CUdeviceptr)theirs, i, 0), "write");
                }
            } else {
                if (kind == EVENT) {
                    int got = 0;
                    MPI_Recv(&got, 1, MPI_INT, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    CHECK(cudaStreamWaitEvent(s, ev_theirs, 0));
                } else if (kind == PULL) {
                    check_cu(wait_value64((CUstream)s, (CUdeviceptr)(theirs + 1), i,
                                          CU_STREAM_WAIT_VALUE_GEQ),
                             "wait");
                } else {
                    check_cu(
                        wait_value64((CUstream)s, (CUdeviceptr)mine, i, CU_STREAM_WAIT_VALUE_GEQ),
                        "wait");
                }
            }
        }
    }
    CHECK(cudaEventRecord(t1, s));
    const double h1 = MPI_Wtime();
    CHECK(cudaStreamSynchronize(s));
    float ms = 0.0f;
    CHECK(cudaEventElapsedTime(&ms, t0, t1));
    if (rank == 0 && h1 - h0 > 1e-3 * ms)
        fprintf(stderr, "%s: the host took %.3f ms to queue, the stream %.3f ms\n", names[kind],
                1e3 * (h1 - h0), ms);
    CHECK(cudaEventDestroy(t0));
    CHECK(cudaEventDestroy(t1));
    CHECK(cudaEventDestroy(ev_mine));
    CHECK(cudaEventDestroy(ev_theirs));
    MPI_Barrier(MPI_COMM_WORLD);
    return 1e3 * (double)ms / rounds; /* us per round trip */
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int rounds = argc > 1 ? atoi(argv[1]) : 2000;
    int gpus = 0;
    CHECK(cudaGetDeviceCount(&gpus));
    if (size != 2 || gpus < 1) {
        if (rank == 0)
            fprintf(stderr, "peer_signal: run on 2 ranks with a GPU each\n");
        MPI_Finalize();
        return 77;
    }
    CHECK(cudaSetDevice(rank % gpus));
    cudaDriverEntryPointQueryResult q[2];
    CHECK(cudaGetDriverEntryPointByVersion("cuStreamWriteValue64", (void **)&write_value64, 12000,
                                           cudaEnableDefault, &q[0]));
    CHECK(cudaGetDriverEntryPointByVersion("cuStreamWaitValue64", (void **)&wait_value64, 12000,
                                           cudaEnableDefault, &q[1]));
    if (q[0] != cudaDriverEntryPointSuccess || q[1] != cudaDriverEntryPointSuccess) {
        fprintf(stderr, "peer_signal: no stream memory operations\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    unsigned long long *sink;
    uint64_t *mine, *theirs;
    CHECK(cudaMalloc((void **)&sink, sizeof *sink));
    CHECK(cudaMalloc((void **)&mine, 4096));
    cudaIpcMemHandle_t hm, ht;
    CHECK(cudaIpcGetMemHandle(&hm, mine));
    MPI_Sendrecv(&hm, sizeof hm, MPI_BYTE, 1 - rank, 0, &ht, sizeof ht, MPI_BYTE, 1 - rank, 0,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(cudaIpcOpenMemHandle((void **)&theirs, ht, cudaIpcMemLazyEnablePeerAccess));

    /* the floor: two kernels in a row on one stream */
    cudaEvent_t t0, t1;
    CHECK(cudaEventCreate(&t0));
    CHECK(cudaEventCreate(&t1));
    tick<<<1, 1, 0, s>>>(sink);
    CHECK(cudaEventRecord(t0, s));
    const double q0 = MPI_Wtime();
    for (int i = 0; i < 2 * rounds; ++i)
        tick<<<1, 1, 0, s>>>(sink);
    CHECK(cudaEventRecord(t1, s));
    const double q1 = MPI_Wtime();
    CHECK(cudaStreamSynchronize(s));
    float ms = 0.0f;
    CHECK(cudaEventElapsedTime(&ms, t0, t1));
    const double kernel_us = 1e3 * (double)ms / (2 * rounds);
    if (rank == 0)
        printf(
            "local: %.2f us per kernel (one stream, no signal; the host queued one in %.2f us)\n",
            kernel_us, 1e6 * (q1 - q0) / (2 * rounds));
    for (int pass = 0; pass < 2; ++pass)
        for (int kind = 0; kind < KINDS; ++kind) {
            const double rt = run(kind, rank, rounds, s, sink, mine, theirs);
            if (rank == 0)
                printf("%-6s pass %d: round trip %.2f us, one way %.2f us beyond a kernel\n",
                       names[kind], pass, rt, rt / 2 - kernel_us);
        }
    CHECK(cudaIpcCloseMemHandle(theirs));
    MPI_Finalize();
    return 0;
}
