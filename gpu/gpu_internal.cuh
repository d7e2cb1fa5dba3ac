/* Device state of the GPU backend and helpers shared by its .cu files (never included by
 * host C code). Arrays are structures of arrays on the device, owned particles first and
 * ghosts after, exactly as in src/core/particles.h; indices are 32-bit (a rank holds < 2^31
 * particles). */
#ifndef VESICA_GPU_INTERNAL_CUH
#define VESICA_GPU_INTERNAL_CUH

#include <cuda_runtime.h>
#include <stdint.h>

/* mpi.h before the extern "C" block, without the C++ bindings: the halo code calls the C
 * wrappers of comm/parallel.h, never MPI itself */
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

extern "C" {
#include "decomp.h"
#include "dpd_pair.h"
#include "exchange.h"
#include "gpu_backend.h"
#include "log.h"
#include "special.h"
#include "topology.h"
#include "wrap.h"
}

#include "gpu_aniso.cuh"
#include "gpu_launch.cuh"
#include "gpu_plan.cuh"
#include "gpu_slab.cuh"
#include "gpu_tensor.cuh"
#include "gpu_timing.cuh"
#include "gpu_wall.cuh"


/* Per-species tables, passed to kernels by value (a few KiB of kernel parameters). */
struct vs_gpu_species {
    int n;
    double a[VS_MAX_SPECIES][VS_MAX_SPECIES];
    double inv_mass[VS_MAX_SPECIES];
    double mass[VS_MAX_SPECIES];
    double body_force[VS_MAX_SPECIES][3];
};

#include "gpu_grid.cuh"

/* Mixed-precision positions: 32-bit fixed point relative to the brick centre, one quantum (a
 * power of two, ~1e-7 for a brick of 100) for the whole brick. fp32 relative positions lose
 * accuracy with the distance from the centre (ulp 8e-6 at 88, a 4.5e-4 relative force error
 * for one brick of 16M particles); fixed point keeps the same absolute resolution
 * everywhere, and a separation is an exact integer difference (modulo 2^32, so only its true
 * small value matters), converted to fp32 once. */
struct vs_fixed_frame {
    double center[3];
    double inv_quantum; /* quanta per length unit */
    float quantum;
};

/* Length x along d in whole quanta from the frame's centre, and back: the same arithmetic on
 * the host (upload, download) and the device; the way back is exact for a position on the
 * grid (a whole number of quanta, and so is the centre). */
__host__ __device__ __forceinline__ int vs_quantize(const vs_fixed_frame &f, int d, double x)
{
#ifdef __CUDA_ARCH__
    return (int)__double2ll_rn((x - f.center[d]) * f.inv_quantum);
#else
    return (int)llrint((x - f.center[d]) * f.inv_quantum);
#endif
}

__host__ __device__ __forceinline__ double vs_dequantize(const vs_fixed_frame &f, int d, int k)
{
    return f.center[d] + (double)k * (double)f.quantum;
}

/* The mixed-precision force inputs of one particle: its fixed-point position with the
 * species (written at `at`), which is returned; and its fp32 predicted velocity. */
__device__ __forceinline__ int4 vs_stage_position(const vs_fixed_frame &f, int64_t at, double x,
                                                  double y, double z, int32_t species,
                                                  int4 *pos)
{
    const int4 p = make_int4(vs_quantize(f, 0, x), vs_quantize(f, 1, y), vs_quantize(f, 2, z),
                             species);
    pos[at] = p;
    return p;
}

__device__ __forceinline__ void vs_store_vp(int64_t at, double vx, double vy, double vz,
                                            float4 *vel)
{
    vel[at] = make_float4((float)vx, (float)vy, (float)vz, 0.0f);
}

__device__ __forceinline__ int4 vs_stage_values(const vs_fixed_frame &f, int64_t at, double x,
                                                double y, double z, int32_t species, double vx,
                                                double vy, double vz, int4 *pos, float4 *vel)
{
    vs_store_vp(at, vx, vy, vz, vel);
    return vs_stage_position(f, at, x, y, z, species, pos);
}

/* Where the positions of owned and ghost particles live, passed to kernels by value. fp64
 * arrays x in double precision and off the position grid (npt); on the grid
 * (vs_gpu_plan.pos_q_only, x NULL) the fixed-point pos_q alone, the species in w, read as
 * the exact doubles an fp64 array would hold (vs_dequantize) and written back as the same
 * integers. */
struct vs_positions {
    double *x[3]; /* NULL on the grid */
    int4 *q;
    vs_fixed_frame frame;
};

__device__ __forceinline__ double vs_pos_get(const vs_positions &p, int d, int64_t i)
{
    if (p.x[0])
        return p.x[d][i];
    return vs_dequantize(p.frame, d, ((const int *)(p.q + i))[d]); /* one word of the four */
}

__device__ __forceinline__ void vs_pos_load(const vs_positions &p, int64_t i, double r[3])
{
    if (p.x[0]) {
        for (int d = 0; d < 3; ++d)
            r[d] = p.x[d][i];
        return;
    }
    const int4 q = p.q[i];
    r[0] = vs_dequantize(p.frame, 0, q.x);
    r[1] = vs_dequantize(p.frame, 1, q.y);
    r[2] = vs_dequantize(p.frame, 2, q.z);
}

/* Coordinate u lies in the brick's [lo, hi) along its dimension (false for NaN). The one test
 * of the migration: its leavers, its stayers, the first half-step's leaver flags and the
 * arrival check must agree bit for bit, or a particle is lost or kept twice. */
__host__ __device__ __forceinline__ bool vs_in_brick(double u, double lo, double hi)
{
    return u >= lo && u < hi;
}

/* Per-particle face flags, one byte each in the sort keys' block (free from the first
 * half-step to the cell list), written by the first half-step where every step rebuilds and
 * the state has the position in registers anyway: near[i], particle i is within the ghost
 * width of a face (an image or send-list candidate, vs_gpu_select_near_face); leaver[i], it
 * left the brick along leaver_dim (the migration's first stage over ranks). Each spares a
 * pass that reads every position again. The migration keeps near current for the particles
 * it moves and brings (vs_soa.faces); anything else that moves positions makes them stale
 * (vs_gpu_faces_current). */
struct vs_face_marks {
    uint8_t *near;   /* NULL: not kept */
    uint8_t *leaver; /* NULL: no dimension split over ranks */
    int leaver_dim;
    double lo, hi;                 /* the brick along leaver_dim */
    double lo_edge[3], hi_edge[3]; /* the ghost width inside the brick's faces */
};

__device__ __forceinline__ bool vs_near_faces(const vs_face_marks &m, const double r[3])
{
    bool near = false;
    for (int d = 0; d < 3; ++d)
        near |= r[d] < m.lo_edge[d] || r[d] >= m.hi_edge[d];
    return near;
}

/* Particle i's flags, r its position as the state holds it (vs_pos_load would return). */
__device__ __forceinline__ void vs_mark_faces(const vs_face_marks &m, int64_t i,
                                              const double r[3])
{
    m.near[i] = vs_near_faces(m, r);
    if (m.leaver) {
        /* selected, not indexed: r stays in registers (an indexed array goes to the stack) */
        const double u = m.leaver_dim == 0 ? r[0] : m.leaver_dim == 1 ? r[1] : r[2];
        m.leaver[i] = !vs_in_brick(u, m.lo, m.hi);
    }
}

/* Particle i at r (on the grid: r a whole number of quanta) of species `species`. */
__device__ __forceinline__ void vs_pos_store(const vs_positions &p, int64_t i, const double r[3],
                                             int32_t species)
{
    if (p.x[0]) {
        for (int d = 0; d < 3; ++d)
            p.x[d][i] = r[d];
        return;
    }
    vs_stage_position(p.frame, i, r[0], r[1], r[2], species, p.q);
}

/* The same for particle i, from the state arrays; without fp64 predicted velocities (vx
 * NULL: vs_gpu_plan.vp_in_vel_f) vel already holds them, and only the position is staged. */
__device__ __forceinline__ int4 vs_stage_particle(const vs_fixed_frame &f, int i,
                                                  const double *x, const double *y,
                                                  const double *z, const double *vx,
                                                  const double *vy, const double *vz,
                                                  const int32_t *species, int4 *pos,
                                                  float4 *vel)
{
    if (vx)
        vs_store_vp(i, vx[i], vy[i], vz[i], vel);
    return vs_stage_position(f, i, x[i], y[i], z[i], species[i], pos);
}

/* The separation in quanta. The quantum is a power of two, so a distance test in quanta
 * (the radius scaled by 1 / quantum^2) makes exactly the decisions of the test in lengths. */
__device__ __forceinline__ float vs_separation_quanta(int qi, int qj)
{
    return (float)(int)((unsigned)qi - (unsigned)qj);
}

/* |d|^2 with one fixed rounding, which the compiler may not contract otherwise: left to
 * itself it may contract the same source differently at different call sites, and two
 * kernels would then part in the last digits. Every pair's cut-off test and r^2 on the
 * device goes through here, so the lists, the tests and the forces make the same decisions
 * wherever they are inlined. fp32: two fused multiply-adds (the cheapest form);
 * fp64: the CPU reference's rounding, ((x^2 + y^2) + z^2) unfused (gcc for x86-64 emits no
 * FMA), so the double mode makes the reference's cut-off decisions. */
__device__ __forceinline__ float vs_norm2(float x, float y, float z)
{
    return __fmaf_rn(x, x, __fmaf_rn(y, y, __fmul_rn(z, z)));
}

__device__ __forceinline__ double vs_norm2(double x, double y, double z)
{
    return __dadd_rn(__dadd_rn(__dmul_rn(x, x), __dmul_rn(y, y)), __dmul_rn(z, z));
}

__device__ __forceinline__ float vs_separation(const vs_fixed_frame &f, int qi, int qj)
{
    return vs_separation_quanta(qi, qj) * f.quantum;
}

/* The cell-list force kernel in mixed precision sums forces in fixed point (gpu_forces.cu):
 * 2^32 quanta per force unit in 64-bit integers, left in the force arrays' storage until a
 * reader converts them (vs_force_at, vs_gpu_forces_to_double). */
#define VS_FIXED_PER_FORCE 4294967296.0

/* Component i of a force array: a double, or with `fixed_bad` (the fixed-point sums' marked
 * particle, whose pair forces blew up) a fixed-point sum, NaN for the marked particle. */
__device__ __forceinline__ double vs_force_at(const double *f, int i, const int32_t *fixed_bad)
{
    if (!fixed_bad)
        return f[i];
    if (i == *fixed_bad)
        return __longlong_as_double(0x7ff8000000000000ll); /* NaN */
    return (double)__double_as_longlong(f[i]) * (1.0 / VS_FIXED_PER_FORCE);
}

/* Verlet list layout: a particle's entries in groups of four, group q of particle i being the
 * int4 at q * stride + i (vs_list_group). A warp reads group q of 32 consecutive particles as
 * 512 contiguous bytes (one 16-byte load per lane for four partners), and a thread that has found four
 * partners writes them with one 16-byte store: the lanes of a warp find their partners at
 * different times, and one 4-byte store per partner costs an L2 request each. */
__host__ __device__ __forceinline__ int64_t vs_list_group(int64_t stride, int i, int q)
{
    return (int64_t)q * stride + i;
}

/* Entry m of particle i, as an index of the list's int32 entries. */
__host__ __device__ __forceinline__ int64_t vs_list_slot(int64_t stride, int i, int m)
{
    return (vs_list_group(stride, i, m >> 2) << 2) | (m & 3);
}

/* Width of the list: at least `n` entries, a whole number of groups. */
static inline int vs_list_width(int n) { return (n + 3) & ~3; }

/* Whether a derived copy still matches the state it was made from is a comparison of
 * version stamps, not a flag that every writer must remember to clear: each kind of change
 * bumps its counter where it happens, each derived copy records the counters it was made
 * at (vs_gpu_now, in the stamp of its maker), and is current while they are unchanged. A
 * counter never returns to an old value, so a stamp of 0 (never made) is never current. */
struct vs_gpu_versions {
    uint64_t owned;  /* owned x or vp changed by a pass that does not restage them: the first
                        half-step (which may restage), the migration's wrap, the Morton
                        reorder, an upload */
    uint64_t step;   /* a new step's state: the first half-step, the migration, an upload */
    uint64_t forces; /* a force evaluation consumed the staged inputs */
    uint64_t list;   /* a Verlet list was built */
    uint64_t slots;  /* the owned slots' tags, records or bond counts changed: an upload, a
                        migration across ranks, a Morton reorder, a reaction's store */
};

struct vs_gpu_when {
    uint64_t step, forces;
};

struct vs_gpu_stamps {
    uint64_t owned_staged; /* ver.owned when pos_q/vel_f of the owned particles were written */
    vs_gpu_when staged;    /* when pos_q/vel_f of all particles were written (staging, or a
                              list build that staged) */
    vs_gpu_when energies;  /* when the forces wrote the energy and virial buffers */
    uint64_t split;        /* ver.list at the interior/border split */
    uint64_t faces;        /* ver.owned when the face flags were current (vs_face_marks) */
    uint64_t wrapped;      /* ver.step at which the first half-step wrapped the owned
                              particles (the migration then skips its wrap) */
    uint64_t marks;        /* ver.slots when the owned beads' bond marks were made */
    uint64_t owned_map;    /* ver.slots when the tag map was made of the owned beads alone
                              (vs_gpu_bonded_index: one rank) */
};

/* The state in parts, each written by the file named with it (its contents may be read
 * anywhere; device arrays are written by the kernels of the steps that own them). */

/* Particles (gpu_state.cu allocates and uploads; the integrator moves them, the migration
 * (gpu_halo.cu) changes the owned set, the Morton reorder (gpu_cells.cu) permutes it). */
struct vs_gpu_particles {
    int64_t n_owned, n_ghost, capacity;
    int owned_on_device;    /* the slab path's number is at *d_owned (vs_gpu_owned) and */
    const int32_t *d_owned; /* n_owned a bound, till vs_gpu_settle_owned (gpu_slab.cu) */
    int64_t capacity_owned; /* of v, f and image, which ghosts never have */
    double *x[3]; /* NULL where fs.pos_q is the only store (vs_gpu_plan.pos_q_only): read
                     and write positions through vs_positions (vs_gpu_positions) */
    double *v[3], *f[3], *x_build[3];
    double *vp[3]; /* NULL in mixed precision, where fs.vel_f is the predicted velocity
                      (vs_gpu_plan.vp_in_vel_f) */
    int64_t *tag;
    int32_t *species_id;
    int32_t *image[3];
};

/* Sorting (gpu_cells.cu; gpu_state.cu sizes the buffers). */
struct vs_gpu_sorting {
    void *sort_keys; /* one block: key_in and key_out are its halves, in either order; the
                        permutation scratch of the Morton reorder, once it has sorted */
    uint32_t *key_in, *key_out, *idx_in, *idx_out;
    void *idx_block; /* the Newton path: idx_in and idx_out are its halves, in either order
                        (elsewhere the sorted indices trade places with the cell list) */
    void *cub_temp;
    size_t cub_temp_bytes;
    void *scratch; /* capacity * 8 bytes, the energy buffer off the Newton path; else NULL */
    int64_t n_rebuilds; /* counts rebuilds, for the periodic Morton reordering, */
    int every, key_bits; /* every that many (VESICA_GPU_REORDER_EVERY; 0: gpu_cells.cu's) */
};

/* Ghosts and migration (gpu_halo.cu). */
struct vs_gpu_halo {
    /* send lists per stage and direction */
    int32_t *send_idx[3][2];
    int64_t n_send[3][2], n_recv[3][2], recv_start[3][2], cap_send[3][2];
    double shift[3][2];
    int32_t *ghost_cand;     /* ghost candidates of stages y and z: owned particles near a
                                face, then the ghosts of earlier stages (index order) */
    int64_t cap_cand;
    int32_t *d_select_count; /* 16 counters: CUB selects, the slab path's first counts */
    /* at most one dimension split over ranks (the image path): per candidate its image
     * counts and their exclusive scan (bound + 1 entries); per local image and per sent
     * record its source particle and digit code (one base-3 digit per dimension, x lowest:
     * 0 none, 1 near the lower face, 2 near the upper one) */
    int4 *img_counts, *img_offsets; /* where the cell-order copy's buffer cannot hold both */
    int4 *img_offsets_now;          /* the build's scan: in that buffer, or img_offsets */
    int64_t cap_img_counts, img_bound;
    int32_t *img_src, *img_send_src;
    uint8_t *img_code, *img_send_code;
    int64_t cap_img, cap_img_send, n_img_local;
    int64_t image_select_above; /* owned particles above which candidates are selected (2^18;
                                   tests set VESICA_GPU_IMAGE_SELECT_ABOVE to cover both) */
    int64_t candidates_from;    /* one rank's on-device pass lists its candidates from here
                                   (2^19; VESICA_GPU_IMAGE_CANDIDATES_FROM, the tests' 0) */
    /* one rank up to 2^22 particles at skin 0 (vs_gpu_build_images): room for every image
     * an owned particle can have is reserved, the image pass writes the ghosts' number to
     * d_ghosts, and the step's later kernels read it there; the host learns it only where it
     * waits anyway (vs_gpu_settle_ghosts), so the step has no read-back */
    int32_t *d_ghosts;
    /* d_ghosts is one of the first two; the pass takes them in turns, clearing the other for
     * its next turn (other_clear: the other word is zero, nothing wrote it since); the two
     * after them count the pass's candidates, in the same turns */
    int32_t *d_ghost_words;
    int other_clear;
    int ghosts_on_device;   /* pt.n_ghost is 0 and the number is in d_ghosts */
    int64_t ghost_estimate; /* from the last number read back (-1: none yet): the grids' size */
    int on_device_allowed;  /* VESICA_GPU_GHOSTS_ON_DEVICE=0 clears it (the tests compare) */
    int64_t fixed_estimate; /* VESICA_GPU_GHOST_ESTIMATE (-1: unset): the tests' 0 makes the
                               kernels stride over every ghost */
    /* the migration's arrival check: smallest tag found outside its brick, read back with
     * the ghosts' counts */
    unsigned long long *d_outside, *h_outside;
    int outside_pending;
    int64_t outside_step;
};

/* Ranks (gpu_transport.cu): the brick's neighbours and how each stage's bytes travel. */
struct vs_gpu_transport {
    const vs_decomp *dc;
    int link[3];                 /* per dimension: VS_LINK_SELF or a vs_transport_kind */
    char *d_send, *d_recv;       /* device staging of packed records, both directions */
    size_t d_send_cap, d_recv_cap;
    char *h_send, *h_recv;       /* pinned host staging (host transport) */
    size_t h_send_cap, h_recv_cap;
    cudaIpcMemHandle_t send_handle; /* d_send exported to peers (peer transport) */
    int send_generation;         /* bumps when d_send is reallocated */
    /* peer transport, in stream order without host synchronisations: `packed` is recorded
     * when d_send holds a stage's records, `read` when this rank has copied what its peers
     * sent; both are exported, and peers wait on them in their own streams */
    cudaEvent_t ev_packed, ev_read;
    cudaIpcEventHandle_t packed_handle, read_handle;
    int peer_events;             /* the events exist */
    /* the slab path's ghost records (gpu_slab.cu), a second exported buffer: a count word
     * per direction, then each direction's records */
    char *d_ghost_send;
    size_t d_ghost_send_cap;
    cudaIpcMemHandle_t ghost_handle;
    int ghost_generation;
    /* the slab path's signals: a word per buffer and direction, exported; a neighbour writes
     * an exchange's number there once its records are packed (vs_gpu_slab_message) */
    uint32_t *d_inbox, signal_seq[2];
    cudaIpcMemHandle_t inbox_handle;
    struct {
        int rank, generation, ghost_generation;
        char *ptr, *ghost_ptr;    /* its d_send and d_ghost_send, mapped here */
        uint32_t *inbox;          /* its signal words, mapped here */
        cudaEvent_t packed, read; /* the peer's events, opened here */
        int read_pending;         /* it copied out of our buffers: wait on `read` before reuse */
    } peer_map[6];               /* peers' send buffers opened here */
    int n_peer_map;
    int64_t halo_bytes_last;     /* bytes this rank sent in the last ghost update */
};

/* Overlap (gpu_forces.cu; comm.overlap, plan.overlap): forces on interior particles (no
 * ghost in their list) run on the low-priority bulk stream while the ghosts travel; border
 * particles after. */
struct vs_gpu_overlap {
    cudaStream_t bulk;
    cudaEvent_t ev_start, ev_local, ev_go, ev_interior, ev_comm;
    uint8_t *interior_flag;  /* per owned particle, written by the list build */
    int32_t *split_idx;      /* interior particles, then border particles */
    int64_t n_interior, n_border, cap_split;
};

/* Cell list over owned + ghosts, and the Verlet list (gpu_cells.cu). */
struct vs_gpu_cells {
    vs_gpu_grid grid;
    int64_t n_cells;
    int morton_bits; /* significant bits of the Morton codes (key_bits: of the linear index) */
    int z_first_switch; /* VESICA_GPU_Z_FIRST (the tests' switch; 0: none), read once */
    uint32_t *cell_start;     /* n_cells + 1 offsets: cell c (linear index) holds entries
                                 cell_start[c] .. cell_start[c + 1] - 1 of the list */
    int64_t cell_start_cap;   /* its allocated entries */
    uint32_t *zeroed;         /* cell_start's first n_zeroed entries were cleared in the step's
                                 image pass, which the binning then need not do */
    int64_t n_zeroed;
    int owned_binned;         /* the owned particles are binned already (vs_gpu_bin_owned) */
    uint32_t *cell_particles; /* particle indices sorted by cell (not kept by the Newton
                                 path, whose cell_pos holds them) */
    int4 *cell_pos;           /* the list: fixed-point positions and indices, by cell */
    int32_t *cell_rank;       /* each particle's entry in the list (the Newton path) */
    /* with VS_GPU_OVERLAP_REMOTE_APART the list holds the owned particles and their local
     * images only, so that the pairs among them need nothing from other ranks; the remote
     * ghosts, which come after them, add their pairs apart (vs_newton_remote_kernel) */
    int64_t n_listed;         /* particles in the cell list: [0, n_listed) */
    /* neighbour list: ELL in groups of four entries (vs_list_slot); max_neighbors, its width,
     * is a multiple of four */
    int32_t *nlist, *ncount;
    int max_neighbors;
    int64_t nl_stride;
    int32_t *d_max_count;
};

/* Force inputs and results (gpu_forces.cu). */
struct vs_gpu_force_state {
    /* inputs in mixed precision: fixed-point position relative to the brick centre +
     * species, and the fp32 predicted velocity. pos_q of the owned particles holds their
     * current x while vs_gpu_owned_staged: the mixed first half-step writes it with the new
     * state (the staging pass then reads 16 bytes per owned particle instead of 28), and
     * the migration carries it along. In mixed precision vel_f is the only store of the
     * predicted velocity of every owned and ghost particle (vs_gpu_plan.vp_in_vel_f), kept
     * current by whatever writes or moves it; in double precision (the warp builder) it is
     * staged from vp with pos_q */
    vs_fixed_frame frame;
    int4 *pos_q;
    float4 *vel_f;
    /* pair-RNG signature of every owned and ghost particle at the step being evaluated
     * (tea_rng.h): computed once per particle and step, read for every pair */
    uint64_t *sig;
    /* per-particle energy and virial (thermo steps only) live in buffers that are idle from
     * the forces to the thermo reduction (vs_gpu_energy_buf, vs_gpu_virial_buf;
     * vs_gpu_energies_current) */
    int64_t energy_count; /* entries of those buffers the last forces wrote */
    int32_t *d_bad_force; /* lowest index of a particle with a blown-up pair force
                             (Newton kernel; 0x7f7f7f7f: none) */
    int forces_fixed;     /* f holds the Newton kernel's fixed-point sums */
};

/* The first failure of a bonded kernel (VS_BONDED_* of bonded.h): its kind is also written
 * into the word read back with the largest displacement on every step (vs_gpu_reductions),
 * so no step pays a read-back of its own. */
struct vs_gpu_bonded_error {
    long long step, tag_a, tag_b;
    double r, r0;
};

/* Molecules (gpu_bonded.cu, gpu_topo.cu; allocated only when the configuration has them, so
 * a plain fluid's memory and speed are unchanged). Topology records for the beads that have
 * one only (a bead of a molecule; a solvent bead has none): topo[0 .. n_rec) (and dih beside
 * it where the run has dihedrals), each knowing its slot (rec_slot, -1: a hole left by a
 * leaver), each owned slot its record (slot_rec, -1: none). A reorder or a migration moves
 * 4-byte indices, not records; the records are compacted into slot order at the Morton
 * reorder (holes dropped), and arrivals append theirs. mark: one byte per slot, its bead's
 * bond count (non-zero: a bonded bead), owned or ghost: the owned marks are made from the
 * records at every ghost build (vs_gpu_bonded_marks), the ghosts' travel with them (a ghost
 * record's pad word, as on the host path); the ghost selects give marked beads the bonded
 * width. The tag map over the marked owned + ghost beads only (open addressing, capacity a
 * power of two, at most half full, sized by their count; where the ghosts' number stays on
 * the device, one rank, over the owned ones, sized by the records), rebuilt after every ghost
 * build; where a tag has several copies the lowest index wins. */
struct vs_gpu_bonded {
    int on;                 /* the configuration has molecules */
    int dih_on;             /* and dihedral types: dih is kept beside topo */
    vs_topo *topo;          /* records; cap_rec of them */
    vs_dihedrals *dih;      /* one per record where the run has dihedrals; else NULL */
    vs_topo *topo_spare;    /* the compaction's target, swapped with topo */
    vs_dihedrals *dih_spare;
    int32_t *rec_slot;      /* per record: its owned slot, or -1 */
    int32_t *slot_rec;      /* per owned slot: its record, or -1 */
    int64_t n_rec, cap_rec; /* records in use (holes included), allocated */
    uint8_t *mark;          /* per slot: the bead's bond count (0: not bonded) */
    int64_t *map_key;       /* tags; -1: empty */
    int32_t *map_val;       /* local indices */
    int64_t map_cap;
    uint64_t map_made;      /* bumped at every making of the map */
    int32_t *bond_j;        /* per record its bonds as the map resolves them, and their */
    uint32_t *bond_info;    /* count and types (gpu_bonded.cu), for bond_cap records, made */
    int64_t bond_cap;       /* at map_made and ver.slots of bond_stamp */
    uint64_t bond_stamp[2];
    /* per owned slot, written by the bonded kernels when energies are due: each bead's share
     * of the bond, angle and dihedral energies and virials */
    double *e_bond, *w_bond, *e_angle, *w_angle, *e_dihedral, *w_dihedral;
    vs_gpu_bonded_error *d_error;
    double *table[3][VS_MAX_MOLTYPES]; /* table styles' spline coefficients (bonds, angles,
                                          dihedrals by type), else NULL */
    /* the first bonded kernel of a step beside the Newton kernel (vs_gpu_bonded_fork) */
    int fork_allowed, fork_open;
    cudaStream_t side;      /* created on first use */
    cudaEvent_t fork, join;
};

/* The conservative pair styles (gpu_pair.cu; allocated on first use, so a DPD fluid's
 * memory is unchanged): coefficients and tables on the device, and per owned slot the
 * styles' energy and virial shares (thermo steps) of the walk from both sides, which the
 * thermo reduction adds (on the Newton walk the styles' shares go to the DPD buffers). */
struct vs_gpu_pair {
    vs_pair_coeff *d_coeff[VS_PAIR_STYLES]; /* 16 x 16 per style */
    vs_pair_table *d_tables;
    double *e, *w;
    int64_t cap;
    int energies_on; /* some style has written e and w */
    /* special-neighbour lists (special.h), one per owned slot, moved with the particles
     * (upload, migration, Morton reorder) when special_on (vs_special_depth > 0); else NULL */
    int special_on;
    vs_special *special;
};

/* Reductions and small read-backs (buffers from gpu_state.cu). */
struct vs_gpu_reductions {
    double *partials;
    unsigned int *d_max_disp2; /* [0]: the largest displacement's bits; [1]: the first bonded
                                  kernel failure's kind (0: none), read back with it */
    unsigned long long *d_int_sums;
    unsigned long long *d_profile; /* binned profile sums (gpu_profile.cu), made on first use */
    size_t profile_bytes;
    double *h_pinned; /* host mirror for small results */
    double *d_scale;  /* Berendsen's two factors, computed on the device (gpu_ensemble.cu) */
};

struct vs_gpu_state {
    /* set up once by vs_gpu_create (gpu_state.cu); prm is the simulation's parameters (npt
     * changes their box between steps, vs_gpu_set_box) */
    const vs_params *prm;
    vs_gpu_plan plan;       /* the strategy, decided once (gpu_plan.cu) */
    vs_gpu_species species;
    vs_dpd_consts dpd;
    vs_dpd_consts_f dpd_f;
    /* dpd.gamma per species pair (not one value for every pair): gamma_ij, then
     * sigma_ij / sqrt(dt), VS_MAX_SPECIES^2 doubles each (vs_dpd_pair_table); the DPD
     * evaluators read them from here when dpd_pairs is set, else the one value in dpd */
    int dpd_pairs;
    double *d_dpd_pairs;
    /* ghost_width: free beads' ghost shell, the list radius; bonded_width: bonded beads'
     * (molecules: the bonded terms' reach plus the skin where that is wider, else
     * ghost_width). The cell grid and the fixed-point frame cover the wider. */
    double lo[3], hi[3], center[3], ghost_width, bonded_width, list_cutoff;
    int device;
    char description[320];
    cudaStream_t stream;
    size_t bytes_allocated; /* vs_gpu_alloc, vs_gpu_free */

    vs_gpu_versions ver;    /* counters of changes (from 1), bumped where they happen */
    vs_gpu_stamps stamp;    /* what derived copies were made at (0: never) */

    vs_gpu_particles pt;
    vs_gpu_sorting sort;
    vs_gpu_halo halo;
    vs_gpu_transport tr;
    vs_gpu_overlap ovl;
    vs_gpu_cells cells;
    vs_gpu_force_state fs;
    vs_gpu_timing tm;
    vs_gpu_graph graph;
    vs_gpu_reductions red;
    vs_gpu_bonded bd;
    vs_gpu_pair ps;
    vs_gpu_slab slab;
    vs_gpu_walls_part wall;
    vs_gpu_tensor_part tensor; /* output.pressure_tensor (gpu_tensor.cu) */
    vs_gpu_aniso an; /* oriented particles (gpu_aniso.cuh) */
    struct vs_gpu_field *field; /* the MD-SCF grid (gpu_field.cu; NULL: none yet) */
};

/* The current (step, forces) versions, to stamp a derived copy with. */
static inline vs_gpu_when vs_gpu_now(const vs_gpu_state *g)
{
    vs_gpu_when w;
    w.step = g->ver.step;
    w.forces = g->ver.forces;
    return w;
}

static inline int vs_gpu_is_now(const vs_gpu_state *g, vs_gpu_when w)
{
    return w.step == g->ver.step && w.forces == g->ver.forces;
}

/* Never made: no counter is 0. */
static inline vs_gpu_when vs_gpu_never(void)
{
    vs_gpu_when w;
    w.step = w.forces = 0;
    return w;
}

/* pos_q/vel_f of the owned particles hold their current x and vp (always, where pos_q is
 * the only store of the positions). */
static inline int vs_gpu_owned_staged(const vs_gpu_state *g)
{
    return g->plan.pos_q_only || g->stamp.owned_staged == g->ver.owned;
}

/* The positions of owned and ghost particles, for kernels. */
static inline vs_positions vs_gpu_positions(const vs_gpu_state *g)
{
    vs_positions p;
    for (int d = 0; d < 3; ++d)
        p.x[d] = g->pt.x[d];
    p.q = g->fs.pos_q;
    p.frame = g->fs.frame;
    return p;
}

/* The face flags (vs_face_marks) in the sort keys' block: near always, leaver where the
 * plan names a dimension (gpu_images.cu). */
vs_face_marks vs_gpu_face_marks(const vs_gpu_state *g);

/* The face flags hold the owned particles' current positions' (marked by the first
 * half-step, kept by the migration; a reorder, wrap or upload makes them stale, and so does
 * growing the sort keys' block, vs_gpu_reserve). */
static inline int vs_gpu_faces_current(const vs_gpu_state *g)
{
    return g->stamp.faces == g->ver.owned;
}

/* pos_q/vel_f of all particles hold this step's inputs, not yet consumed by forces. */
static inline int vs_gpu_all_staged(const vs_gpu_state *g)
{
    return vs_gpu_is_now(g, g->stamp.staged);
}

/* The energy buffers hold the last forces' energies, and nothing has reused them since. */
static inline int vs_gpu_energies_current(const vs_gpu_state *g)
{
    return vs_gpu_is_now(g, g->stamp.energies);
}

/* The forces of this step are evaluated: the staged inputs are consumed, and the energy
 * buffers hold this evaluation's energies if it computed them. */
static inline void vs_gpu_forces_done(vs_gpu_state *g, int want_energy)
{
    ++g->ver.forces;
    g->stamp.energies = want_energy ? vs_gpu_now(g) : vs_gpu_never();
}

/* A dimension with one rank exchanges with itself: its ghosts are periodic images copied on
 * the device, no transport involved. */
#define VS_LINK_SELF (-1)

/* Selection predicates over particle indices (CUB select-if on a counting iterator): no flag
 * array, one read of the coordinate per particle. A leaver is outside [lo, hi) along the
 * dimension, or not finite. */
struct vs_leaver_pred {
    vs_positions pos;
    int d;
    double lo, hi;
    __device__ __forceinline__ bool operator()(int32_t i) const
    {
        return !vs_in_brick(vs_pos_get(pos, d, i), lo, hi);
    }
};

/* Per-field sum of int4 counters (the image counts' scan). */
struct vs_int4_sum {
    __host__ __device__ __forceinline__ int4 operator()(const int4 &a, const int4 &b) const
    {
        return make_int4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
    }
};

/* Room for `send` and `recv` bytes of packed records in the device staging buffers. */
void vs_gpu_comm_reserve(vs_gpu_state *g, size_t send, size_t recv);
/* Unmap peers' buffers and free the staging buffers (at destroy). */
void vs_gpu_comm_free(vs_gpu_state *g);
/* Exchange the record counts of stage d with both neighbours (host integers). */
void vs_gpu_exchange_counts(vs_gpu_state *g, int d, const int64_t n_send[2], int64_t n_recv[2]);
/* Move stage d's packed records: direction 0 sends d_send[0, send[0]) to the lower neighbour
 * and receives d_recv[0, recv[0]) from the upper one; direction 1 the reverse, from offsets
 * send[0] and recv[0]. Waits for the packing queued on the stream; the received bytes are
 * ready for kernels queued after it on the stream. */
void vs_gpu_stage_exchange(vs_gpu_state *g, int d, const size_t send[2], const size_t recv[2]);
/* A stage's messages, as vs_exchange_ops.exchange (comm/exchange.h) hands them over: the
 * counts by host MPI, the records of both directions in one batch by vs_gpu_stage_exchange.
 * The transport of every GPU exchange kind (halo, migration, field). */
void vs_gpu_exchange_transport(vs_gpu_state *g, const vs_decomp *dc, const vs_exchange_msg msg[2],
                               size_t got[2]);
/* Morton reordering of the owned particles (every few rebuilds; gpu_cells.cu), and whether
 * the next rebuild makes one. */
void vs_gpu_reorder(vs_gpu_state *g);
int vs_gpu_reorder_due(const vs_gpu_state *g);
/* The ghosts' number into pt.n_ghost where it stayed on the device (a wait and a read-back;
 * gpu_images.cu). Whatever reads pt.n_ghost outside the step's own kernels calls it first. */
void vs_gpu_settle_ghosts(vs_gpu_state *g);

/* The cell list's particles as the kernels count them, and the host's estimate of their
 * number (the grids' size; exact unless the ghosts' number is on the device). */
static inline vs_count vs_gpu_listed(const vs_gpu_state *g)
{
    vs_count c = vs_count_known(g->pt.owned_on_device ? 0 : g->cells.n_listed);
    c.more = g->pt.owned_on_device    ? g->slab.d_listed /* the slab path's: both numbers */
             : g->halo.ghosts_on_device ? g->halo.d_ghosts
                                        : NULL;
    return c;
}
/* The owned particles as the kernels count them (n_owned is a bound while owned_on_device). */
static inline vs_count vs_gpu_owned(const vs_gpu_state *g)
{
    vs_count c = vs_count_known(g->pt.owned_on_device ? 0 : g->pt.n_owned);
    c.more = g->pt.owned_on_device ? g->pt.d_owned : NULL;
    return c;
}
static inline int64_t vs_gpu_listed_estimate(const vs_gpu_state *g)
{
    return g->cells.n_listed + (g->halo.ghosts_on_device ? g->halo.ghost_estimate : 0);
}

/* Write pos_q (fixed-point position relative to the brick centre, species in w) and vel_f for all
 * owned and ghost particles, or for particles [first, first + count). */
void vs_gpu_stage_positions(vs_gpu_state *g);
void vs_gpu_stage_range(vs_gpu_state *g, int64_t first, int64_t count);
/* The force arrays as doubles (a conversion pass if they hold fixed-point sums). */
void vs_gpu_forces_to_double(vs_gpu_state *g);
/* Berendsen's half-steps (gpu_integrate.cu): per block the kinetic terms of the velocities
 * the second half's kick gives (not written), into partials[VS_SUM_MOMENTUM * block + q];
 * and the fused finish and first half with v scaled by scale[0], u by scale[1] (device). */
void vs_gpu_kicked_kinetic_partials(vs_gpu_state *g, int blocks, vs_wide *partials,
                                    unsigned int *bad);
void vs_gpu_scaled_finish_and_first_half(vs_gpu_state *g, const double *scale);

/* The marked-particle flag for kernels that read the forces (vs_force_at): NULL when the
 * force arrays hold doubles. */
static inline const int32_t *vs_gpu_fixed_bad(const vs_gpu_state *g)
{
    return g->fs.forces_fixed ? g->fs.d_bad_force : (const int32_t *)0;
}
/* Split the owned particles into interior and border for the current list (overlap). */
void vs_gpu_split_interior(vs_gpu_state *g);
/* The image path's ghost refresh in its two parts: the local images, then the exchange of
 * the remote ones (gpu_images.cu). */
void vs_gpu_update_local_images(vs_gpu_state *g);
void vs_gpu_update_remote_images(vs_gpu_state *g);

/* Per-particle energy and virial of the last forces with energies: the index block (off the
 * Newton path, the scratch) and the sort keys' block, both one double per particle of
 * capacity and used only by the migration, the reorder, the ghosts' build and the cell list
 * (not between the forces and the thermo). */
static inline double *vs_gpu_energy_buf(vs_gpu_state *g)
{
    return (double *)(g->sort.idx_block ? g->sort.idx_block : g->sort.scratch);
}
static inline double *vs_gpu_virial_buf(vs_gpu_state *g) { return (double *)g->sort.sort_keys; }

/* Events of the phase timing (gpu_timing.cu). */
void vs_gpu_timing_create(vs_gpu_state *g);
void vs_gpu_graph_init(vs_gpu_state *g);
void vs_gpu_graph_destroy(vs_gpu_state *g);
void vs_gpu_timing_make_room(vs_gpu_state *g, int marks); /* a captured step cannot wait */
void vs_gpu_timing_destroy(vs_gpu_state *g);

/* Molecules (gpu_bonded.cu; vs_gpu_reserve grows their buffers): free them; the owned beads'
 * marks (before every ghost build); the tag map over the marked owned + ghost beads (after
 * every ghost build); the failure check (a fatal error with the CPU's message when a bonded
 * kernel recorded one; `kind` as read back, or -1 to read it here, which synchronises). */
void vs_gpu_bonded_free(vs_gpu_state *g);
void vs_gpu_bonded_tables(vs_gpu_state *g); /* upload the table styles' splines */
void vs_gpu_bonded_marks(vs_gpu_state *g);
void vs_gpu_bonded_index(vs_gpu_state *g);
void vs_gpu_bonded_room(vs_gpu_state *g); /* for every record: no capture allocates */
void vs_gpu_bonded_check(vs_gpu_state *g, int kind);
/* Before the Newton kernel (its sums cleared): the step's first bonded kernel may run beside
 * it, on a stream of its own that the main stream joins after that kernel. Where the bonded
 * terms follow the DPD term alone (no other term adds forces in between) and no energies are
 * due: both add fixed-point sums, exact in any order, so the bits are those of one stream. */
void vs_gpu_bonded_fork(vs_gpu_state *g, int want_energy);
/* The pair styles' device buffers (gpu_pair.cu): coefficients and tables uploaded on the
 * step's stream on first use (before the force kernels that read them are queued, on any
 * stream), freed at destroy. */
void vs_gpu_pair_prepare(vs_gpu_state *g);
void vs_gpu_pair_free(vs_gpu_state *g);
/* The conservative styles ride the Newton walk (vs_gpu_plan.styles_newton): DPD's force
 * call evaluates them beside its own pairs, or the first style's call evaluates them all
 * where DPD does not act. */
static inline int vs_gpu_styles_on_newton(const vs_gpu_state *g)
{
    return g->plan.styles_newton;
}
/* One part of the Newton walk with the styles' evaluator (gpu_pair_newton.cu; see
 * vs_newton_launch): key, DPD's random numbers where it acts; cut2_quanta, the largest
 * reach squared in quanta. */
void vs_gpu_newton_styles(vs_gpu_state *g, cudaStream_t stream, int remote, vs_tea_key key,
                          float cut2_quanta, int want_energy);
/* The Morton reorder's part (gpu_topo.cu): the slots' record indices permuted by
 * g->sort.idx_out (with the other per-slot arrays, gpu_cells.cu), then the records compacted
 * into the new slot order. */
void vs_gpu_topo_compact(vs_gpu_state *g, int n);
/* Room for `n` records in all (topo, dih, rec_slot; the records in use kept). */
void vs_gpu_topo_reserve(vs_gpu_state *g, int64_t n);
/* The owned records to the device from a host state's per-slot records (upload) and back
 * (download); the per-slot index grows with the other per-slot arrays (vs_gpu_reserve). */
void vs_gpu_topo_upload(vs_gpu_state *g, const vs_particles *h);
void vs_gpu_topo_download(vs_gpu_state *g, vs_particles *h);
void vs_gpu_topo_free(vs_gpu_state *g);
/* The same for the special-neighbour lists (gpu_pair.cu); a no-op without them. */
void vs_gpu_special_permute(vs_gpu_state *g, int n);
/* n records of `bytes` (a multiple of 8) permuted in place by g->sort.idx_out, one 8-byte
 * word of every record at a time through the sort keys' block (one double per slot), so
 * no second copy of the records is ever held (gpu_cells.cu). */
void vs_gpu_permute_words(vs_gpu_state *g, int n, void *recs, size_t bytes);

/* Allocation helpers that track the device footprint. */
void *vs_gpu_alloc(vs_gpu_state *g, size_t bytes);
void vs_gpu_free(vs_gpu_state *g, void *p, size_t bytes);
/* Before a buffer the stream may use is freed: the stream drained (in a capture, nothing:
 * vs_gpu_free retires the buffer instead). */
void vs_gpu_drain(vs_gpu_state *g);
/* Grow the particle arrays to hold `needed` particles (owned + ghosts), keeping contents;
 * those of the owned particles only (v, f, image) to hold `owned`. */
void vs_gpu_reserve(vs_gpu_state *g, int64_t needed);
void vs_gpu_reserve_owned(vs_gpu_state *g, int64_t owned);

/* Exact sums over the owned particles (vs_block_wide_sums, vs_wide_final): gpu_wide_sum.cuh. */

#endif
