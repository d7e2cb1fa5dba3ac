/* Run parameters: everything a configuration file (plus --set overrides) decides.
 *
 * Filled and fully validated by config.c before any other module sees it, so the engine can
 * trust every field (dt > 0, symmetric a_ij, fractions summing to 1, ...). Reduced DPD units
 * throughout: lengths in r_c-like units, masses in particle masses, energies in k_B T units.
 */
#ifndef VESICA_PARAMS_H
#define VESICA_PARAMS_H

#include <stdint.h>

#define VS_MAX_SPECIES 16
#define VS_NAME_LEN 32
#define VS_PATH_LEN 1024

#include "dpd_pair.h" /* vs_dpd_sigma_over_sqrt_dt */
#include "pair_aniso.h"
#include "pair_styles.h"
#include "wrap.h"

typedef enum { VS_RANDOM_UNIFORM = 0, VS_RANDOM_GAUSSIAN = 1 } vs_random_kind;
typedef enum { VS_BACKEND_AUTO = 0, VS_BACKEND_CPU = 1, VS_BACKEND_GPU = 2 } vs_backend_kind;
/* How the GPU backend moves halo and migration data between ranks (comm.transport). */
typedef enum {
    VS_TRANSPORT_AUTO = 0,
    VS_TRANSPORT_HOST = 1,      /* through pinned host buffers and MPI */
    VS_TRANSPORT_PEER = 2,      /* CUDA IPC, device to device, ranks of one node */
    VS_TRANSPORT_MPI_DEVICE = 3 /* device pointers to a CUDA-aware MPI */
} vs_transport_kind;
typedef enum { VS_PRECISION_MIXED = 0, VS_PRECISION_DOUBLE = 1 } vs_precision_kind;
/* GPU partner search: a Verlet list built one thread per particle or one warp per cell
 * (ballot), no Verlet list (the force kernel walks the cell list), or a half list for the
 * mixed Newton kernel (each pair once, kept between rebuilds with a skin). AUTO, the
 * configuration's default, reaches the backend as AUTO: the GPU backend's plan picks the
 * builder (at attach, by precision); the parser and the checkpoints never resolve it. */
typedef enum {
    VS_GPU_BUILDER_THREAD = 0,
    VS_GPU_BUILDER_WARP = 1,
    VS_GPU_BUILDER_CELLS = 2,
    VS_GPU_BUILDER_AUTO = 3,
    VS_GPU_BUILDER_HALF = 4
} vs_gpu_builder_kind;

/* The integrator and its ensemble (integrator.kind). DPD is Groot-Warren's velocity Verlet,
 * the thermostat being the DPD pair forces; the others are molecular-dynamics ensembles on
 * top of plain velocity Verlet (src/core/integrator.h, src/engine/ensemble.c). */
typedef enum {
    VS_INTEGRATOR_DPD = 0,
    VS_INTEGRATOR_NVE = 1,
    VS_INTEGRATOR_NOSE_HOOVER = 2,
    VS_INTEGRATOR_LANGEVIN = 3,
    VS_INTEGRATOR_ANDERSEN = 4,
    VS_INTEGRATOR_BERENDSEN = 5,
    VS_INTEGRATOR_BROWNIAN = 6,
    VS_INTEGRATOR_NPT = 7 /* Martyna-Tobias-Klein barostat with Nose-Hoover chains */
} vs_integrator_kind;
#define VS_MAX_CHAIN 10 /* Nose-Hoover chain length */

/* A driving field on top of the constant body force (flow.kind). */
typedef enum { VS_FLOW_NONE = 0, VS_FLOW_DOUBLE_POISEUILLE = 1 } vs_flow_kind;

/* The double (reverse) Poiseuille force of Backer et al. (J. Chem. Phys. 122, 154503, 2005):
 * +g along `axis` on a particle whose coordinate `across` lies in the lower half of the box,
 * -g in the upper half; on one species or on all (species = -1). */
typedef struct {
    vs_flow_kind kind;
    int axis;    /* 0, 1, 2: x, y, z */
    int across;  /* 0, 1, 2; differs from axis */
    int species; /* species index, or -1: every species */
    double g;    /* force per particle (force units) */
} vs_flow;

/* A conservative pair style (the `pair` list; evaluators and coefficients: pair_styles.h):
 * per species pair its coefficients and cut-off, or no interaction. */
typedef struct {
    int active;  /* the configuration lists this style */
    int shift;   /* lj, gaussian, table: energies shifted to 0 at each pair's cut-off */
    int wca;     /* lj: every pair cut at 2^(1/6) sigma and shifted */
    int tail;    /* lj, mie: long-range corrections to the energy and pressure */
    double reach; /* the largest cut-off of its pairs */
    /* special: the factors of the pairs 1-2, 1-3 and 1-4 apart along the bonds (special.h)
     * are special_factor[0..2]; 0: the style has no special key, every factor 1 */
    int special;
    double special_factor[3];
    char file[VS_PATH_LEN]; /* table: the file */
    vs_pair_coeff c[VS_MAX_SPECIES][VS_MAX_SPECIES];
} vs_pair_style_params;

/* Binned profiles along one axis (profiles group; io/profiles.h writes them). */
#define VS_MAX_PROFILE_TIMES 32
typedef struct {
    int axis;             /* -1: no profiles; 0, 1, 2: x, y, z */
    int bins;             /* >= 1 */
    int per_species;      /* 1: every species apart as well as all together */
    int64_t every;        /* steps between samples, >= 1 */
    int64_t window;       /* steps per window (windows end at multiples); 0: named times */
    int n_times;          /* named windows [t - half_width, t + half_width] when window = 0 */
    double times[VS_MAX_PROFILE_TIMES];
    double half_width;
} vs_profiles_params;
/* Molecules (topology.h has the per-particle records, bonded.h the evaluators). */
#define VS_MAX_MOLTYPES 8    /* molecule templates */
#define VS_MAX_SEQUENCE 64   /* beads in a template's repeated unit */
typedef enum { VS_BOND_HARMONIC = 0, VS_BOND_FENE = 1, VS_BOND_TABLE = 2 } vs_bond_style;
typedef enum {
    VS_ANGLE_HARMONIC = 0,
    VS_ANGLE_COSINE = 1,
    VS_ANGLE_COSINE_SQUARED = 2,
    VS_ANGLE_TABLE = 3
} vs_angle_style;
typedef enum {
    VS_DIHEDRAL_PERIODIC = 0,       /* K (1 + cos(n phi - delta)) */
    VS_DIHEDRAL_HARMONIC = 1,       /* K/2 (phi - phi0)^2, phi - phi0 taken in [-pi, pi) */
    VS_DIHEDRAL_MULTI_HARMONIC = 2, /* sum_{k=0..4} A_k cos^k phi */
    VS_DIHEDRAL_TABLE = 3
} vs_dihedral_style;

/* A tabulated energy E(x) (bonded `table` styles, src/core/table.h): a cubic spline on the
 * uniform grid x_k = lo + k dx, k < n, as coefficients c[4 k .. 4 k + 3] of interval k
 * (E = c0 + s (c1 + s (c2 + s c3)), s = x - x_k). x is a length (bonds) or an angle in
 * radians (angles, dihedrals). coef is on the host (built with the configuration and kept
 * for the run); the GPU backend uploads a copy and points its own copy of the type at it. */
typedef struct {
    int n;
    double lo, dx;
    const double *coef;
} vs_table;
#define VS_DIHEDRAL_TERMS 5 /* coefficients of the multi-harmonic series */

typedef struct {
    int style;       /* vs_bond_style */
    double K;        /* stiffness (energy / length^2) */
    double r0;       /* harmonic: rest length; fene: the maximum extension R0 */
    vs_table tab;    /* table: E(r) */
} vs_bond_type;

typedef struct {
    int style;       /* vs_angle_style */
    double K;        /* energy (cosine) or energy / rad^2 (harmonic) */
    double theta0;   /* harmonic, cosine_squared: rest angle in radians */
    vs_table tab;    /* table: E(theta) on [0, pi] */
} vs_angle_type;

typedef struct {
    int style;       /* vs_dihedral_style */
    int n;           /* periodic: multiplicity, >= 0 */
    double K;        /* periodic, harmonic: energy (periodic) or energy / rad^2 (harmonic) */
    double phi0;     /* periodic: the phase delta; harmonic: the rest angle (radians) */
    double A[VS_DIHEDRAL_TERMS]; /* multi_harmonic: A_0 .. A_4 (energy) */
    vs_table tab;    /* table: E(phi) on [-pi, pi], periodic */
} vs_dihedral_type;

/* A molecule template of the builder: a linear chain of `repeat` copies of the unit
 * seq[0 .. n_seq), every consecutive pair bonded by bond type `bond_type`, every consecutive
 * triple an angle of type `angle_type` (-1: no angles), every consecutive quadruple a
 * dihedral of type `dihedral_type` (-1: no dihedrals). */
typedef struct {
    char name[VS_NAME_LEN];
    int n_seq;
    int32_t seq[VS_MAX_SEQUENCE]; /* species of the unit's beads */
    int64_t repeat;
    int64_t count;                /* molecules of this template */
    double bond_length;           /* step of the random walk that places the beads */
    int bond_type, angle_type, dihedral_type; /* angle, dihedral: -1 where none */
} vs_mol_template;

/* The initial state read from a file (input group) instead of built from the configuration:
 * io/input_system.h reads it. */
typedef enum { VS_INPUT_NONE = 0, VS_INPUT_LAMMPS_DATA = 1, VS_INPUT_H5MD = 2 } vs_input_format;
typedef struct {
    int format;          /* vs_input_format */
    int species_by_name; /* 1: file types onto species by name; 0: type k onto species.[k-1] */
    int topology;        /* the particles carry topology records (molecule ids, bonds); set
                            from the file's header before the simulation is created */
    int64_t frame;       /* h5md: the frame read; -1: the last */
    int replicate[3];    /* copies of the file's system along x, y and z (1: the file alone) */
    char file[VS_PATH_LEN];
} vs_input;

typedef struct {
    char name[VS_NAME_LEN];
    double mass;          /* particle mass, > 0 */
    double fraction;      /* number fraction of all particles, fractions sum to 1 */
    double body_force[3]; /* constant force on every particle of the species (force units) */
    int frozen;           /* 1: its particles never move (wall particles; boundary.h) */
    double inertia;       /* moment of inertia I of an oriented particle (mass length^2);
                             0: a point bead without orientation */
} vs_species;

/* The boundary of one axis (boundary.x, .y, .z; src/core/boundary.h has the physics). */
typedef enum {
    VS_BOUNDARY_PERIODIC = 0,
    VS_BOUNDARY_BOUNCE_FORWARD = 1, /* specular: mirrored, normal velocity turned inward */
    VS_BOUNDARY_BOUNCE_BACK = 2     /* no slip: mirrored, velocity reversed relative to the wall */
} vs_boundary_kind;
typedef enum {
    VS_WALL_FORCE_NONE = 0,
    VS_WALL_FORCE_ERFC = 1, /* f erfc(sqrt(3) (h - d/2) / d), USER-MESO's form */
    VS_WALL_FORCE_DPD = 2   /* f (1 - h / d), DPD's conservative weight */
} vs_wall_force_kind;
typedef struct {
    int kind;              /* vs_boundary_kind */
    double velocity_lo[3]; /* bounce_back: velocity of the wall at 0 (tangential) */
    double velocity_hi[3]; /* bounce_back: velocity of the wall at the box edge */
    int force;             /* vs_wall_force_kind, on particles within force_d of a face */
    double force_f;        /* its strength (force units) */
    double force_d;        /* its range (length), > 0 with a force */
} vs_wall;

/* ---- The parts of vs_params, one per concern ------------------------------------------- */

/* The system: its box, size and seed. */
typedef struct {
    double box[3];         /* periodic box edges, each >= 2 r_c */
    int64_t n_particles;   /* total particle count (given, or density * volume rounded) */
    double density;        /* number density actually used: n_particles / volume */
    uint64_t seed;         /* 64-bit seed: initial state and the pair random stream */
} vs_system_params;

/* The particle species. */
typedef struct {
    int n;
    vs_species list[VS_MAX_SPECIES];
} vs_species_params;

/* A number that may differ per species pair (dpd.gamma): one number for every pair, or a
 * symmetric matrix given by species names like dpd.a. */
typedef struct {
    double v;       /* the one number; given per pair: the largest pair's (the checks that need
                       one number, such as the step-size watch, read it) */
    int per_pair;   /* 1: ij holds each pair's value; 0: every pair's is v (ij unused) */
    double ij[VS_MAX_SPECIES][VS_MAX_SPECIES];
} vs_pair_real;

/* The value of species pair (i, j). */
static inline double vs_pair_real_at(const vs_pair_real *x, int i, int j)
{
    return x->per_pair ? x->ij[i][j] : x->v;
}

/* Whether every pair of the first n species has the one value v: a matrix of equal entries
 * is the same physics as that one number (the same forces, comparison, hash and checkpoint). */
static inline int vs_pair_real_uniform(const vs_pair_real *x, int n)
{
    for (int i = 0; x->per_pair && i < n; ++i)
        for (int j = 0; j < n; ++j)
            if (x->ij[i][j] != x->v)
                return 0;
    return 1;
}

/* The boundaries: a kind per axis (periodic by default), and the wall particles. */
typedef struct {
    vs_wall axis[3];
    int64_t n_frozen; /* particles of frozen species, counted by the engine at the start */
} vs_boundary_params;

/* The DPD pair interaction. */
typedef struct {
    double a[VS_MAX_SPECIES][VS_MAX_SPECIES]; /* conservative amplitudes a_ij, symmetric */
    vs_pair_real gamma;    /* dissipative strength gamma_ij, >= 0; sigma_ij^2 = 2 gamma_ij kT */
    double kT;             /* thermostat temperature k_B T, >= 0 */
    double rc;             /* cutoff radius, > 0 */
    double s;              /* weight exponent: w_D = w^(2s), w_R = w^s; 1 = Groot-Warren */
    vs_random_kind random; /* distribution of xi_ij */
} vs_dpd_params;

/* Each species pair's dissipative strength and random amplitude, for dpd.gamma given per
 * species pair: the backends look both up by the pair's species, as they do a_ij. */
typedef struct {
    double gamma[VS_MAX_SPECIES][VS_MAX_SPECIES];
    double sigma_over_sqrt_dt[VS_MAX_SPECIES][VS_MAX_SPECIES];
} vs_dpd_pair_table;

/* The table of gamma_ij (every entry the one number where dpd.gamma is one) for the first n
 * species. */
static inline vs_dpd_pair_table vs_dpd_make_pair_table(const vs_pair_real *gamma, int n,
                                                       double kT, double dt)
{
    vs_dpd_pair_table t;
    for (int i = 0; i < VS_MAX_SPECIES; ++i)
        for (int j = 0; j < VS_MAX_SPECIES; ++j) {
            const double g = i < n && j < n ? vs_pair_real_at(gamma, i, j) : 0.0;
            t.gamma[i][j] = g;
            t.sigma_over_sqrt_dt[i][j] = vs_dpd_sigma_over_sqrt_dt(g, kT, dt);
        }
    return t;
}

/* The conservative pair styles (pair list), indexed by vs_pair_style, and the tables of the
 * table style: large (mostly the tables), so they live on the heap, apart from vs_params. */
typedef struct {
    vs_pair_style_params style[VS_PAIR_STYLES];
    int n_tables;
    char table_keyword[VS_MAX_TABLES][VS_NAME_LEN]; /* each table's section in the file */
    vs_pair_table tables[VS_MAX_TABLES]; /* filled by the run from the file (pair_tables.c) */
} vs_pair_set;

typedef struct {
    /* The styles and tables: allocated by the configuration parser (vs_params_release frees
     * them). NULL, in parameters built by hand, reads as no pair style (vs_pair_style_of). Copies
     * of a vs_params share the set. */
    vs_pair_set *set;
    int64_t code; /* a 52-bit hash of the pair styles and their tables, a physics key
                     (vs_pair_set_code); 0: no pair style */
} vs_pair_params;

/* The soft anisotropic pair style (aniso group; src/core/pair_aniso.h): one model per run,
 * its coefficients per species pair (both species oriented). */
typedef struct {
    int style;     /* vs_aniso_style; VS_ANISO_NONE: no anisotropic interaction */
    int pad;
    double reach;  /* the largest cut-off of its pairs */
    int64_t code;  /* a 52-bit hash of the style, its coefficients and the species' moments
                      of inertia, a physics key; 0: no oriented species */
    vs_aniso_coeff c[VS_MAX_SPECIES][VS_MAX_SPECIES];
} vs_aniso_params;

/* Integration: the time step and the ensemble. */
typedef struct {
    double dt;             /* time step, > 0 */
    double lambda;         /* Groot-Warren velocity-prediction factor, in [0, 1] */
    vs_integrator_kind kind; /* the ensemble; the keys below are 0 where unused */
    double tau;            /* nose_hoover, berendsen, npt: thermostat time constant, > 0 */
    int chain;             /* nose_hoover, npt: chain length M, 1..VS_MAX_CHAIN */
    double pressure;       /* npt: the target (external) pressure */
    double tau_p;          /* npt: the barostat's time constant, > 0 (0: no barostat) */
    double friction;       /* langevin, brownian: friction rate gamma (1/time): the drag
                              force is -m gamma v; brownian: D = kT / (m gamma) */
    double collision_rate; /* andersen: collisions per particle per unit time */
    int64_t remove_com_every; /* steps between removals of the centre-of-mass velocity; 0 off */
    int64_t steps;         /* final step number of the campaign, >= 0 (a restart continues to it) */
} vs_integrator_params;

/* The neighbour lists. */
typedef struct {
    double skin;           /* Verlet skin, > 0 */
} vs_neighbor_params;

/* Execution: where and how the step runs. None of it changes what is simulated. */
typedef struct {
    vs_backend_kind backend;
    vs_precision_kind precision; /* GPU arithmetic mode; the CPU backend is always double */
    vs_gpu_builder_kind gpu_builder; /* how the GPU backend builds the neighbour list */
    int decomposition[3];  /* ranks per dimension; all zero = choose automatically */
    vs_transport_kind transport; /* GPU halo transport */
    int overlap;           /* GPU: interior forces while the ghosts travel (1 = on) */
    /* the grid of mixed GPU positions (src/core/position_grid.h), set by the engine; 0 = none */
    double position_quantum;
} vs_exec_params;

/* Output files. */
typedef struct {
    char dir[VS_PATH_LEN];
    int64_t thermo_interval;     /* steps between thermo rows, > 0 */
    int64_t trajectory_interval; /* steps between H5MD frames; 0 = no trajectory */
    int64_t checkpoint_interval; /* steps between checkpoints; 0 = only at the end */
    int64_t checkpoint_keep;     /* checkpoints kept, newest first; 0 = no checkpoints */
    int pressure_tensor;         /* 1: the six components in thermo.csv and per profile bin */
    vs_profiles_params profiles; /* binned profiles; axis -1 = none */
    int64_t field_interval;      /* steps between density-field frames (fields.h5); 0 = none */
    int64_t timing_every;        /* device phase marks on one step in this many, >= 1 */
} vs_output_params;

/* Run control: the wall-time limit and the watchdog's tolerances (app/watch.h). */
typedef struct {
    double walltime;       /* hours this run may last (checkpoint and stop before); 0 = no limit */
    double temperature_tolerance; /* |T / kT - 1| beyond which a thermo row is far; 0 = off */
    int64_t temperature_rows;     /* far rows in a row that stop the run; 0 = warn only */
    double equilibration_time;    /* time (step * dt) before which T is not watched */
    double momentum_tolerance;    /* drift of the total momentum that warns (thermal units); 0 = off */
    double momentum_limit;        /* ... that stops the run; 0 = warn only */
    double energy_tolerance;      /* drift of the conserved energy that warns (of K0); 0 = off */
    double energy_limit;          /* ... that stops the run; 0 = warn only */
} vs_run_params;

/* Molecules: none when n_moltypes == 0 (the plain fluid). Tags [0, n_molecule_beads) are the
 * molecules' beads, template by template, molecule by molecule; the rest are free beads whose
 * species follow the species fractions. */
typedef struct {
    int n_moltypes;
    vs_mol_template mol[VS_MAX_MOLTYPES];
    int n_bond_types, n_angle_types, n_dihedral_types; /* one of each per template (angle,
                                        dihedral: where given), or bonded.bonds, .angles and
                                        .dihedrals with an input file */
    vs_bond_type bond_types[VS_MAX_MOLTYPES];
    vs_angle_type angle_types[VS_MAX_MOLTYPES];
    vs_dihedral_type dihedral_types[VS_MAX_MOLTYPES];
    double bond_reach;     /* the longest bond allowed: the ghost shell of bonded beads */
    int64_t n_molecule_beads;
    int64_t code;          /* hash of the bond, angle and dihedral types, tables included
                              (vs_bonded_set_code); 0: none; -1: read from a checkpoint
                              that predates it (not compared) */
} vs_molecules_params;

/* Reactions (the reactions group; src/core/reaction.h has the draws and the records,
 * src/engine/reactions.c the step): the topology and the species change every `interval`
 * steps. Species are indices into vs_params.species, -1 where none; bond and angle types
 * index molecules.bond_types and angle_types (the reactions' types follow the molecules'). */
#define VS_MAX_REACTION_RULES 4
/* Chain growth (GALAMOST's stochastic model): an active end of species s looks for free
 * monomers within `radius`, picks one at random and bonds it with probability Pr; the end
 * becomes species reacted[s], the monomer species new_end (an active end in its turn). */
typedef struct {
    int on;
    int active[VS_MAX_SPECIES];  /* 1: species s is an active end */
    int reacted[VS_MAX_SPECIES]; /* what active species s becomes once it has reacted */
    int monomer, new_end;
    double radius, probability;  /* reaction radius; Pr, in [0, 1] */
    int bond_type, angle_type;   /* of the new bond, and of the angle prev-end-monomer (-1) */
} vs_chain_growth;
/* Bond creation (LAMMPS's fix bond/create): beads of species i and j within `radius`, each
 * with fewer bonds than its max_bonds, that are each other's nearest such partner, bond with
 * `probability`; they then become species new_i and new_j (-1: unchanged). */
typedef struct {
    int species_i, species_j;
    double radius, probability;
    int max_bonds_i, max_bonds_j;
    int new_i, new_j;
    int bond_type, angle_type;   /* the new bond's; angles with the beads' other bonds (-1) */
} vs_bond_create_rule;
/* Bond breaking (LAMMPS's fix bond/break): a bond between species i and j longer than
 * `length` breaks with `probability`. */
typedef struct {
    int species_i, species_j;
    double length, probability;
} vs_bond_break_rule;
typedef struct {
    int on;                      /* some rule is configured */
    int64_t interval;            /* tau: steps between reaction steps (multiples of it) */
    vs_chain_growth chain;
    int n_create, n_break;
    vs_bond_create_rule create[VS_MAX_REACTION_RULES];
    vs_bond_break_rule brk[VS_MAX_REACTION_RULES];
    int64_t code;                /* a 52-bit hash of the rules, a physics key; 0: none */
} vs_reaction_params;

/* Hybrid particle-field MD-SCF (the field group; src/core/field_grid.h has the grid and the
 * physics, src/cpu/field_cpu.c the CPU term): the species named in field.chi interact through
 * density fields on a grid of `spacing`, recomputed every `interval` steps. Species s is field
 * species index of[s] (-1: not a field species), in the order of `species` (n of them). */
typedef struct {
    int on;
    double spacing;              /* the grid's cell edge asked for (length) */
    int64_t interval;            /* steps between field updates (the multiples of it) */
    double kappa;                /* compressibility (1/kappa: energy) */
    int force;                   /* VS_FIELD_FORCE_* */
    int n;                       /* field species */
    int species[VS_MAX_SPECIES]; /* field species k is species species[k] */
    int of[VS_MAX_SPECIES];      /* the field index of species s, or -1 */
    double chi[VS_MAX_SPECIES][VS_MAX_SPECIES]; /* chi_kl over field indices (symmetric) */
    int64_t code;                /* a 52-bit hash of the above, a physics key; 0: none */
} vs_field_params;
enum { VS_FIELD_FORCE_GRADIENT = 0, VS_FIELD_FORCE_ENERGY = 1 };
/* Monte Carlo (the mc group; src/engine/mc/ runs it, `vesica mc CONFIG`): Metropolis moves of
 * the same particles and pair styles, in one box (nvt, npt, gcmc) or two (gibbs: the NVT Gibbs
 * ensemble; gibbs_npt: the NPT Gibbs ensemble, for mixtures). Present only in a configuration
 * for the Monte Carlo engine (on = 1). */
typedef enum {
    VS_MC_NVT = 0,
    VS_MC_NPT = 1,
    VS_MC_GCMC = 2,
    VS_MC_GIBBS = 3,
    VS_MC_GIBBS_NPT = 4
} vs_mc_ensemble;
typedef enum { VS_MC_DISPLACE = 0, VS_MC_VOLUME = 1, VS_MC_EXCHANGE = 2, VS_MC_MOVES = 3 } vs_mc_move;
/* How displacements are attempted: one particle at a time, or a checkerboard of cells whose
 * particles move at once (src/core/mc_sweep.h; the CPU and the GPU backends). */
typedef enum { VS_MC_SWEEP_SEQUENTIAL = 0, VS_MC_SWEEP_CHECKERBOARD = 1 } vs_mc_sweep_kind;
/* How the boxes are held over several ranks: whole on every rank, or split by brick
 * (src/engine/mc/mc_domain.h; the CPU). */
typedef enum { VS_MC_REPLICATED = 0, VS_MC_DOMAIN = 1 } vs_mc_decomposition;
typedef struct {
    int on;                   /* the configuration has an mc group */
    int ensemble;             /* vs_mc_ensemble */
    double kT;                /* temperature k_B T, > 0 */
    double pressure;          /* npt, gibbs_npt: the imposed pressure, > 0 */
    double activity;          /* gcmc: z = exp(mu / kT) / Lambda^3 (Lambda = 1), > 0 */
    int64_t cycles;           /* final cycle number (a restart continues to it) */
    int64_t moves_per_cycle;  /* 0: the particles at the start, at least 1 */
    int64_t equilibration;    /* cycles during which the step sizes are tuned */
    int64_t tune_every;       /* cycles between two tunings of the step sizes */
    double target_acceptance; /* the displacement and volume moves' aim while tuning */
    double p_move[VS_MC_MOVES];   /* probability of each move kind, summing to 1 */
    double max_displacement;  /* initial largest displacement per axis (length) */
    double max_log_volume;    /* initial largest change of ln V (npt; gibbs_npt: of the box
                                 moved) or ln(V1/V2) (gibbs) */
    double box2[3];           /* gibbs, gibbs_npt: the second box's edges */
    int64_t particles2;       /* gibbs, gibbs_npt: the second box's particles */
    int64_t blocks;           /* blocks of the closing block averages (mc_summary.h5) */
    double energy_bin;        /* gcmc: energy bin of the (N, E) histogram; 0: kT / 10 */
    int sweep;                /* vs_mc_sweep_kind */
    int decomposition;        /* vs_mc_decomposition */
} vs_mc_params;

/* Run parameters, in parts. Modules take const pointers to the parts (or the whole) they
 * use; one vs_params lives in the simulation (vs_sim), the backends point at it. */
typedef struct {
    vs_system_params system;
    vs_boundary_params boundary;
    vs_species_params species;
    vs_dpd_params dpd;
    vs_pair_params pair;
    vs_aniso_params aniso;        /* orientations and the anisotropic pair style (aniso.*) */
    vs_flow flow;                 /* external driving field (a force-field term; flow.*) */
    vs_integrator_params integrator;
    vs_neighbor_params neighbor;
    vs_exec_params exec;
    vs_output_params output;
    vs_run_params run;
    vs_molecules_params molecules;
    vs_reaction_params reactions; /* bonds made and broken during the run (reactions.*) */
    vs_field_params field;        /* particle-field interactions (field.*) */
    vs_mc_params mc;              /* the Monte Carlo engine's keys (mc.*); on = 0 for MD */
    /* input: the system read from a file (format VS_INPUT_NONE: built). With a file, box and
     * n_particles are the file's, n_moltypes is 0 and the bond and angle types are the
     * bonded.bonds and bonded.angles lists, numbered as the file's types. */
    vs_input input;
} vs_params;

/* Whether some axis has walls (not periodic). */
static inline int vs_has_walls(const vs_params *p)
{
    return p->boundary.axis[0].kind != VS_BOUNDARY_PERIODIC ||
           p->boundary.axis[1].kind != VS_BOUNDARY_PERIODIC ||
           p->boundary.axis[2].kind != VS_BOUNDARY_PERIODIC;
}

/* Whether axis d is periodic. */
static inline int vs_axis_periodic(const vs_params *p, int d)
{
    return p->boundary.axis[d].kind == VS_BOUNDARY_PERIODIC;
}

/* The walls of p as the integrators' reflection reads them (wrap.h). */
static inline vs_walls vs_walls_of(const vs_params *p)
{
    vs_walls w;
    for (int d = 0; d < 3; ++d) {
        const vs_wall *a = &p->boundary.axis[d];
        w.kind[d] = a->kind;
        w.len[d] = p->system.box[d];
        for (int q = 0; q < 3; ++q) {
            w.u[d][0][q] = a->kind == VS_BOUNDARY_BOUNCE_BACK ? a->velocity_lo[q] : 0.0;
            w.u[d][1][q] = a->kind == VS_BOUNDARY_BOUNCE_BACK ? a->velocity_hi[q] : 0.0;
        }
    }
    return w;
}

/* Frees what p owns on the heap (the pair set) and clears the pointer; for the owner of the
 * parameters the parser filled (copies share the set). */
void vs_params_release(vs_params *p);

/* Pair style s of p: its options and coefficients (all zero, inactive, when p has no set). */
static inline const vs_pair_style_params *vs_pair_style_of(const vs_params *p, int s)
{
    static vs_pair_style_params none; /* all zero; not const: C++ wants a const one initialised */
    return p->pair.set ? &p->pair.set->style[s] : &none;
}

/* Whether the particles carry topology records: molecules built or read, or reactions that
 * make bonds during the run. */
static inline int vs_params_molecular(const vs_params *p)
{
    return p->molecules.n_moltypes > 0 || p->input.topology || p->reactions.on;
}

/* Whether the particles carry dihedral records (topology.h): molecules with dihedral types. */
static inline int vs_params_dihedrals(const vs_params *p)
{
    return vs_params_molecular(p) && p->molecules.n_dihedral_types > 0;
}

/* The deepest level of special neighbours some active pair style scales (1: 1-2, 2: 1-3,
 * 3: 1-4), or 0 when none does or the run has no molecules: the particles carry special
 * lists (special.h) exactly when this is > 0. */
static inline int vs_special_depth(const vs_params *p)
{
    int depth = 0;
    for (int s = 0; vs_params_molecular(p) && s < VS_PAIR_STYLES; ++s) {
        const vs_pair_style_params *ps = vs_pair_style_of(p, s);
        for (int l = 0; l < 3; ++l)
            if (ps->active && ps->special && ps->special_factor[l] != 1.0 && l + 1 > depth)
                depth = l + 1;
    }
    return depth;
}

/* Whether the particles carry orientations (vs_orient, particles.h): some species has a
 * moment of inertia. */
static inline int vs_params_oriented(const vs_params *p)
{
    for (int s = 0; s < p->species.n; ++s)
        if (p->species.list[s].inertia > 0.0)
            return 1;
    return 0;
}

/* Whether some conservative pair style (the pair list) is configured. */
static inline int vs_pair_styles_active(const vs_params *p)
{
    int any = 0;
    for (int s = 0; s < VS_PAIR_STYLES; ++s)
        any |= vs_pair_style_of(p, s)->active;
    return any;
}

/* Whether the DPD pair term acts: some a_ij or gamma is not zero, or no other pair style
 * (nor the anisotropic one) is configured (a configuration of DPD alone keeps its term whatever its values). */
static inline int vs_dpd_active(const vs_params *p)
{
    if ((!vs_pair_styles_active(p) && p->aniso.style == VS_ANISO_NONE) || p->dpd.gamma.v > 0.0)
        return 1;
    for (int i = 0; i < p->species.n; ++i)
        for (int j = 0; j < p->species.n; ++j)
            if (p->dpd.a[i][j] != 0.0)
                return 1;
    return 0;
}

/* Whether the DPD term acts but adds nothing: every a_ij and gamma_ij is zero, and it is
 * active only because a configuration needs a pair term first (a system whose non-bonded
 * forces all come from elsewhere, e.g. the particle-field term with a Langevin or Andersen
 * thermostat). Its forces, energy and virial are zero, so the backends skip its pair walk. */
static inline int vs_dpd_inert(const vs_params *p)
{
    if (!vs_dpd_active(p) || vs_pair_styles_active(p) || p->aniso.style != VS_ANISO_NONE ||
        p->dpd.gamma.v != 0.0)
        return 0;
    for (int i = 0; i < p->species.n; ++i)
        for (int j = 0; j < p->species.n; ++j)
            if (p->dpd.a[i][j] != 0.0 || vs_pair_real_at(&p->dpd.gamma, i, j) != 0.0)
                return 0;
    return 1;
}

/* The pair terms' reach: the largest cut-off of the active pair terms (DPD's rc and every
 * pair style's pairs). */
static inline double vs_pair_reach(const vs_params *p)
{
    double r = vs_dpd_active(p) ? p->dpd.rc : 0.0;
    for (int s = 0; s < VS_PAIR_STYLES; ++s)
        if (vs_pair_style_of(p, s)->active && vs_pair_style_of(p, s)->reach > r)
            r = vs_pair_style_of(p, s)->reach;
    if (p->aniso.style != VS_ANISO_NONE && p->aniso.reach > r)
        r = p->aniso.reach;
    return r;
}

/* The radius of the neighbour lists and the width of the ghost shell: every pair within the
 * pair terms' reach is found until some particle has moved half the skin. */
static inline double vs_list_radius(const vs_params *p)
{
    return vs_pair_reach(p) + p->neighbor.skin;
}

#endif
