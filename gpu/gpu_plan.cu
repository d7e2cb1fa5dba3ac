/* The GPU plan (gpu_plan.cuh): the backend's strategy, decided once.
 *
 * Precision picks the force path: mixed precision takes each pair once (Newton's third law,
 * fixed-point sums) from the cell list or a half Verlet list, double precision a Verlet list,
 * or the cell list from both sides. The Newton walk (gpu_newton.cuh) serves DPD and the
 * conservative styles alike, except styles that scale special neighbours (it has no
 * exclusion lists) and long reaches (the LJ liquid's r_c = 2.5 holds more partners per
 * particle than the walk's queue). The builder `auto` becomes the faster of each
 * (docs/performance.md): in mixed precision the half list with a skin or many partners per
 * particle and the cell list otherwise, the thread builder in double. With styles, `auto`
 * takes the Newton walk where DPD acts beside them and the thread builder for styles alone
 * (docs/performance.md compares the paths); the builders `cells` and `half` put styles
 * alone on the Newton walk too. The anisotropic style (gpu_aniso.cu) walks from both sides
 * over a full Verlet list or the cell list, never a half list, and needs every ghost in the
 * cell list: beside DPD it takes the cell list, alone (as styles alone) the thread builder,
 * and the remote ghosts are never left out of the list. */
#include <stdio.h>
#include <string.h>

#include "gpu_internal.cuh"

/* Partners per particle within the pair terms' reach (the sphere's volume times the
 * density). */
static double partners_in_reach(const vs_params *prm)
{
    const double r = vs_pair_reach(prm);
    return 4.18879 * r * r * r * prm->system.density;
}

/* Whether the Newton kernel's half list beats its cell walk (mixed precision;
 * docs/performance.md): with a skin it is kept between rebuilds and wins at every density
 * and cut-off; rebuilt on every step it wins once the cut-off sphere holds many partners,
 * while the cell walk stays ahead with few. */
static int half_list_pays(const vs_params *prm)
{
    if (prm->neighbor.skin > 0.0)
        return 1;
    return partners_in_reach(prm) > 32.0;
}

/* Whether the conservative pair styles can ride the Newton walk (mixed precision): none
 * scales special neighbours (the walk has no exclusion lists), and the reach holds few
 * enough partners for the walk's per-lane queue (VS_NEWTON_QUEUE), else the lanes empty
 * their queues one by one. */
static int styles_fit_newton(const vs_params *prm)
{
    return vs_special_depth(prm) == 0 && partners_in_reach(prm) <= 32.0;
}

vs_gpu_plan vs_gpu_plan_decide(const vs_params *prm)
{
    vs_gpu_plan p;
    memset(&p, 0, sizeof p);
    p.mixed = prm->exec.precision == VS_PRECISION_MIXED;
    p.builder = prm->exec.gpu_builder;
    /* each pair once (gpu_newton.cuh): DPD, with the styles where they fit */
    const int styles = vs_pair_styles_active(prm), fit = styles_fit_newton(prm);
    const int aniso = prm->aniso.style != VS_ANISO_NONE;
    const int newton = p.mixed && (!styles || fit);
    p.pair_inert = vs_dpd_inert(prm);
    if (p.builder == VS_GPU_BUILDER_AUTO && p.pair_inert)
        p.builder = VS_GPU_BUILDER_CELLS; /* nothing walks a list: bin only, as the build must */
    if (p.builder == VS_GPU_BUILDER_AUTO)
        p.builder = !newton || ((styles || aniso) && !vs_dpd_active(prm))
                        ? VS_GPU_BUILDER_THREAD
                    : half_list_pays(prm) && !aniso ? VS_GPU_BUILDER_HALF
                                                    : VS_GPU_BUILDER_CELLS;
    /* the half list feeds the Newton kernel; a thread-built list elsewhere, and the cell
     * list beside the anisotropic style */
    if (p.builder == VS_GPU_BUILDER_HALF && !newton)
        p.builder = VS_GPU_BUILDER_THREAD;
    if (p.builder == VS_GPU_BUILDER_HALF && aniso)
        p.builder = VS_GPU_BUILDER_CELLS;
    p.half_list = p.builder == VS_GPU_BUILDER_HALF;
    if (p.builder != VS_GPU_BUILDER_CELLS && !p.half_list)
        p.forces = VS_GPU_FORCES_VERLET;
    else
        p.forces = p.mixed ? VS_GPU_FORCES_NEWTON : VS_GPU_FORCES_CELLS;
    /* otherwise (the cell list in mixed precision with styles that do not fit) the DPD
     * pairs take the Newton walk and the styles walk the cell list after it */
    p.styles_newton = p.forces == VS_GPU_FORCES_NEWTON && styles && fit;
    /* half-width cells along x: trimmed rows then hold fewer candidates than whole cells;
     * the warp builder keeps the paper's 27 cells */
    p.x_reach = p.builder == VS_GPU_BUILDER_WARP ? 1 : 2;
    /* the thread builder walks rows of cells half the list radius wide along y and z too:
     * about a third fewer candidates (scaling/tools/stencil_candidates.c); the Newton walk
     * keeps 3 x 3 rows (more rows cost it more than the candidates they save), and so does
     * the anisotropic style's walk; every other cell walk follows the grid's reach */
    p.yz_reach = p.builder == VS_GPU_BUILDER_THREAD && !aniso ? 2 : 1;
    p.reuse_list = prm->neighbor.skin > 0.0;
    p.stage_at_build = p.mixed || p.builder == VS_GPU_BUILDER_WARP;
    /* the cell list's pass then reads 16 bytes per owned particle instead of staging them
     * from x and the species (28 bytes read, 16 written) */
    p.stage_in_first_half = p.mixed;
    /* the forces read the predicted velocity in fp32 only: an fp64 copy would cost 24 bytes
     * per particle of memory and of the first half-step's writes */
    p.vp_in_vel_f = p.mixed;
    /* positions whole numbers of quanta and velocities in fp32: exact in 24 bytes; the
     * tags (0..N-1) in 48 bits */
    p.grid_records = p.mixed && prm->exec.position_quantum > 0.0 &&
                     prm->system.n_particles < (int64_t)1 << VS_GRID_TAG_BITS;
    /* and positions whole numbers of quanta of a frame that never moves: pos_q holds them
     * exactly, so an fp64 copy would be 24 bytes per particle of memory and of every pass
     * that reads or moves them */
    p.pos_q_only = p.grid_records;
    p.wrap_dims = 0; /* until the rank grid is known */
    p.leaver_dim = -1;
    p.overlap = VS_GPU_OVERLAP_NONE;
    return p;
}

void vs_gpu_plan_set_comm(vs_gpu_plan *p, const vs_params *prm, const int link[3], int comm_ok)
{
    int split = 0; /* dimensions split over ranks */
    p->wrap_dims = 0; /* without a skin every step migrates: the first half-step wraps the
                         dimensions periodic within the rank, as the migration would */
    p->leaver_dim = -1;
    for (int d = 0; d < 3; ++d) {
        split += link[d] != VS_LINK_SELF;
        p->wrap_dims |=
            (!p->reuse_list && link[d] == VS_LINK_SELF && vs_axis_periodic(prm, d)) << d;
        if (!p->reuse_list && link[d] != VS_LINK_SELF && p->leaver_dim < 0)
            p->leaver_dim = d;
    }
    /* the cell list overlaps where its ghosts from other ranks can be left out of it: the
     * image path (one split dimension), each pair once (the Newton kernel), and a list
     * reused between rebuilds (without a skin every step rebuilds and the ghosts are
     * complete before the list is built, so there is nothing to hide); a Verlet list
     * overlaps wherever some dimension is split */
    int periodic = 1;
    for (int d = 0; d < 3; ++d)
        periodic &= vs_axis_periodic(prm, d);
    p->no_ghosts = split == 0 && periodic && p->pair_inert && !vs_pair_styles_active(prm) &&
                   prm->aniso.style == VS_ANISO_NONE && !prm->reactions.on;
    p->overlap = VS_GPU_OVERLAP_NONE;
    if (comm_ok && prm->exec.overlap && split > 0 && !p->pair_inert) { /* no walk to hide under */
        if (p->forces == VS_GPU_FORCES_VERLET)
            p->overlap = VS_GPU_OVERLAP_SPLIT;
        else if (p->forces == VS_GPU_FORCES_NEWTON && split == 1 && p->reuse_list &&
                 (p->styles_newton || !vs_pair_styles_active(prm)) &&
                 prm->aniso.style == VS_ANISO_NONE)
            p->overlap = VS_GPU_OVERLAP_REMOTE_APART; /* styles off the walk: the whole list */
    }
}

extern "C" void vs_gpu_plan_describe(const vs_gpu_state *g, char *buf, size_t len)
{
    const vs_gpu_plan *p = &g->plan;
    const char *forces = "?";
    switch (p->forces) {
    case VS_GPU_FORCES_VERLET:
        forces = p->builder == VS_GPU_BUILDER_WARP ? "Verlet list built by warp"
                                                   : "Verlet list built by thread";
        break;
    case VS_GPU_FORCES_CELLS: forces = "cell-list forces"; break;
    case VS_GPU_FORCES_NEWTON:
        forces = p->half_list ? "half-list Newton forces" : "cell-list Newton forces";
        break;
    }
    const char *overlap = p->overlap == VS_GPU_OVERLAP_SPLIT ? "interior/border split"
                          : p->overlap == VS_GPU_OVERLAP_REMOTE_APART ? "remote ghosts apart"
                                                                       : "none";
    char wrap[48] = "";
    if (p->wrap_dims) {
        snprintf(wrap, sizeof wrap, ", first half-step wraps%s%s%s",
                 p->wrap_dims & 1 ? " x" : "", p->wrap_dims & 2 ? " y" : "",
                 p->wrap_dims & 4 ? " z" : "");
    }
    snprintf(buf, len, "%s precision, %s%s (x reach %d)%s%s%s%s%s, overlap: %s",
             p->mixed ? "mixed" : "double", forces,
             p->styles_newton ? " with the pair styles" : "", p->x_reach,
             p->stage_in_first_half ? ", first half-step stages force inputs" : "", wrap,
             p->grid_records ? ", ghost records on the position grid" : "",
             p->pos_q_only ? ", positions in quanta only" : "",
             p->no_ghosts ? ", no ghosts (nothing reads them)" : "", overlap);
}
