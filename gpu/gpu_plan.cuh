/* The GPU plan: every strategy decision of the backend, taken once at set-up and read by the
 * step's code, never re-decided (vs_gpu_create decides what the parameters fix,
 * vs_gpu_set_comm what needs the rank grid). Which kernel runs, which inputs are staged
 * where, and how the ghost exchange overlaps the forces are all here, so the step code asks
 * the plan instead of testing the parameters again. */
#ifndef VESICA_GPU_PLAN_CUH
#define VESICA_GPU_PLAN_CUH

extern "C" {
#include "params.h"
}

/* How the pair forces are found and summed. */
typedef enum {
    VS_GPU_FORCES_VERLET = 0, /* a Verlet list (thread or warp builder), each pair from both
                                 sides (vs_both_sides_kernel) */
    VS_GPU_FORCES_CELLS = 1,  /* the cell list walked by the force kernel, each pair from both
                                 sides (double precision: vs_both_sides_kernel<CELLS>) */
    VS_GPU_FORCES_NEWTON = 2  /* the cell list, each pair once, fixed-point sums (mixed
                                 precision: vs_newton_kernel, DPD and the short-ranged
                                 conservative styles alike); with `half_list`, the
                                 same kernel reads a half Verlet list instead of walking
                                 the cell list */
} vs_gpu_force_path;

/* How a non-rebuild step's ghost update overlaps the forces (comm.overlap). */
typedef enum {
    VS_GPU_OVERLAP_NONE = 0,
    VS_GPU_OVERLAP_SPLIT = 1,        /* Verlet list: interior particles' forces while the
                                        ghosts travel, border particles' after */
    VS_GPU_OVERLAP_REMOTE_APART = 2  /* cell list: the ghosts from other ranks are left out
                                        of it and add their pairs after they arrive */
} vs_gpu_overlap_mode;

/* Tags (0..N-1) below 2^VS_GRID_TAG_BITS travel in grid records (vs_ghost_rec_grid). */
#define VS_GRID_TAG_BITS 48

struct vs_gpu_plan {
    int mixed;                   /* precision: fixed-point positions and fp32 pairs (1), or
                                    fp64 throughout (0) */
    vs_gpu_builder_kind builder; /* resolved (never AUTO): THREAD, WARP, CELLS or HALF */
    vs_gpu_force_path forces;
    int styles_newton;           /* the conservative pair styles ride the Newton walk with
                                    DPD (gpu_pair_newton.cu); else they walk from both
                                    sides after it (gpu_pair.cu) */
    int half_list;               /* Newton forces from a half Verlet list (builder HALF): the
                                    pairs the cell walk would find within the list radius,
                                    kept between rebuilds */
    int yz_reach;                /* cells per list radius along y and z: 2 for the thread
                                    builder (5 x 5 rows), else 1 */
    int x_reach;                 /* cells per list radius along x: 1 for the warp builder's
                                    27-cell stencil, else 2 (trimmed rows hold fewer
                                    candidates) */
    int reuse_list;              /* skin > 0: a list serves several steps (displacement
                                    checked, positions at the build kept); else every step
                                    rebuilds from the current positions */
    int stage_at_build;          /* the cell-key pass of a build stages pos_q / vel_f (mixed,
                                    or the warp builder, which reads them) */
    int stage_in_first_half;     /* mixed: the first half-step writes the owned particles'
                                    force inputs too */
    int vp_in_vel_f;             /* mixed: the predicted velocity of owned and ghost
                                    particles lives only in vel_f (fp32, what the forces
                                    read); no fp64 copy is kept or moved */
    int grid_records;            /* mixed on the position grid (not npt): ghosts travel as
                                    records of positions in quanta and fp32 velocities
                                    (vs_ghost_rec_grid), half the bytes of fp64 ones */
    int pos_q_only;              /* mixed on the position grid: pos_q is the only store of
                                    every particle's position (no fp64 x; vs_positions),
                                    always current, so nothing is staged but vel_f */
    int wrap_dims;               /* bit d: dimension d is periodic within this rank and is
                                    wrapped by the first half-step (skin 0 only) */
    int leaver_dim;              /* skin 0: the first dimension split over ranks, whose
                                    leavers the first half-step flags (vs_face_marks); -1
                                    for none */
    vs_gpu_overlap_mode overlap;
    int pair_inert;              /* the only pair term is an inert DPD (vs_dpd_inert): no pair
                                    walk, the forces only started (vs_gpu_forces), the cell
                                    list without a Verlet list, no overlap */
    int no_ghosts;               /* one rank, every axis periodic, and nothing reads a ghost
                                    (pair_inert, no pair or anisotropic style, no reactions,
                                    whose searches see partners across the box's faces): no
                                    ghost is built or refreshed. The bonded terms find the
                                    owned copy of a partner, the one the tag map returns
                                    with ghosts too (the lowest index), by the minimum image
                                    (gpu_bonded.cu), so their forces are the same bits */
};

/* The decisions the parameters fix (vs_gpu_create). */
vs_gpu_plan vs_gpu_plan_decide(const vs_params *prm);
/* The decisions that need the rank grid (vs_gpu_set_comm): link[d] is VS_LINK_SELF or the
 * dimension's transport; comm_ok: the transports were set up. */
void vs_gpu_plan_set_comm(vs_gpu_plan *plan, const vs_params *prm, const int link[3],
                          int comm_ok);

#endif
