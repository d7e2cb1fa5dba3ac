/* The time step: see simulation.h. */
#include "simulation.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "ensemble_step.h"
#include "exit_codes.h"
#include "init.h"
#include "log.h"
#include "molecules.h"
#include "pair_setup.h"
#include "position_grid.h"
#include "redistribute.h"
#include "term_field.h"
#include "wrap.h"

/* A term the chosen backend cannot compute (a term without GPU kernels; every term has them
 * today): refuse a GPU run that asked for "gpu", fall back to the CPU for "auto", never run
 * without it. */
static int select_for_terms(vs_sim *sim, char *err, size_t err_len)
{
    if (sim->backend == &vs_backend_cpu)
        return 0;
    for (int k = 0; k < sim->ff.n_terms; ++k) {
        const vs_term_type *t = sim->ff.terms[k];
        if (t->gpu)
            continue;
        if (sim->prm.exec.backend == VS_BACKEND_GPU) {
            snprintf(err, err_len, "backend: \"gpu\" cannot run the %s term (it has no GPU "
                     "kernels); use backend = \"cpu\"", t->name);
            return VS_EXIT_BAD_INPUT;
        }
        vs_log_info("backend auto: the %s term has no GPU kernels yet; running on the CPU",
                    t->name);
        sim->backend = &vs_backend_cpu;
        snprintf(sim->device, sizeof sim->device, "cpu");
        return 0;
    }
    return 0;
}

/* Mixed precision on the GPU, at a fixed box (not an ensemble that moves it: npt): one grid
 * of positions whatever the decomposition (src/core/position_grid.h), the box edges whole
 * numbers of its quanta. The reach is the GPU brick's: its widest ghost shell plus the list
 * radius. */
static void set_position_grid(vs_sim *sim, double widest)
{
    vs_params *prm = &sim->prm;
    prm->exec.position_quantum = 0.0;
    if (sim->backend == &vs_backend_cpu || prm->exec.precision != VS_PRECISION_MIXED ||
        sim->ensemble->moves_box)
        return;
    const double q = vs_grid_quantum(prm->system.box, widest + sim->list_radius);
    for (int d = 0; d < 3; ++d)
        prm->system.box[d] = vs_grid_step(prm->system.box[d], q);
    prm->exec.position_quantum = q;
}

/* The owned particles' positions rounded down onto the grid (a new state, a checkpoint or a
 * system file: positions not yet on it), and into the rounded box (a record of a box up to
 * half a quantum longer may lie past its edge). */
static void snap_to_grid(vs_sim *sim)
{
    const double q = sim->prm.exec.position_quantum;
    if (q <= 0.0)
        return;
    vs_particles *p = &sim->parts;
    for (int d = 0; d < 3; ++d)
        for (int64_t i = 0; i < p->n_owned; ++i) {
            p->x[d][i] = vs_grid_floor(p->x[d][i], q);
            if (vs_axis_periodic(&sim->prm, d))
                vs_wrap_periodic(&p->x[d][i], &p->image[d][i], sim->prm.system.box[d]);
            else if (p->x[d][i] >= sim->prm.system.box[d]) /* inside the rounded box's walls */
                p->x[d][i] = vs_grid_floor(nextafter(sim->prm.system.box[d], 0.0), q);
        }
}

/* The particles of frozen species over all ranks (boundary.n_frozen: the thermo's degrees of
 * freedom leave them out), standing still whatever velocity a file gave them. */
static void count_frozen(vs_sim *sim)
{
    int64_t n = 0;
    vs_particles *p = &sim->parts;
    for (int64_t i = 0; i < p->n_owned; ++i) {
        if (!sim->prm.species.list[p->species[i]].frozen)
            continue;
        for (int d = 0; d < 3; ++d)
            p->v[d][i] = p->vp[d][i] = 0.0;
        n++;
    }
    vs_par_sum_int64(&sim->dc.cart, &n, 1);
    sim->prm.boundary.n_frozen = n;
}

/* Along an axis with walls every brick holds the wall force's range, so the force acts on
 * the bricks at the walls only. Returns 0, or VS_EXIT_BAD_INPUT with the line. */
static int check_wall_bricks(const vs_params *prm, const int dims[3], char *err,
                             size_t err_len)
{
    for (int d = 0; d < 3; ++d) {
        const vs_wall *w = &prm->boundary.axis[d];
        const double brick = prm->system.box[d] / dims[d];
        if (w->kind == VS_BOUNDARY_PERIODIC || w->force == VS_WALL_FORCE_NONE ||
            w->force_d <= brick)
            continue;
        snprintf(err, err_len, "boundary.%c.force.d: expected at most the brick's width %g "
                 "along %c (box %g over %d ranks; got %g); use fewer ranks along %c", "xyz"[d],
                 brick, "xyz"[d], prm->system.box[d], dims[d], w->force_d, "xyz"[d]);
        return VS_EXIT_BAD_INPUT;
    }
    return 0;
}

int vs_sim_create(vs_sim *sim, const vs_params *prm, MPI_Comm comm, char *err,
                  size_t err_len)
{
    memset(sim, 0, sizeof(*sim));
    sim->phase_open = -1;
    sim->phase_weight = 1.0;
    sim->prm = *prm;
    sim->list_radius = vs_list_radius(prm);
    /* a box that grows past 64 times the larger of its starting volume and one list cell per
     * particle expands without bound: its cell lists would soon outgrow memory and their
     * counts overflow */
    const double r3 = sim->list_radius * sim->list_radius * sim->list_radius;
    const double *box = prm->system.box;
    sim->volume_limit =
        64.0 * fmax(box[0] * box[1] * box[2], (double)prm->system.n_particles * r3);
    sim->ensemble = vs_ensemble_kind_of(prm->integrator.kind);
    if (!sim->ensemble) {
        snprintf(err, err_len, "integrator.kind: no ensemble of kind %d", (int)prm->integrator.kind);
        return VS_EXIT_BAD_INPUT;
    }
    if (vs_forcefield_init(&sim->ff, prm, err, err_len) != 0)
        return VS_EXIT_BAD_INPUT;
    if (sim->ff.bonded_reach > 0.0)
        sim->bonded_width = sim->ff.bonded_reach + prm->neighbor.skin;
    vs_par par;
    vs_par_from_comm(&par, comm);
    int dims[3];
    /* a brick must hold the widest ghost shell: one hop per dimension */
    const double widest =
        sim->bonded_width > sim->list_radius ? sim->bonded_width : sim->list_radius;
    if (vs_decomp_choose(prm->system.box, par.size, prm->exec.decomposition, widest, dims, err,
                         err_len) != 0 ||
        check_wall_bricks(prm, dims, err, err_len) != 0 ||
        vs_field_check_layout(prm, dims, err, err_len) != 0)
        return VS_EXIT_BAD_INPUT;
    sim->backend = vs_backend_select(prm->exec.backend, par.size, sim->device, sizeof sim->device,
                                     err, err_len);
    if (!sim->backend || select_for_terms(sim, err, err_len) != 0)
        return VS_EXIT_BAD_INPUT;
    set_position_grid(sim, widest);
    vs_decomp_create(&sim->dc, &par, sim->prm.system.box, dims);
    for (int d = 0; d < 3; ++d)
        sim->dc.wall[d] = !vs_axis_periodic(prm, d);
    /* room for this rank's share plus a halo of the same order, grown on demand */
    const double frac = 1.0 / (double)par.size;
    vs_particles_init(&sim->parts, (int64_t)(1.5 * frac * (double)prm->system.n_particles) + 64);
    vs_timers_reset(&sim->timers);
    vs_ensemble_setup(&sim->ens, &sim->ens_c, &sim->prm);
    return 0;
}

/* Timed phases follow one another: starting one ends the one before, and phases_close ends
 * the last, before anything untimed. On the device's clock where the backend has one (one
 * mark per boundary; the device's queue keeps running across it), by the wall clock
 * otherwise. A device mark costs the device a microsecond or more, which at small sizes is a
 * tenth of a step: steps are marked one in output.timing_every (vs_sim_step), each such
 * step's phases standing for that many steps. */
static void phase_begin(vs_sim *sim, vs_timer_id id)
{
    if (sim->phase_open == (int)id)
        return;
    if (sim->backend->phase_mark) {
        if (sim->phase_weight > 0.0)
            sim->backend->phase_mark(sim->backend_state, (int)id, sim->phase_weight);
    } else {
        if (sim->phase_open >= 0)
            vs_timer_stop(&sim->timers, (vs_timer_id)sim->phase_open);
        vs_timer_start(&sim->timers, id);
    }
    sim->phase_open = (int)id;
}

static void phases_close(vs_sim *sim)
{
    if (sim->phase_open < 0)
        return;
    if (sim->backend->phase_mark) {
        if (sim->phase_weight > 0.0)
            sim->backend->phase_mark(sim->backend_state, -1, sim->phase_weight);
    } else
        vs_timer_stop(&sim->timers, (vs_timer_id)sim->phase_open);
    sim->phase_open = -1;
}

void vs_sim_settle_timers(vs_sim *sim)
{
    if (sim->backend && sim->backend->phase_settle)
        sim->backend->phase_settle(sim->backend_state, sim->timers.total, VS_TIMER_COUNT);
}

/* Migration, ghosts and neighbour list, timed as comm and neighbor. */
static void rebuild(vs_sim *sim)
{
    const vs_backend *b = sim->backend;
    phase_begin(sim, VS_TIMER_comm);
    b->migrate(sim->backend_state, sim->step);
    b->build_ghosts(sim->backend_state);
    phase_begin(sim, VS_TIMER_neighbor);
    b->build_neighbors(sim->backend_state);
    sim->n_builds++;
}

/* A term's forces at `step`: a term holds one function per backend (forcefield.h), and the
 * backend's table does not know terms (it sits below the engine): the running backend's. */
static void term_forces(vs_sim *sim, const vs_term_type *term, int64_t step)
{
    if (sim->backend == &vs_backend_cpu)
        term->cpu(sim->backend_state, step, sim->energy_due);
    else
        term->gpu(sim->backend_state, step, sim->energy_due);
}

/* Forces at `step`: the backend starts them, each term adds its own (forcefield.h). */
static void compute_forces(vs_sim *sim, int64_t step)
{
    sim->backend->forces_begin(sim->backend_state, sim->energy_due);
    for (int k = 0; k < sim->ff.n_terms; ++k)
        term_forces(sim, sim->ff.terms[k], step);
    if (sim->backend->forces_end)
        sim->backend->forces_end(sim->backend_state, step);
}

/* A step that reuses the lists, with the ghost update under the first term's forces where the
 * backend can overlap them (the backend times the exchange, which moves from the pair phase
 * to comm). Returns 0 when it cannot: the caller updates the ghosts, then computes. */
static int overlapped_forces(vs_sim *sim, int64_t step)
{
    const vs_backend *b = sim->backend;
    const vs_term_type *first = sim->ff.terms[0];
    /* only the GPU backend overlaps (can_overlap), through the term's GPU form */
    if (!b->can_overlap || !first->gpu_overlapped || !b->can_overlap(sim->backend_state))
        return 0;
    double comm_s = 0.0, hidden_s = 0.0;
    phase_begin(sim, VS_TIMER_pair);
    b->forces_begin(sim->backend_state, sim->energy_due);
    first->gpu_overlapped(sim->backend_state, step, sim->energy_due, &comm_s, &hidden_s);
    for (int k = 1; k < sim->ff.n_terms; ++k)
        term_forces(sim, sim->ff.terms[k], step);
    if (b->forces_end)
        b->forces_end(sim->backend_state, step);
    /* as the pair phase was marked: this step standing for phase_weight steps, or unmarked */
    const double w = b->phase_mark ? sim->phase_weight : 1.0;
    sim->timers.total[VS_TIMER_pair] -= w * comm_s;
    sim->timers.total[VS_TIMER_comm] += w * comm_s;
    sim->comm_hidden_s += hidden_s;
    return 1;
}

/* The tail corrections (pair styles with tail on) from the global species counts of the
 * particles just placed (once per run, and after a reaction step that changed species).
 * Collective. */
static void set_tail(vs_sim *sim)
{
    sim->tail_energy = sim->tail_virial = 0.0;
    if (!vs_pair_tail_on(&sim->prm))
        return;
    int64_t *count = sim->species_count;
    memset(count, 0, sizeof sim->species_count);
    for (int64_t i = 0; i < sim->parts.n_owned; ++i)
        count[sim->parts.species[i]]++;
    vs_par_sum_int64(&sim->dc.cart, count, VS_MAX_SPECIES);
    const double volume = sim->prm.system.box[0] * sim->prm.system.box[1] * sim->prm.system.box[2];
    vs_pair_tail(&sim->prm, count, volume, &sim->tail_energy, &sim->tail_virial);
}

/* npt's box of the next step against what the run can hold: a box that diverged or grows
 * without bound stops here, before the cell lists are sized for it; one that shrank below
 * the ghost shell or twice the largest cut-off too. The same tests on every rank: the same
 * box and dims. */
static void check_box(const vs_sim *sim, const double box[3], double widest)
{
    const vs_decomp *dc = &sim->dc;
    const vs_integrator_params *in = &sim->prm.integrator;
    const long long step = (long long)sim->step;
    const double volume = box[0] * box[1] * box[2];
    if (!isfinite(volume) || !(volume > 0.0))
        VS_FATAL_ALL("step %lld: npt: the box became %.6g x %.6g x %.6g: the barostat "
                     "diverged (integrator.tau_p %g, tau %g, dt %g)",
                     step, box[0], box[1], box[2], in->tau_p, in->tau, in->dt);
    if (!(volume <= sim->volume_limit))
        VS_FATAL_ALL("step %lld: npt: the box grew to %.6g x %.6g x %.6g, volume %.6g, beyond "
                     "%.6g (64 times the larger of the starting volume and one neighbour cell "
                     "per particle): the system expands without bound, as a fluid held below "
                     "the pressure it can sustain does (integrator.pressure %g); stopped "
                     "before its cell lists outgrow memory",
                     step, box[0], box[1], box[2], volume, sim->volume_limit, in->pressure);
    for (int d = 0; d < 3; ++d) {
        if (!(box[d] / dc->dims[d] >= widest))
            VS_FATAL_ALL("step %lld: npt: the box shrank to %.6g along %c, %d brick(s) of "
                         "%.6g, thinner than the ghost shell %.6g (use fewer ranks along %c, "
                         "or a larger system)", step, box[d], "xyz"[d], dc->dims[d],
                         box[d] / dc->dims[d], widest, "xyz"[d]);
        if (!(box[d] >= 2.0 * vs_pair_reach(&sim->prm)))
            VS_FATAL_ALL("step %lld: npt: the box shrank to %.6g along %c, less than twice the "
                         "largest cut-off %.6g (use a larger system)", step, box[d],
                         "xyz"[d], vs_pair_reach(&sim->prm));
    }
}

void vs_sim_set_box(vs_sim *sim, const double box[3])
{
    vs_decomp *dc = &sim->dc;
    const double widest =
        sim->bonded_width > sim->list_radius ? sim->bonded_width : sim->list_radius;
    check_box(sim, box, widest);
    for (int d = 0; d < 3; ++d) {
        sim->prm.system.box[d] = dc->box[d] = box[d];
        dc->lo[d] = vs_decomp_face(box[d], dc->coords[d], dc->dims[d]);
        dc->hi[d] = vs_decomp_face(box[d], dc->coords[d] + 1, dc->dims[d]);
    }
    if (vs_pair_tail_on(&sim->prm)) {
        const double volume = box[0] * box[1] * box[2];
        vs_pair_tail(&sim->prm, sim->species_count, volume, &sim->tail_energy,
                     &sim->tail_virial);
    }
    if (sim->backend_state)
        sim->backend->set_box(sim->backend_state, sim->prm.system.box, dc->lo, dc->hi);
}

/* The backend takes the particles and makes its state. Returns 0, or 1 on every rank if it
 * failed on any (err set where it failed). Collective. */
static int attach(vs_sim *sim, char *err, size_t err_len)
{
    const vs_backend_setup setup = {
        .prm = &sim->prm,
        .dc = &sim->dc,
        .parts = &sim->parts,
        .list_radius = sim->list_radius,
        .bonded_width = sim->bonded_width,
        .device = sim->device,
        .device_len = sizeof sim->device,
        .plan = sim->plan,
        .plan_len = sizeof sim->plan,
    };
    const int failed = sim->backend->attach(&setup, &sim->backend_state, err, err_len) != 0;
    return vs_par_any(&sim->dc.cart, failed);
}

/* Step 0 of a new run: the backend takes the particles, then the first build and forces.
 * Returns 0, or 1 on every rank if the backend failed on any (err set where it failed).
 * Collective. */
static int start_at_step_zero(vs_sim *sim, char *err, size_t err_len)
{
    sim->step = 0;
    if (attach(sim, err, err_len))
        return 1;
    rebuild(sim);
    phase_begin(sim, VS_TIMER_pair);
    compute_forces(sim, 0);
    phases_close(sim);
    return 0;
}

int vs_sim_start(vs_sim *sim, char *err, size_t err_len)
{
    sim->energy_due = vs_sim_want_all(sim);
    vs_init_particles(&sim->parts, &sim->prm, &sim->dc);
    snap_to_grid(sim);
    count_frozen(sim);
    set_tail(sim);
    vs_reactions_start(&sim->rx, &sim->prm, &sim->dc.cart, &sim->parts);
    return start_at_step_zero(sim, err, err_len);
}

/* The records go to their owners by position and become the owned particles, in tag order;
 * their optional records (ext, NULL: none) with them. */
static void adopt_records(vs_sim *sim, vs_particle_rec *recs, const vs_particle_ext *ext,
                          int64_t n)
{
    int64_t n_mine = 0;
    vs_particle_ext mine_ext;
    vs_particle_rec *mine = vs_redistribute_by_brick_ext(&sim->dc, recs, ext, n, &n_mine,
                                                         &mine_ext);
    vs_particles_unpack(&sim->parts, mine, n_mine);
    vs_particles_unpack_ext(&sim->parts, &mine_ext, n_mine);
    free(mine);
    vs_particle_ext_free(&mine_ext);
}

void vs_sim_owned_ext(vs_sim *sim, vs_particle_ext *out)
{
    memset(out, 0, sizeof *out);
    if (!sim->parts.topo && !sim->parts.special && !sim->parts.orient)
        return;
    vs_sim_finish_step(sim);
    sim->backend->sync_host(sim->backend_state, &sim->parts);
    vs_particles_pack_ext(&sim->parts, out);
}

int vs_sim_start_from_records(vs_sim *sim, vs_particle_rec *recs, const vs_particle_ext *ext,
                              int64_t n, int64_t step, char *err, size_t err_len)
{
    sim->energy_due = 0;
    const int has_topo = ext && ext->topo, has_special = ext && ext->special;
    if (vs_params_molecular(&sim->prm) != has_topo) {
        snprintf(err, err_len, "restart: the checkpoint %s molecules but the configuration %s",
                 has_topo ? "has" : "has no", has_topo ? "has none" : "has molecules");
        return 1;
    }
    const int has_orient = ext && ext->orient;
    if (vs_params_oriented(&sim->prm) != has_orient) {
        snprintf(err, err_len, "restart: the checkpoint %s orientations but the configuration "
                 "%s", has_orient ? "has" : "has no",
                 has_orient ? "has no oriented species" : "has oriented species "
                 "(species.[].inertia)");
        return 1;
    }
    if ((vs_special_depth(&sim->prm) > 0) != has_special) {
        snprintf(err, err_len, "restart: the checkpoint %s special-neighbour lists but the "
                 "configuration's pair styles %s special neighbours (pair.[].special)",
                 has_special ? "has" : "has no", has_special ? "scale no" : "scale");
        return 1;
    }
    /* dihedral records exactly when the run has dihedrals: a checkpoint of a run without
     * them may still hold empty lists (written before they were a record of their own), and
     * one written before dihedrals has none */
    vs_particle_ext mine = *ext;
    vs_dihedrals *empty = NULL;
    if (!vs_params_dihedrals(&sim->prm))
        mine.dih = NULL;
    else if (!mine.dih) {
        empty = VS_MALLOC(sizeof(vs_dihedrals) * (size_t)(n > 0 ? n : 1));
        memset(empty, 0, sizeof(vs_dihedrals) * (size_t)(n > 0 ? n : 1));
        mine.dih = empty;
    }
    adopt_records(sim, recs, &mine, n);
    free(empty);
    snap_to_grid(sim);
    count_frozen(sim);
    set_tail(sim);
    sim->step = step;
    if (attach(sim, err, err_len))
        return 1;
    rebuild(sim);
    phases_close(sim);
    return 0;
}

/* The special-neighbour lists of a system's records where the configuration asks for them
 * and the caller has none (from the records' own bonds: the whole system is on rank 0).
 * Collective. */
static int system_special(vs_sim *sim, const vs_particle_rec *recs, const vs_topo *topo,
                          int64_t n, vs_special **out, char *err, size_t err_len)
{
    *out = NULL;
    const int depth = vs_special_depth(&sim->prm);
    if (depth == 0)
        return 0;
    *out = VS_MALLOC(sizeof(vs_special) * (size_t)(n > 0 ? n : 1));
    memset(*out, 0, sizeof(vs_special) * (size_t)(n > 0 ? n : 1));
    char why[256];
    const int bad = vs_special_of_records(recs, topo, n, depth, *out, why, sizeof why) != 0;
    if (bad)
        snprintf(err, err_len, "input: %s", why);
    return vs_par_any(&sim->dc.cart, bad);
}

int vs_sim_start_from_system(vs_sim *sim, vs_particle_rec *recs, const vs_topo *topo,
                             const vs_dihedrals *dih, const vs_special *special,
                             const vs_orient *orient, int64_t n, int draw_velocities,
                             char *err, size_t err_len)
{
    sim->energy_due = vs_sim_want_all(sim);
    static const vs_topo no_records; /* a rank with no records still sends topology */
    if (vs_params_molecular(&sim->prm) && !topo && n == 0)
        topo = &no_records;
    vs_topo *free_beads = NULL; /* reactions on a system read without bonds: empty records */
    if (sim->prm.reactions.on && !topo) {
        free_beads = VS_MALLOC(sizeof(vs_topo) * (size_t)n);
        memset(free_beads, 0, sizeof(vs_topo) * (size_t)n);
        topo = free_beads;
    }
    const int bad = vs_params_molecular(&sim->prm) != (topo != NULL);
    if (bad)
        snprintf(err, err_len, "input: the system %s topology but the configuration %s",
                 topo ? "has" : "has no", topo ? "expects none" : "expects it");
    if (vs_par_any(&sim->dc.cart, bad)) {
        free(free_beads);
        return 1;
    }
    /* every rank takes the same path: lists were made where the records are, or here */
    const int given = vs_par_any(&sim->dc.cart, special != NULL);
    vs_special *made = NULL;
    if (!given && system_special(sim, recs, topo, n, &made, err, err_len)) {
        free(made);
        free(free_beads);
        return 1;
    }
    static const vs_special no_lists; /* a rank with no records still sends lists */
    const vs_special *lists = made ? made : special;
    if (vs_special_depth(&sim->prm) > 0 && !lists && n == 0)
        lists = &no_lists;
    /* dihedral records where the run has dihedrals (empty where the records gave none) */
    vs_dihedrals *no_dih = NULL;
    if (vs_params_dihedrals(&sim->prm) && !dih) {
        no_dih = VS_MALLOC(sizeof(vs_dihedrals) * (size_t)(n > 0 ? n : 1));
        memset(no_dih, 0, sizeof(vs_dihedrals) * (size_t)(n > 0 ? n : 1));
    }
    vs_particle_ext ext = {(vs_topo *)topo, (vs_special *)lists,
                           vs_params_dihedrals(&sim->prm) ? (dih ? (vs_dihedrals *)dih : no_dih)
                                                          : NULL,
                           NULL};
    /* orientations where the file gave them (every rank takes the same path) */
    const int oriented = vs_params_oriented(&sim->prm);
    const int given_orient = oriented && vs_par_any(&sim->dc.cart, orient != NULL);
    static const vs_orient no_orient; /* a rank with no records still sends them */
    if (given_orient)
        ext.orient = (vs_orient *)(orient ? orient : &no_orient);
    adopt_records(sim, recs, &ext, n);
    free(made);
    free(no_dih);
    free(free_beads);
    snap_to_grid(sim);
    count_frozen(sim);
    set_tail(sim);
    vs_reactions_start(&sim->rx, &sim->prm, &sim->dc.cart, &sim->parts);
    if (draw_velocities)
        vs_init_velocities(&sim->parts, &sim->prm, &sim->dc);
    if (oriented) /* directions from the seed unless given; no input file carries the rates */
        vs_init_orientations(&sim->parts, &sim->prm, !given_orient, 1);
    return start_at_step_zero(sim, err, err_len);
}

/* What the ensemble's operations work on at `step` (ensemble_step.h). */
static vs_ens_ctx ensemble_ctx(vs_sim *sim, int64_t step)
{
    const vs_ens_ctx c = {
        .b = sim->backend,
        .st = sim->backend_state,
        .par = &sim->dc.cart,
        .prm = &sim->prm,
        .e = &sim->ens,
        .c = &sim->ens_c,
        .step = step,
        .tail_energy = sim->tail_energy,
        .tail_virial = sim->tail_virial,
    };
    return c;
}

/* The first half of the next step; a kind that moves the box leaves it in sim->ens.box. */
static void ensemble_first_half(vs_sim *sim)
{
    const vs_ens_ctx c = ensemble_ctx(sim, sim->step + 1);
    sim->ensemble->first_half(&c);
    if (sim->ensemble->moves_box)
        vs_sim_set_box(sim, sim->ens.box);
}

static void ensemble_second_half(vs_sim *sim)
{
    const vs_ens_ctx c = ensemble_ctx(sim, sim->step);
    vs_ensemble_second_half(sim->ensemble, &c);
}

void vs_sim_finish_step(vs_sim *sim)
{
    if (!sim->second_half_pending)
        return;
    sim->second_half_pending = 0;
    phase_begin(sim, VS_TIMER_integrate);
    ensemble_second_half(sim);
    phases_close(sim);
}

const vs_particles *vs_sim_owned_particles(vs_sim *sim)
{
    vs_sim_finish_step(sim);
    sim->backend->sync_host(sim->backend_state, &sim->parts);
    return &sim->parts;
}

vs_particle_rec *vs_sim_owned_records(vs_sim *sim, int64_t *n)
{
    const vs_particles *p = vs_sim_owned_particles(sim);
    *n = p->n_owned;
    vs_particle_rec *recs = VS_MALLOC(sizeof(vs_particle_rec) * (size_t)(*n > 0 ? *n : 1));
    vs_particles_pack(p, recs);
    return recs;
}

void vs_sim_canonicalize(vs_sim *sim)
{
    vs_sim_finish_step(sim);
    int64_t n = 0;
    vs_particle_rec *recs = vs_sim_owned_records(sim, &n);
    vs_particle_ext ext;
    vs_sim_owned_ext(sim, &ext);
    adopt_records(sim, recs, &ext, n);
    free(recs);
    vs_particle_ext_free(&ext);
    sim->backend->reload(sim->backend_state, &sim->parts);
    rebuild(sim);
    phases_close(sim);
}

/* A reaction step after the rebuild of `step` (reactions.h): where the topology or the
 * species changed, the ghosts (their species and bonded marks, and the bonded width of the
 * beads that just got a bond) and the lists again, and the tail corrections. A device
 * backend that has taken its owned particles back from the host (reload) migrates first, as
 * after a canonical state (vs_sim_canonicalize); events stored in place left every owned
 * particle where the step's migration put it. Where the step may be collected
 * (`collectable`), the rebuild after the events and the forces that follow go to the device
 * as one unit: returns 1 when the backend collects them (the caller ends it). */
static int reaction_step(vs_sim *sim, int64_t step, int collectable)
{
    phases_close(sim);
    char device[128], plan[512];
    const vs_backend_setup host = {
        .prm = &sim->prm,
        .dc = &sim->dc,
        .parts = &sim->parts,
        .list_radius = sim->list_radius,
        .bonded_width = sim->bonded_width,
        .device = device,
        .device_len = sizeof device,
        .plan = plan,
        .plan_len = sizeof plan,
    };
    const int changed = vs_reactions_step(&sim->rx, &sim->prm, &sim->dc.cart, &sim->parts,
                                          sim->backend, sim->backend_state, &host, step);
    if (changed == VS_REACTIONS_UNCHANGED)
        return 0;
    /* the tail corrections count the species on the host: a backend that stored the events
     * on its own state brings them back first */
    if (vs_pair_tail_on(&sim->prm) && changed == VS_REACTIONS_IN_PLACE &&
        sim->backend != &vs_backend_cpu)
        sim->backend->sync_host(sim->backend_state, &sim->parts);
    const int collected = collectable && changed == VS_REACTIONS_IN_PLACE &&
                          sim->backend->step_collect_begin(sim->backend_state,
                                                           VS_COLLECT_AFTER_REACTION);
    phase_begin(sim, VS_TIMER_comm);
    if (changed == VS_REACTIONS_RELOADED)
        sim->backend->migrate(sim->backend_state, step);
    sim->backend->build_ghosts(sim->backend_state);
    phase_begin(sim, VS_TIMER_neighbor);
    sim->backend->build_neighbors(sim->backend_state);
    set_tail(sim);
    return collected;
}

int vs_sim_step_marked(int64_t every, int64_t step)
{
    if (every <= 1)
        return 1;
    /* splitmix64's finaliser of the block's number: the marked step's place in its block */
    uint64_t h = (uint64_t)(step / every) + 0x9e3779b97f4a7c15ull;
    h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
    h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
    return (uint64_t)(step % every) == (h ^ (h >> 31)) % (uint64_t)every;
}

void vs_sim_step(vs_sim *sim)
{
    const vs_backend *b = sim->backend;
    const int64_t step = sim->step + 1;
    phases_close(sim); /* a phase opened outside the step is marked as such */
    const int64_t every = sim->prm.output.timing_every > 1 ? sim->prm.output.timing_every : 1;
    sim->phase_weight = vs_sim_step_marked(every, step) ? (double)every : 0.0;

    /* skin 0: no Verlet skin, the lists are rebuilt on every step, so the displacement
     * check (a reduction and an allreduce) is skipped */
    const int moves_box = sim->ensemble->moves_box;
    const int every_step = sim->prm.neighbor.skin == 0.0 || moves_box; /* npt: a new box every step */
    if (moves_box)
        sim->energy_due |= VS_WANT_ENERGY; /* the barostat needs every step's virial */
    /* the previous step's second half and this step's first half in one pass */
    const int fused = sim->second_half_pending &&
                      vs_ensemble_fusable(sim->ensemble, b, &sim->prm, sim->step);
    /* a step that reads nothing back (every step rebuilds, no energies, the fused
     * half-steps) may go to the device as one unit, where the backend can; a reaction step,
     * whose events the host resolves, as two: up to the rebuild the events see, and from
     * the rebuild after them */
    const int react = vs_reactions_due(&sim->prm, step); /* sees the partners of now */
    const int collectable = every_step && !moves_box && !sim->energy_due && fused &&
                            b->step_collect_begin;
    int collected = collectable &&
                    b->step_collect_begin(sim->backend_state, react ? VS_COLLECT_BEFORE_REACTION
                                                                    : VS_COLLECT_STEP);
    phase_begin(sim, VS_TIMER_integrate);
    if (!sim->second_half_pending) {
        ensemble_first_half(sim);
    } else if (fused) {
        const vs_ens_ctx c = ensemble_ctx(sim, sim->step); /* the finished step's context */
        vs_ensemble_finish_and_first_half(sim->ensemble, &c);
    } else {
        ensemble_second_half(sim);
        ensemble_first_half(sim);
    }
    sim->second_half_pending = 0;
    const double local_max2 = every_step ? 0.0 : b->max_displacement2(sim->backend_state);

    double max2 = 0.0;
    if (!every_step) {
        phase_begin(sim, VS_TIMER_comm);
        max2 = vs_par_max_double(&sim->dc.cart, local_max2);
    }

    const double half_skin = 0.5 * sim->prm.neighbor.skin;
    sim->step = step; /* migration reports this step if a particle went astray */
    int forces_done = 0;
    if (every_step || react || !(max2 <= half_skin * half_skin)) {
        /* dangerous: a particle crossed the whole skin, so the previous list could have
         * missed pairs had it been kept one more step; the time step is too large for the
         * skin */
        if (!every_step && !(max2 <= sim->prm.neighbor.skin * sim->prm.neighbor.skin))
            sim->n_dangerous++;
        rebuild(sim);
        if (react) {
            if (collected)
                b->step_collect_end(sim->backend_state);
            collected = reaction_step(sim, step, collectable);
        }
    } else if (overlapped_forces(sim, step)) {
        forces_done = 1;
    } else {
        phase_begin(sim, VS_TIMER_comm);
        b->update_ghosts(sim->backend_state);
    }

    if (!forces_done) {
        phase_begin(sim, VS_TIMER_pair);
        compute_forces(sim, step);
    }
    /* the second half waits: the next step runs it with its first half in one pass, unless
     * the state is read first (vs_sim_finish_step) */
    sim->second_half_pending = 1;
    phases_close(sim);
    sim->phase_weight = 1.0;
    if (collected)
        b->step_collect_end(sim->backend_state);
}

void vs_sim_thermo(vs_sim *sim, vs_thermo *out)
{
    vs_sim_finish_step(sim);
    vs_thermo_local local;
    memset(&local, 0, sizeof local); /* a backend without bonded terms leaves them zero */
    sim->backend->local_thermo(sim->backend_state, &local);
    vs_thermo_reduce(&sim->dc.cart, &sim->prm, &local, sim->step, out);
    if (sim->tail_energy != 0.0 || sim->tail_virial != 0.0) { /* lj tail corrections */
        const double volume =
            sim->prm.system.box[0] * sim->prm.system.box[1] * sim->prm.system.box[2];
        out->potential += sim->tail_energy;
        out->pair_energy += sim->tail_energy;
        out->pressure += sim->tail_virial / (3.0 * volume);
        for (int k = VS_T_XX; k <= VS_T_ZZ && out->tensor; ++k) /* isotropic */
            out->ptensor[k] += sim->tail_virial / (3.0 * volume);
    }
    out->field = sim->prm.field.on;
    if (out->field) { /* the field term's W (term_field.h), a part of the potential */
        out->field_energy = vs_field_energy(&sim->dc.cart, sim->backend, sim->backend_state);
        out->potential += out->field_energy;
    }
    const vs_ens_ctx c = ensemble_ctx(sim, sim->step);
    vs_ensemble_thermo(sim->ensemble, &c, out);
    out->reactions = 0;
    if (sim->prm.reactions.on)
        vs_reactions_thermo(&sim->rx, &sim->prm, &sim->dc.cart, vs_sim_owned_particles(sim),
                            out);
}

int vs_sim_check_integrity(vs_sim *sim)
{
    vs_sim_finish_step(sim);
    vs_integrity_local local;
    sim->backend->local_integrity(sim->backend_state, &local);
    /* host copies are needed only to name a culprit; fetch them only then */
    const uint64_t sums[3] = {local.count, local.tag_sum, local.tag_square_sum};
    uint64_t global[3] = {sums[0], sums[1], sums[2]};
    vs_par_sum_uint64(&sim->dc.cart, global, 3);
    if (vs_par_any(&sim->dc.cart, local.bad_tag >= 0) ||
        !vs_integrity_sums_ok(global, sim->prm.system.n_particles))
        sim->backend->sync_host(sim->backend_state, &sim->parts);
    return vs_integrity_verify(&sim->dc.cart, &local, &sim->parts, sim->prm.system.n_particles,
                               sim->step);
}

void vs_sim_destroy(vs_sim *sim)
{
    if (sim->backend && sim->backend_state)
        sim->backend->detach(sim->backend_state);
    sim->backend_state = NULL;
    vs_particles_free(&sim->parts);
    vs_reactions_free(&sim->rx);
    vs_decomp_destroy(&sim->dc);
}
