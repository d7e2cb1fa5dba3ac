/* The parameter schema: see param_schema.h. The table drives everything config.c does per
 * key (unknown-key check, type and range checks, their wording, --set paths, defaults, the
 * extraction into vs_params) and the physics keys (physics_keys.c); docs/configuration.md
 * documents every path in it (tests/config walks the table to check).
 */
#include "param_schema.h"

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "params.h"
#include "topology.h"

/* Designated initialisers throughout, so unnamed checks are zero (-Wextra stays quiet). */
#define KEY(p, t, n, d, doc_) .path = (p), .type = (t), .need = (n), .def = (d), .doc = (doc_)
#define NUM_GT(x) .bounds = B_LO | B_LO_OPEN, .lo = (x)
#define NUM_GE(x) .bounds = B_LO, .lo = (x)
#define NUM_IN(a, b) .bounds = B_LO | B_HI, .lo = (a), .hi = (b)
#define INT_GE(x) .ilo = (x), .ihi = INT64_MAX
/* Where a value lands (param_schema.h): copied by config.c's loop, or by dedicated code. */
#define FIELD_SIZE(T, f) sizeof(((T *)0)->f)
#define LAND(f)                                                                                    \
    .land = LAND_AUTO, .offset = offsetof(vs_params, f), .size = FIELD_SIZE(vs_params, f)
#define OWN(f) .land = LAND_OWN, .offset = offsetof(vs_params, f), .size = FIELD_SIZE(vs_params, f)
#define OWN_SPECIES(f) \
    .land = LAND_OWN, .offset = offsetof(vs_species, f), .size = FIELD_SIZE(vs_species, f)
/* A physics key: its place in the order of the restart comparison, the hash and the
 * checkpoint (physics_keys.c; the order is part of the hash checkpoints store), its
 * checkpoint attribute and how it is compared. */
#define PHYS(n, st, k) .physics = (n), .stored = (st), .phys_kind = (k)

/* Names tied to the enum values of params.h explicitly, not by position. */
static const key_choice RANDOM_CHOICES[] = {
    {"uniform", VS_RANDOM_UNIFORM}, {"gaussian", VS_RANDOM_GAUSSIAN}, {NULL, 0}};
static const key_choice BACKEND_CHOICES[] = {
    {"auto", VS_BACKEND_AUTO}, {"cpu", VS_BACKEND_CPU}, {"gpu", VS_BACKEND_GPU}, {NULL, 0}};
static const key_choice BUILDER_CHOICES[] = {
    {"thread", VS_GPU_BUILDER_THREAD},
    {"warp", VS_GPU_BUILDER_WARP},
    {"cells", VS_GPU_BUILDER_CELLS},
    {"half", VS_GPU_BUILDER_HALF},
    {"auto", VS_GPU_BUILDER_AUTO},
    {NULL, 0}};
static const key_choice TRANSPORT_CHOICES[] = {
    {"auto", VS_TRANSPORT_AUTO},
    {"host", VS_TRANSPORT_HOST},
    {"peer", VS_TRANSPORT_PEER},
    {"mpi-device", VS_TRANSPORT_MPI_DEVICE},
    {NULL, 0}};
static const key_choice BOND_CHOICES[] = {
    {"harmonic", VS_BOND_HARMONIC}, {"fene", VS_BOND_FENE}, {"table", VS_BOND_TABLE}, {NULL, 0}};
static const key_choice ANGLE_CHOICES[] = {{"harmonic", VS_ANGLE_HARMONIC},
                                           {"cosine", VS_ANGLE_COSINE},
                                           {"cosine_squared", VS_ANGLE_COSINE_SQUARED},
                                           {"table", VS_ANGLE_TABLE},
                                           {NULL, 0}};
static const key_choice DIHEDRAL_CHOICES[] = {{"periodic", VS_DIHEDRAL_PERIODIC},
                                              {"harmonic", VS_DIHEDRAL_HARMONIC},
                                              {"multi_harmonic", VS_DIHEDRAL_MULTI_HARMONIC},
                                              {"table", VS_DIHEDRAL_TABLE},
                                              {NULL, 0}};
static const key_choice ON_OFF_CHOICES[] = {{"on", 1}, {"off", 0}, {NULL, 0}};
static const key_choice FLOW_CHOICES[] = {
    {"none", VS_FLOW_NONE}, {"double_poiseuille", VS_FLOW_DOUBLE_POISEUILLE}, {NULL, 0}};
static const key_choice FIELD_FORCE_CHOICES[] = {
    {"gradient", VS_FIELD_FORCE_GRADIENT}, {"energy", VS_FIELD_FORCE_ENERGY}, {NULL, 0}};
static const key_choice AXIS_CHOICES[] = {{"x", 0}, {"y", 1}, {"z", 2}, {NULL, 0}};
static const key_choice PROFILE_AXIS_CHOICES[] = {
    {"none", -1}, {"x", 0}, {"y", 1}, {"z", 2}, {NULL, 0}};
static const key_choice INPUT_FORMAT_CHOICES[] = {
    {"lammps-data", VS_INPUT_LAMMPS_DATA}, {"h5md", VS_INPUT_H5MD}, {NULL, 0}};
static const key_choice INPUT_SPECIES_CHOICES[] = {{"type", 0}, {"name", 1}, {NULL, 0}};
#define PAIR_STYLE_CHOICE_(ID, NAME) {#NAME, ID},
static const key_choice PAIR_STYLE_CHOICES[] = {VS_PAIR_STYLE_LIST(PAIR_STYLE_CHOICE_){NULL, 0}};
#define PAIR_STYLE_NAME_(ID, NAME) " " #NAME
static const key_choice INTEGRATOR_CHOICES[] = {
    {"dpd", VS_INTEGRATOR_DPD},           {"nve", VS_INTEGRATOR_NVE},
    {"nose_hoover", VS_INTEGRATOR_NOSE_HOOVER}, {"langevin", VS_INTEGRATOR_LANGEVIN},
    {"andersen", VS_INTEGRATOR_ANDERSEN}, {"berendsen", VS_INTEGRATOR_BERENDSEN},
    {"brownian", VS_INTEGRATOR_BROWNIAN}, {"npt", VS_INTEGRATOR_NPT}, {NULL, 0}};
static const key_choice BOUNDARY_CHOICES[] = {{"periodic", VS_BOUNDARY_PERIODIC},
                                              {"bounce_forward", VS_BOUNDARY_BOUNCE_FORWARD},
                                              {"bounce_back", VS_BOUNDARY_BOUNCE_BACK},
                                              {NULL, 0}};
static const key_choice WALL_FORCE_CHOICES[] = {
    {"none", VS_WALL_FORCE_NONE}, {"erfc", VS_WALL_FORCE_ERFC}, {"dpd", VS_WALL_FORCE_DPD},
    {NULL, 0}};
static const key_choice ANISO_STYLE_CHOICES[] = {{"disk", VS_ANISO_DISK},
                                                  {"rod", VS_ANISO_ROD},
                                                  {"janus", VS_ANISO_JANUS},
                                                  {"triblock", VS_ANISO_TRIBLOCK},
                                                  {NULL, 0}};
static const key_choice MC_ENSEMBLE_CHOICES[] = {
    {"nvt", VS_MC_NVT}, {"npt", VS_MC_NPT}, {"gcmc", VS_MC_GCMC}, {"gibbs", VS_MC_GIBBS},
    {"gibbs_npt", VS_MC_GIBBS_NPT}, {NULL, 0}};
static const key_choice MC_SWEEP_CHOICES[] = {
    {"sequential", VS_MC_SWEEP_SEQUENTIAL}, {"checkerboard", VS_MC_SWEEP_CHECKERBOARD}, {NULL, 0}};
static const key_choice MC_DECOMPOSITION_CHOICES[] = {
    {"replicated", VS_MC_REPLICATED}, {"domain", VS_MC_DOMAIN}, {NULL, 0}};
static const key_choice PRECISION_CHOICES[] = {
    {"mixed", VS_PRECISION_MIXED}, {"double", VS_PRECISION_DOUBLE}, {NULL, 0}};

/* The rows of one bond, angle and dihedral type, declared once for the two places that
 * give one: a molecule template (molecules.[].bond, .angle, .dihedral) and, with an input
 * file, the type lists (bonded.bonds.[], .angles.[], .dihedrals.[]). P: the path of the
 * type's group. */
#define BOND_ROWS(P) \
    {KEY(P ".style", K_ENUM, REQUIRED, NULL,  \
         "harmonic: K/2 (r - r0)^2; fene: -K R0^2/2 ln(1 - (r/R0)^2)"),  \
     .choices = BOND_CHOICES},  \
    {KEY(P ".K", K_FLOAT, OPTIONAL, NULL,  \
         "bond stiffness K (required, except for table)"),  \
     NUM_GE(0)},  \
    {KEY(P ".r0", K_FLOAT, OPTIONAL, NULL,  \
         "harmonic: rest length r0 (required)"),  \
     NUM_GE(0)},  \
    {KEY(P ".R0", K_FLOAT, OPTIONAL, NULL,  \
         "fene: maximum extension R0 (required)"),  \
     NUM_GT(0)},  \
    {KEY(P ".file", K_STRING, OPTIONAL, NULL,  \
         "table: the file of x and E(x) (r: a length), relative to the "  \
         "configuration's folder"),  \
     .maxlen = VS_PATH_LEN - 1},
#define ANGLE_ROWS(P) \
    {KEY(P ".style", K_ENUM, REQUIRED, NULL,  \
         "harmonic: K/2 (theta - theta0)^2; cosine: K (1 + cos theta); "  \
         "cosine_squared: K (cos theta - cos theta0)^2"),  \
     .choices = ANGLE_CHOICES},  \
    {KEY(P ".K", K_FLOAT, OPTIONAL, NULL,  \
         "angle stiffness K (required, except for table)"),  \
     NUM_GE(0)},  \
    {KEY(P ".theta0", K_FLOAT, OPTIONAL, "180.0",  \
         "harmonic, cosine_squared: rest angle in degrees (180: straight)"),  \
     NUM_IN(0, 180)},  \
    {KEY(P ".file", K_STRING, OPTIONAL, NULL,  \
         "table: the file of x and E(x) (theta in degrees, 0 to 180), relative to the "  \
         "configuration's folder"),  \
     .maxlen = VS_PATH_LEN - 1},
#define DIHEDRAL_ROWS(P) \
    {KEY(P ".style", K_ENUM, REQUIRED, NULL,  \
         "periodic: K (1 + cos(n phi - delta)); harmonic: K/2 (phi - phi0)^2; "  \
         "multi_harmonic: sum_k A_k cos^k phi; table (phi = 180: trans)"),  \
     .choices = DIHEDRAL_CHOICES},  \
    {KEY(P ".K", K_FLOAT, OPTIONAL, NULL,  \
         "periodic, harmonic: the constant K (required for them)"),  \
     NUM_GE(0)},  \
    {KEY(P ".n", K_INT, OPTIONAL, "1",  \
         "periodic: the multiplicity n"),  \
     .ilo = 0, .ihi = 12},  \
    {KEY(P ".delta", K_FLOAT, OPTIONAL, "0.0",  \
         "periodic: the phase delta in degrees"),  \
     NUM_IN(-360, 360)},  \
    {KEY(P ".phi0", K_FLOAT, OPTIONAL, "180.0",  \
         "harmonic: the rest angle in degrees"),  \
     NUM_IN(-180, 180)},  \
    {KEY(P ".A", K_FLOATS, OPTIONAL, NULL,  \
         "multi_harmonic: [A0, A1, ...], 1 to 5 coefficients (required for it)"),  \
     .ilo = 1, .ihi = VS_DIHEDRAL_TERMS},  \
    {KEY(P ".file", K_STRING, OPTIONAL, NULL,  \
         "table: the file of x and E(x) (phi in degrees, -180 to 180), relative to the "  \
         "configuration's folder"),  \
     .maxlen = VS_PATH_LEN - 1},

/* The rows of one axis's boundary (boundary.x, .y, .z): P its path, D the axis, N the
 * first of its six physics places; A names the axis in the checkpoint attributes. */
#define BOUNDARY_ROWS(P, A, D, N) \
    {KEY(P, K_GROUP, OPTIONAL, NULL, \
         "the boundary of this axis")}, \
    {KEY(P ".kind", K_ENUM, OPTIONAL, "\"periodic\"", \
         "periodic, bounce_forward (walls at both faces, free slip) or bounce_back (no slip)"), \
     .choices = BOUNDARY_CHOICES, \
     LAND(boundary.axis[D].kind), PHYS((N), "boundary_" A "_kind", VS_PHYS_ENUM)}, \
    {KEY(P ".velocity_lo", K_VEC3, OPTIONAL, "[0.0, 0.0, 0.0]", \
         "bounce_back: velocity of the wall at 0, tangential (its component along the axis 0)"), \
     LAND(boundary.axis[D].velocity_lo), \
     PHYS((N) + 1, "boundary_" A "_velocity_lo", VS_PHYS_REAL)}, \
    {KEY(P ".velocity_hi", K_VEC3, OPTIONAL, "[0.0, 0.0, 0.0]", \
         "bounce_back: velocity of the wall at the box edge, tangential"), \
     LAND(boundary.axis[D].velocity_hi), \
     PHYS((N) + 2, "boundary_" A "_velocity_hi", VS_PHYS_REAL)}, \
    {KEY(P ".force", K_GROUP, OPTIONAL, NULL, \
         "a force pushing particles within a distance d of either wall away from it")}, \
    {KEY(P ".force.kind", K_ENUM, OPTIONAL, "\"none\"", \
         "none; erfc: f erfc(sqrt(3) (h - d/2) / d); dpd: f (1 - h/d), h the distance to the " \
         "wall"), \
     .choices = WALL_FORCE_CHOICES, \
     LAND(boundary.axis[D].force), PHYS((N) + 3, "boundary_" A "_force", VS_PHYS_ENUM)}, \
    {KEY(P ".force.f", K_FLOAT, OPTIONAL, "0.0", \
         "the force's strength f (force units)"), \
     NUM_GE(0), \
     LAND(boundary.axis[D].force_f), PHYS((N) + 4, "boundary_" A "_force_f", VS_PHYS_REAL)}, \
    {KEY(P ".force.d", K_FLOAT, OPTIONAL, NULL, \
         "the force's range d (required with a force; at most the brick's width)"), \
     NUM_GT(0), \
     LAND(boundary.axis[D].force_d), PHYS((N) + 5, "boundary_" A "_force_d", VS_PHYS_REAL)},

/* Every key Vesica reads, in the order the documentation lists them. The first five fields

 * are path, type, need, default, meaning; the checks follow. docs/configuration.md documents
 * every path (a unit test checks that). */
const key_spec vs_config_schema[] = {
    {KEY("box", K_VEC3, REQUIRED, NULL,
         "periodic box edges [Lx, Ly, Lz], each >= 2 * dpd.rc"), .with_input = WI_REFUSED,
     OWN(system.box), PHYS(1, "box", VS_PHYS_REAL)},
    {KEY("density", K_FLOAT, REQUIRED_UNLESS_RIVAL, NULL,
         "number density; particles = round(density * volume)"),
     NUM_GT(0), .rival = "particles", .with_input = WI_REFUSED,
     OWN(system.density)},
    {KEY("particles", K_INT, OPTIONAL, NULL,
         "total particle count, instead of density"),
     INT_GE(1), .rival = "density", .with_input = WI_REFUSED,
     OWN(system.n_particles), PHYS(2, "particles", VS_PHYS_INT64)},
    {KEY("input", K_GROUP, OPTIONAL, NULL,
         "read the initial system from a file (box, particles, molecules) instead of building "
         "it"), .rival = "molecules"},
    {KEY("input.format", K_ENUM, REQUIRED, NULL,
         "lammps-data (atom styles molecular, full) or h5md"),
     .choices = INPUT_FORMAT_CHOICES,
     OWN(input.format)},
    {KEY("input.file", K_STRING, REQUIRED, NULL,
         "the file, relative to the working directory"),
     .maxlen = VS_PATH_LEN - 1,
     OWN(input.file)},
    {KEY("input.species", K_ENUM, OPTIONAL, "\"type\"",
         "type: file type k is species.[k-1]; name: by the file's type names"),
     .choices = INPUT_SPECIES_CHOICES,
     OWN(input.species_by_name)},
    {KEY("input.frame", K_INT, OPTIONAL, "-1",
         "h5md: the frame read (0 the first); -1: the last"),
     .ilo = -1, .ihi = INT64_MAX,
     OWN(input.frame)},
    {KEY("input.replicate", K_IVEC3, OPTIONAL, "[1, 1, 1]",
         "copies of the file's system along x, y and z (molecules must be whole in the file's "
         "unwrapped positions)"),
     .ilo = 1, .ihi = 1024,
     OWN(input.replicate)},
    {KEY("seed", K_INT, OPTIONAL, "1",
         "64-bit seed of the initial state and the pair random stream"),
     INT_GE(0),
     LAND(system.seed), PHYS(3, "seed", VS_PHYS_SEED)},

    {KEY("species", K_LIST, REQUIRED, NULL,
         "particle species, one group each"),
     .ilo = 1, .ihi = VS_MAX_SPECIES,
     OWN(species.n), PHYS(4, NULL, VS_PHYS_COUNT)},
    {KEY("species.[]", K_GROUP, OPTIONAL, NULL,
         "one species")},
    {KEY("species.[].name", K_NAME, REQUIRED, NULL,
         "unique name, used as a key of dpd.a"),
     .maxlen = VS_NAME_LEN - 1,
     OWN_SPECIES(name), PHYS(5, "species_names", VS_PHYS_NAME)},
    {KEY("species.[].mass", K_FLOAT, OPTIONAL, "1.0",
         "particle mass"),
     NUM_GT(0),
     OWN_SPECIES(mass), PHYS(6, "species_mass", VS_PHYS_REAL)},
    {KEY("species.[].fraction", K_FLOAT, REQUIRED_IF_SEVERAL, "1.0",
         "number fraction of all particles; fractions sum to 1"),
     NUM_IN(0, 1), .with_input = WI_OPTIONAL,
     OWN_SPECIES(fraction), PHYS(7, "species_fraction", VS_PHYS_REAL)},
    {KEY("species.[].body_force", K_VEC3, OPTIONAL, "[0.0, 0.0, 0.0]",
         "constant force on every particle of the species"),
     OWN_SPECIES(body_force), PHYS(8, "species_body_force", VS_PHYS_REAL)},
    {KEY("species.[].frozen", K_ENUM, OPTIONAL, "\"off\"",
         "on: the species' particles never move (wall particles; excluded from the "
         "temperature)"),
     .choices = ON_OFF_CHOICES,
     OWN_SPECIES(frozen), PHYS(49, "species_frozen", VS_PHYS_ENUM)},

    {KEY("boundary", K_GROUP, OPTIONAL, NULL,
         "the boundary of each axis: periodic (default) or a pair of walls at its faces")},
    BOUNDARY_ROWS("boundary.x", "x", 0, 31)
    BOUNDARY_ROWS("boundary.y", "y", 1, 37)
    BOUNDARY_ROWS("boundary.z", "z", 2, 43)
    {KEY("species.[].inertia", K_FLOAT, OPTIONAL, NULL,
         "moment of inertia I of an oriented particle (gives the species an orientation n "
         "and its rate u = dn/dt; absent: a point bead)"),
     NUM_GT(0),
     OWN_SPECIES(inertia)},

    {KEY("dpd", K_GROUP, REQUIRED, NULL,
         "DPD pair interaction")},
    {KEY("dpd.a", K_MAP, REQUIRED, NULL,
         "conservative amplitudes a_ij by species names"),
     OWN(dpd.a), PHYS(9, "a", VS_PHYS_MATRIX)},
    {KEY("dpd.a.*", K_MAP, OPTIONAL, NULL,
         "row i of a_ij")},
    {KEY("dpd.a.*.*", K_FLOAT, OPTIONAL, NULL,
         "a_ij; a.A.B must equal a.B.A")},
    {KEY("dpd.gamma", K_FLOAT_OR_MAP, REQUIRED, NULL,
         "dissipative strength gamma: one number, or gamma_ij by species names as dpd.a"),
     NUM_GE(0),
     OWN(dpd.gamma), PHYS(10, "gamma", VS_PHYS_PAIR_REAL)},
    {KEY("dpd.gamma.*", K_MAP, OPTIONAL, NULL,
         "row i of gamma_ij")},
    {KEY("dpd.gamma.*.*", K_FLOAT, OPTIONAL, NULL,
         "gamma_ij; gamma.A.B must equal gamma.B.A"),
     NUM_GE(0)},
    {KEY("dpd.kT", K_FLOAT, REQUIRED, NULL,
         "thermostat temperature k_B T"),
     NUM_GE(0),
     LAND(dpd.kT), PHYS(11, "kT", VS_PHYS_REAL)},
    {KEY("dpd.rc", K_FLOAT, OPTIONAL, "1.0",
         "cutoff radius r_c"),
     NUM_GT(0),
     LAND(dpd.rc), PHYS(12, "rc", VS_PHYS_REAL)},
    {KEY("dpd.s", K_FLOAT, OPTIONAL, "1.0",
         "weight exponent: w_D = w^(2s), w_R = w^s"),
     NUM_GT(0),
     LAND(dpd.s), PHYS(13, "s", VS_PHYS_REAL)},
    {KEY("dpd.random", K_ENUM, OPTIONAL, "\"uniform\"",
         "distribution of the pair random numbers"),
     .choices = RANDOM_CHOICES,
     LAND(dpd.random), PHYS(14, "random", VS_PHYS_ENUM)},
    {KEY("dpd.special", K_VEC3, OPTIONAL, NULL,
         "not supported: DPD acts between all pairs, bonded or not (rejected; the pair "
         "styles take special)")},

    {KEY("pair", K_LIST, OPTIONAL, NULL,
         "conservative pair styles beside DPD, one element per style"),
     .ilo = 1, .ihi = VS_PAIR_STYLES,
     OWN(pair.code), PHYS(22, "pair_code", VS_PHYS_INT64)},
    {KEY("pair.[]", K_GROUP, OPTIONAL, NULL,
         "one pair style: its options and its species pairs")},
    {KEY("pair.[].style", K_ENUM, REQUIRED, NULL,
         "one of" VS_PAIR_STYLE_LIST(PAIR_STYLE_NAME_)),
     .choices = PAIR_STYLE_CHOICES},
    {KEY("pair.[].rc", K_FLOAT, OPTIONAL, NULL,
         "cut-off of the style's pairs that give none (table: default the table's last r)"),
     NUM_GT(0)},
    {KEY("pair.[].shift", K_ENUM, OPTIONAL, "\"off\"",
         "energies shifted to zero at each pair's cut-off (styles with a finite U(rc))"),
     .choices = ON_OFF_CHOICES},
    {KEY("pair.[].wca", K_ENUM, OPTIONAL, "\"off\"",
         "lj: every pair cut at 2^(1/6) sigma and shifted (purely repulsive)"),
     .choices = ON_OFF_CHOICES},
    {KEY("pair.[].tail", K_ENUM, OPTIONAL, "\"off\"",
         "lj: long-range corrections to the energy and the pressure"),
     .choices = ON_OFF_CHOICES},
    {KEY("pair.[].special", K_VEC3, OPTIONAL, NULL,
         "factors of the pairs 1-2, 1-3 and 1-4 apart along the bonds, as LAMMPS's "
         "special_bonds lj (0: excluded; default [1.0, 1.0, 1.0]: as any other pair)"),
     NUM_IN(0, 1)},
    {KEY("pair.[].file", K_STRING, OPTIONAL, NULL,
         "table: the file of the tables (LAMMPS pair table format)"),
     .maxlen = VS_PATH_LEN - 1},
    {KEY("pair.[].coeff", K_MAP, REQUIRED, NULL,
         "the interacting species pairs by species names; pairs not given do not interact")},
    {KEY("pair.[].coeff.*", K_MAP, OPTIONAL, NULL,
         "the pairs of species i")},
    {KEY("pair.[].coeff.*.*", K_GROUP, OPTIONAL, NULL,
         "the coefficients of the pair (i, j); also those of (j, i)")},
#define PAIR_COEFF_ROW_(NAME, POSITIVE, DOC)                                                   \
    {KEY("pair.[].coeff.*.*." #NAME, K_FLOAT, OPTIONAL, NULL, DOC),                            \
     .bounds = (POSITIVE) ? B_LO | B_LO_OPEN : 0},
    VS_PAIR_COEFF_KEYS(PAIR_COEFF_ROW_)
    {KEY("pair.[].coeff.*.*.rc", K_FLOAT, OPTIONAL, NULL,
         "cut-off of this pair (default pair.[].rc)"),
     NUM_GT(0)},
    {KEY("pair.[].coeff.*.*.table", K_STRING, OPTIONAL, NULL,
         "table: the keyword of this pair's section in pair.[].file"),
     .maxlen = VS_NAME_LEN - 1},

    {KEY("aniso", K_GROUP, OPTIONAL, NULL,
         "the soft anisotropic pair style between oriented species (GALAMOST's model)"),
     OWN(aniso.code), PHYS(51, "aniso_code", VS_PHYS_INT64)},
    {KEY("aniso.style", K_ENUM, REQUIRED, NULL,
         "disk, rod, janus or triblock"),
     .choices = ANISO_STYLE_CHOICES},
    {KEY("aniso.rc", K_FLOAT, OPTIONAL, "1.0",
         "cut-off of the style's pairs that give none; r in the formulas is |r_ij| / rc"),
     NUM_GT(0)},
    {KEY("aniso.coeff", K_MAP, REQUIRED, NULL,
         "the interacting species pairs by species names (both oriented); pairs not given "
         "do not interact in this style")},
    {KEY("aniso.coeff.*", K_MAP, OPTIONAL, NULL,
         "the pairs of species i")},
    {KEY("aniso.coeff.*.*", K_GROUP, OPTIONAL, NULL,
         "the coefficients of the pair (i, j); also those of (j, i)")},
    {KEY("aniso.coeff.*.*.alpha", K_FLOAT, OPTIONAL, NULL,
         "disk, rod (required): repulsion strength alpha"),
     NUM_GE(0)},
    {KEY("aniso.coeff.*.*.mu", K_FLOAT, OPTIONAL, NULL,
         "disk, rod (required): shape mu"),
     NUM_IN(0, 1)},
    {KEY("aniso.coeff.*.*.alpha_r", K_FLOAT, OPTIONAL, NULL,
         "janus, triblock (required): repulsion strength alpha^R"),
     NUM_GE(0)},
    {KEY("aniso.coeff.*.*.alpha_a", K_FLOAT, OPTIONAL, NULL,
         "janus, triblock (required): attraction strength alpha^A"),
     NUM_GE(0)},
    {KEY("aniso.coeff.*.*.beta", K_FLOAT, OPTIONAL, NULL,
         "janus, triblock (required): Janus balance beta in degrees, in (0, 180] (triblock: (0, 90])"),
     .bounds = B_LO | B_LO_OPEN | B_HI, .lo = 0, .hi = 180},
    {KEY("aniso.coeff.*.*.nu", K_FLOAT, OPTIONAL, NULL,
         "every style (required): the angular exponent nu"),
     NUM_GT(0)},
    {KEY("aniso.coeff.*.*.rc", K_FLOAT, OPTIONAL, NULL,
         "cut-off of this pair (default aniso.rc)"),
     NUM_GT(0)},

    {KEY("flow", K_GROUP, OPTIONAL, NULL,
         "driving field on top of the body forces (a force-field term)")},
    {KEY("flow.kind", K_ENUM, OPTIONAL, "\"none\"",
         "none, or double_poiseuille: +g in the lower half along flow.across, -g in the upper"),
     .choices = FLOW_CHOICES,
     OWN(flow.kind), PHYS(17, "flow_kind", VS_PHYS_ENUM)},
    {KEY("flow.g", K_FLOAT, OPTIONAL, "0.0",
         "force per particle of the driving field (force units)"),
     OWN(flow.g), PHYS(21, "flow_g", VS_PHYS_REAL)},
    {KEY("flow.axis", K_ENUM, OPTIONAL, "\"z\"",
         "direction of the driving force"),
     .choices = AXIS_CHOICES,
     OWN(flow.axis), PHYS(18, "flow_axis", VS_PHYS_ENUM)},
    {KEY("flow.across", K_ENUM, OPTIONAL, "\"x\"",
         "coordinate whose half of the box sets the sign; differs from flow.axis"),
     .choices = AXIS_CHOICES,
     OWN(flow.across), PHYS(19, "flow_across", VS_PHYS_ENUM)},
    {KEY("flow.species", K_STRING, OPTIONAL, "\"all\"",
         "the species driven: a species name, or all"),
     .maxlen = VS_NAME_LEN - 1,
     OWN(flow.species), PHYS(20, "flow_species", VS_PHYS_ENUM)},

    {KEY("integrator", K_GROUP, REQUIRED, NULL,
         "time integration")},
    {KEY("integrator.dt", K_FLOAT, REQUIRED, NULL,
         "time step"),
     NUM_GT(0),
     LAND(integrator.dt), PHYS(15, "dt", VS_PHYS_REAL)},
    {KEY("integrator.lambda", K_FLOAT, OPTIONAL, "0.5",
         "Groot-Warren velocity-prediction factor"),
     NUM_IN(0, 1),
     LAND(integrator.lambda), PHYS(16, "lambda", VS_PHYS_REAL)},
    {KEY("integrator.steps", K_INT, REQUIRED, NULL,
         "final step number (a restart continues up to it)"),
     INT_GE(0),
     LAND(integrator.steps)},
    {KEY("integrator.kind", K_ENUM, OPTIONAL, "\"dpd\"",
         "dpd (Groot-Warren), nve, nose_hoover, langevin, andersen, berendsen, brownian or npt"),
     .choices = INTEGRATOR_CHOICES,
     OWN(integrator.kind), PHYS(23, "integrator_kind", VS_PHYS_ENUM)},
    {KEY("integrator.tau", K_FLOAT, OPTIONAL, NULL,
         "nose_hoover, berendsen, npt: thermostat time constant (required with them)"),
     NUM_GT(0),
     OWN(integrator.tau), PHYS(24, "integrator_tau", VS_PHYS_REAL)},
    {KEY("integrator.chain", K_INT, OPTIONAL, "3",
         "nose_hoover, npt: length of the thermostat chains"),
     .ilo = 1, .ihi = VS_MAX_CHAIN,
     OWN(integrator.chain), PHYS(25, "integrator_chain", VS_PHYS_ENUM)},
    {KEY("integrator.pressure", K_FLOAT, OPTIONAL, NULL,
         "npt: target pressure (required with it)"),
     OWN(integrator.pressure), PHYS(29, "integrator_pressure", VS_PHYS_REAL)},
    {KEY("integrator.tau_p", K_FLOAT, OPTIONAL, NULL,
         "npt: barostat time constant (required with it)"),
     NUM_GT(0),
     OWN(integrator.tau_p), PHYS(30, "integrator_tau_p", VS_PHYS_REAL)},
    {KEY("integrator.gamma", K_FLOAT, OPTIONAL, NULL,
         "langevin, brownian: friction rate gamma, drag -m gamma v (required with them)"),
     NUM_GT(0),
     OWN(integrator.friction), PHYS(26, "integrator_gamma", VS_PHYS_REAL)},
    {KEY("integrator.collision_rate", K_FLOAT, OPTIONAL, NULL,
         "andersen: collisions per particle per unit time (required with it)"),
     NUM_GT(0),
     OWN(integrator.collision_rate), PHYS(27, "integrator_collision_rate", VS_PHYS_REAL)},
    {KEY("integrator.remove_com_every", K_INT, OPTIONAL, "0",
         "steps between removals of the centre-of-mass velocity; 0 = never"),
     INT_GE(0),
     OWN(integrator.remove_com_every), PHYS(28, "integrator_remove_com_every", VS_PHYS_INT64)},

    {KEY("neighbor", K_GROUP, OPTIONAL, NULL,
         "neighbor list")},
    {KEY("neighbor.skin", K_FLOAT, OPTIONAL, "0.0",
         "Verlet skin added to rc; 0 rebuilds the lists on every step"),
     NUM_GE(0),
     LAND(neighbor.skin)},
    {KEY("neighbor.gpu_builder", K_ENUM, OPTIONAL, "\"auto\"",
         "GPU neighbour-list builder"),
     .choices = BUILDER_CHOICES,
     LAND(exec.gpu_builder)},

    {KEY("decomposition", K_IVEC3, OPTIONAL, "[0, 0, 0]",
         "MPI ranks per dimension; all 0 = automatic"),
     .ilo = 0, .ihi = INT_MAX,
     LAND(exec.decomposition)},
    {KEY("comm", K_GROUP, OPTIONAL, NULL,
         "communication between ranks")},
    {KEY("comm.transport", K_ENUM, OPTIONAL, "\"auto\"",
         "how the GPU backend moves halo data: auto, host, peer or mpi-device"),
     .choices = TRANSPORT_CHOICES,
     LAND(exec.transport)},
    {KEY("comm.overlap", K_ENUM, OPTIONAL, "\"on\"",
         "GPU: compute interior forces while the ghosts travel"),
     .choices = ON_OFF_CHOICES,
     LAND(exec.overlap)},
    {KEY("backend", K_ENUM, OPTIONAL, "\"auto\"",
         "where the step runs"),
     .choices = BACKEND_CHOICES,
     LAND(exec.backend)},
    {KEY("precision", K_ENUM, OPTIONAL, "\"mixed\"",
         "GPU arithmetic (the CPU backend is always double)"),
     .choices = PRECISION_CHOICES,
     LAND(exec.precision)},

    {KEY("output", K_GROUP, REQUIRED, NULL,
         "output files")},
    {KEY("output.dir", K_STRING, REQUIRED, NULL,
         "directory for every output file"),
     .maxlen = VS_PATH_LEN - 1,
     LAND(output.dir)},
    {KEY("output.thermo_interval", K_INT, OPTIONAL, "100",
         "steps between thermo rows"),
     INT_GE(1),
     LAND(output.thermo_interval)},
    {KEY("output.trajectory_interval", K_INT, OPTIONAL, "0",
         "steps between H5MD trajectory frames; 0 = no trajectory"),
     INT_GE(0),
     LAND(output.trajectory_interval)},
    {KEY("output.checkpoint_interval", K_INT, OPTIONAL, "0",
         "steps between checkpoints; 0 = only at the end of the run"),
     INT_GE(0),
     LAND(output.checkpoint_interval)},
    {KEY("output.checkpoint_keep", K_INT, OPTIONAL, "2",
         "checkpoints kept (the newest ones); 0 = no checkpoints"),
     INT_GE(0),
     LAND(output.checkpoint_keep)},
    {KEY("output.pressure_tensor", K_ENUM, OPTIONAL, "\"off\"",
         "the pressure tensor's six components in thermo.csv and profiles.h5"),
     .choices = ON_OFF_CHOICES,
     LAND(output.pressure_tensor)},
    {KEY("output.field_interval", K_INT, OPTIONAL, "0",
         "steps between frames of the field species' density fractions phi_K on the grid "
         "(fields.h5, VTK-HDF; needs a field group); 0 = none"),
     INT_GE(0),
     LAND(output.field_interval)},
    {KEY("output.timing_every", K_INT, OPTIONAL, "10",
         "GPU: the phases' times taken on one step of each block of this many (its place at "
         "random), scaled by it; 1 = every step"),
     INT_GE(1),
     LAND(output.timing_every)},

    {KEY("profiles", K_GROUP, OPTIONAL, NULL,
         "binned profiles written to profiles.h5")},
    {KEY("profiles.axis", K_ENUM, OPTIONAL, "\"none\"",
         "axis of the bins; none = no profiles"),
     .choices = PROFILE_AXIS_CHOICES,
     OWN(output.profiles.axis)},
    {KEY("profiles.bins", K_INT, OPTIONAL, "50",
         "bins along the axis"),
     .ilo = 1, .ihi = 1 << 20,
     OWN(output.profiles.bins)},
    {KEY("profiles.every", K_INT, OPTIONAL, "10",
         "steps between samples"),
     INT_GE(1),
     OWN(output.profiles.every)},
    {KEY("profiles.window", K_INT, OPTIONAL, "1000",
         "steps per window (windows end at its multiples); 0 = the named times"),
     INT_GE(0),
     OWN(output.profiles.window)},
    {KEY("profiles.times", K_FLOATS, OPTIONAL, "[0.0]",
         "named windows [t - half_width, t + half_width] (when window = 0)"),
     NUM_GE(0), .ilo = 1, .ihi = VS_MAX_PROFILE_TIMES,
     OWN(output.profiles.times)},
    {KEY("profiles.half_width", K_FLOAT, OPTIONAL, "0.5",
         "half width of a named window (time units)"),
     NUM_GT(0),
     OWN(output.profiles.half_width)},
    {KEY("profiles.per_species", K_ENUM, OPTIONAL, "\"off\"",
         "also one profile per species"),
     .choices = ON_OFF_CHOICES,
     OWN(output.profiles.per_species)},

    {KEY("molecules", K_LIST, OPTIONAL, NULL,
         "molecule templates, one group each; absent: a fluid of free beads"),
     .ilo = 1, .ihi = VS_MAX_MOLTYPES, .rival = "input"},
    {KEY("molecules.[]", K_GROUP, OPTIONAL, NULL,
         "one molecule template: a linear chain")},
    {KEY("molecules.[].name", K_NAME, REQUIRED, NULL,
         "unique template name"),
     .maxlen = VS_NAME_LEN - 1},
    {KEY("molecules.[].sequence", K_STRING, REQUIRED, NULL,
         "species of the chain's beads, one letter each (one-letter species names)"),
     .maxlen = VS_MAX_SEQUENCE},
    {KEY("molecules.[].repeat", K_INT, OPTIONAL, "1",
         "the chain is the sequence repeated this many times"),
     .ilo = 1, .ihi = 1000000},
    {KEY("molecules.[].count", K_INT, REQUIRED_UNLESS_RIVAL, NULL,
         "number of molecules"),
     INT_GE(0), .rival = "bead_fraction"},
    {KEY("molecules.[].bead_fraction", K_FLOAT, OPTIONAL, NULL,
         "fraction of all particles in these molecules, instead of count"),
     NUM_IN(0, 1), .rival = "count"},
    {KEY("molecules.[].bond", K_GROUP, REQUIRED, NULL,
         "the bond between consecutive beads")},
    BOND_ROWS("molecules.[].bond")
    {KEY("molecules.[].bond.length", K_FLOAT, OPTIONAL, NULL,
         "step of the random walk that places the beads (default r0, or R0/2 for fene)"),
     NUM_GT(0)},
    {KEY("molecules.[].angle", K_GROUP, OPTIONAL, NULL,
         "the angle of three consecutive beads; absent: none")},
    ANGLE_ROWS("molecules.[].angle")
    {KEY("molecules.[].dihedral", K_GROUP, OPTIONAL, NULL,
         "the dihedral of four consecutive beads; absent: none")},
    DIHEDRAL_ROWS("molecules.[].dihedral")
    {KEY("bonded", K_GROUP, OPTIONAL, NULL,
         "settings of the bonded interactions"),
     OWN(molecules.code), PHYS(50, "bonded_code", VS_PHYS_INT64)},
    {KEY("bonded.bonds", K_LIST, OPTIONAL, NULL,
         "with input: the bond types, bond type k of the file is bonded.bonds.[k-1]"),
     .ilo = 1, .ihi = VS_MAX_MOLTYPES},
    {KEY("bonded.bonds.[]", K_GROUP, OPTIONAL, NULL,
         "one bond type")},
    BOND_ROWS("bonded.bonds.[]")
    {KEY("bonded.angles", K_LIST, OPTIONAL, NULL,
         "with input: the angle types, angle type k of the file is bonded.angles.[k-1]"),
     .ilo = 1, .ihi = VS_MAX_MOLTYPES},
    {KEY("bonded.angles.[]", K_GROUP, OPTIONAL, NULL,
         "one angle type")},
    ANGLE_ROWS("bonded.angles.[]")
    {KEY("bonded.dihedrals", K_LIST, OPTIONAL, NULL,
         "with input: the dihedral types, type k of the file is bonded.dihedrals.[k-1]"),
     .ilo = 1, .ihi = VS_MAX_MOLTYPES},
    {KEY("bonded.dihedrals.[]", K_GROUP, OPTIONAL, NULL,
         "one dihedral type")},
    DIHEDRAL_ROWS("bonded.dihedrals.[]")
    {KEY("bonded.reach", K_FLOAT, OPTIONAL, NULL,
         "longest bond allowed, the ghost reach of bonded beads (default: rc, or the "
         "largest fene R0)"),
     NUM_GT(0),
     OWN(molecules.bond_reach)},

    {KEY("reactions", K_GROUP, OPTIONAL, NULL,
         "bonds made and broken during the run: chain growth, bond creation and breaking"),
     OWN(reactions.code), PHYS(52, "reactions_code", VS_PHYS_INT64)},
    {KEY("reactions.interval", K_INT, OPTIONAL, "50",
         "tau: steps between reaction steps (the multiples of it)"),
     INT_GE(1),
     OWN(reactions.interval)},
    {KEY("reactions.chain", K_GROUP, OPTIONAL, NULL,
         "chain-growth polymerization (GALAMOST's stochastic model)")},
    {KEY("reactions.chain.ends", K_MAP, REQUIRED, NULL,
         "the active-end species, each with the species it becomes once it has reacted")},
    {KEY("reactions.chain.ends.*", K_NAME, OPTIONAL, NULL,
         "the species this active end becomes once it has reacted"),
     .maxlen = VS_NAME_LEN - 1},
    {KEY("reactions.chain.monomer", K_NAME, REQUIRED, NULL,
         "the species of the free monomers"),
     .maxlen = VS_NAME_LEN - 1},
    {KEY("reactions.chain.new_end", K_NAME, REQUIRED, NULL,
         "the species a monomer becomes when it bonds: the chain's new active end (one of "
         "the ends)"),
     .maxlen = VS_NAME_LEN - 1},
    {KEY("reactions.chain.radius", K_FLOAT, REQUIRED, NULL,
         "reaction radius: an end reaches the free monomers within it (at most bonded.reach "
         "and the ghost width)"),
     NUM_GT(0)},
    {KEY("reactions.chain.probability", K_FLOAT, REQUIRED, NULL,
         "Pr: the probability that an end with a monomer in reach bonds one in a reaction "
         "step"),
     NUM_IN(0, 1)},
    {KEY("reactions.chain.bond", K_GROUP, REQUIRED, NULL,
         "the type of the new bonds")},
    BOND_ROWS("reactions.chain.bond")
    {KEY("reactions.chain.angle", K_GROUP, OPTIONAL, NULL,
         "the angle of the bead before the end, the end and the new bead; absent: none")},
    ANGLE_ROWS("reactions.chain.angle")
    {KEY("reactions.create", K_LIST, OPTIONAL, NULL,
         "bond creation rules, as LAMMPS's fix bond/create"),
     .ilo = 1, .ihi = VS_MAX_REACTION_RULES},
    {KEY("reactions.create.[]", K_GROUP, OPTIONAL, NULL,
         "one rule: beads of species i and j within the radius bond")},
    {KEY("reactions.create.[].i", K_NAME, REQUIRED, NULL,
         "the species of the first bead"),
     .maxlen = VS_NAME_LEN - 1},
    {KEY("reactions.create.[].j", K_NAME, REQUIRED, NULL,
         "the species of the second bead (may be i's)"),
     .maxlen = VS_NAME_LEN - 1},
    {KEY("reactions.create.[].radius", K_FLOAT, REQUIRED, NULL,
         "the beads bond within it (at most bonded.reach and the ghost width)"),
     NUM_GT(0)},
    {KEY("reactions.create.[].probability", K_FLOAT, OPTIONAL, "1.0",
         "the probability that a matched pair bonds"),
     NUM_IN(0, 1)},
    {KEY("reactions.create.[].max_bonds_i", K_INT, OPTIONAL, "1",
         "a bead of species i bonds only while it has fewer bonds"),
     .ilo = 1, .ihi = VS_MAX_BONDS},
    {KEY("reactions.create.[].max_bonds_j", K_INT, OPTIONAL, "1",
         "the same for species j"),
     .ilo = 1, .ihi = VS_MAX_BONDS},
    {KEY("reactions.create.[].new_i", K_NAME, OPTIONAL, NULL,
         "the species a bead of species i becomes when it bonds; absent: unchanged"),
     .maxlen = VS_NAME_LEN - 1},
    {KEY("reactions.create.[].new_j", K_NAME, OPTIONAL, NULL,
         "the same for species j"),
     .maxlen = VS_NAME_LEN - 1},
    {KEY("reactions.create.[].bond", K_GROUP, REQUIRED, NULL,
         "the type of the new bonds")},
    BOND_ROWS("reactions.create.[].bond")
    {KEY("reactions.create.[].angle", K_GROUP, OPTIONAL, NULL,
         "angles of the new bond with the beads' other bonds; absent: none")},
    ANGLE_ROWS("reactions.create.[].angle")
    {KEY("reactions.break", K_LIST, OPTIONAL, NULL,
         "bond breaking rules, as LAMMPS's fix bond/break"),
     .ilo = 1, .ihi = VS_MAX_REACTION_RULES},
    {KEY("reactions.break.[]", K_GROUP, OPTIONAL, NULL,
         "one rule: a bond between species i and j longer than length breaks")},
    {KEY("reactions.break.[].i", K_NAME, REQUIRED, NULL,
         "the species of one bead of the bond"),
     .maxlen = VS_NAME_LEN - 1},
    {KEY("reactions.break.[].j", K_NAME, REQUIRED, NULL,
         "the species of the other bead (may be i's)"),
     .maxlen = VS_NAME_LEN - 1},
    {KEY("reactions.break.[].length", K_FLOAT, REQUIRED, NULL,
         "a bond longer than this breaks (below bonded.reach)"),
     NUM_GT(0)},
    {KEY("reactions.break.[].probability", K_FLOAT, OPTIONAL, "1.0",
         "the probability that a bond beyond the length breaks in a reaction step"),
     NUM_IN(0, 1)},

    {KEY("field", K_GROUP, OPTIONAL, NULL,
         "hybrid particle-field MD-SCF: the species of field.chi interact through density "
         "fields on a grid"),
     OWN(field.code), PHYS(53, "field_code", VS_PHYS_INT64)},
    {KEY("field.spacing", K_FLOAT, REQUIRED, NULL,
         "the grid's cell edge: a whole number of cells along each box edge"),
     NUM_GT(0),
     OWN(field.spacing)},
    {KEY("field.interval", K_INT, OPTIONAL, "1",
         "steps between field updates (the multiples of it); particles feel the last fields "
         "between them"),
     INT_GE(1),
     OWN(field.interval)},
    {KEY("field.kappa", K_FLOAT, REQUIRED, NULL,
         "compressibility kappa: V_K gets (1/kappa) (sum of the field species' phi - 1)"),
     NUM_GT(0),
     OWN(field.kappa)},
    {KEY("field.chi", K_MAP, REQUIRED, NULL,
         "chi_KK' by species names: its rows are the field species, each with a value for "
         "every field species"),
     OWN(field.chi)},
    {KEY("field.chi.*", K_MAP, OPTIONAL, NULL,
         "row K of chi_KK'")},
    {KEY("field.chi.*.*", K_FLOAT, OPTIONAL, NULL,
         "chi_KK'; chi.A.B must equal chi.B.A")},
    {KEY("field.force", K_ENUM, OPTIONAL, "\"gradient\"",
         "the force on a particle: \"gradient\" (GALAMOST: the grid's finite-difference gradient "
         "of V_K interpolated to it) or \"energy\" (minus the derivative of the discrete field "
         "energy: conserves it)"),
     .choices = FIELD_FORCE_CHOICES,
     OWN(field.force)},

    {KEY("run", K_GROUP, OPTIONAL, NULL,
         "run control")},
    {KEY("run.walltime", K_FLOAT, OPTIONAL, "0.0",
         "hours this run may last; 0 = no limit"),
     NUM_GE(0),
     LAND(run.walltime)},
    {KEY("run.temperature_tolerance", K_FLOAT, OPTIONAL, "0.5",
         "relative deviation of the kinetic temperature from dpd.kT that draws a warning; "
         "0 = not watched"),
     NUM_GE(0),
     LAND(run.temperature_tolerance)},
    {KEY("run.temperature_rows", K_INT, OPTIONAL, "5",
         "thermo rows in a row beyond the tolerance that stop the run; 0 = warn only"),
     INT_GE(0),
     LAND(run.temperature_rows)},
    {KEY("run.equilibration_time", K_FLOAT, OPTIONAL, "10.0",
         "time before which the temperature is not watched"),
     NUM_GE(0),
     LAND(run.equilibration_time)},
    {KEY("run.momentum_tolerance", K_FLOAT, OPTIONAL, "1e-5",
         "drift of the total momentum, in thermal units, that draws a warning; 0 = not watched"),
     NUM_GE(0),
     LAND(run.momentum_tolerance)},
    {KEY("run.momentum_limit", K_FLOAT, OPTIONAL, "1e-2",
         "drift of the total momentum, in thermal units, that stops the run; 0 = warn only"),
     NUM_GE(0),
     LAND(run.momentum_limit)},
    {KEY("run.energy_tolerance", K_FLOAT, OPTIONAL, "0.01",
         "drift of the conserved energy, as a fraction of the first kinetic energy, that draws a "
         "warning; 0 = not watched"),
     NUM_GE(0),
     LAND(run.energy_tolerance)},
    {KEY("run.energy_limit", K_FLOAT, OPTIONAL, "1.0",
         "drift of the conserved energy, as a fraction of the first kinetic energy, that stops "
         "the run; 0 = warn only"),
     NUM_GE(0),
     LAND(run.energy_limit)},

    /* The Monte Carlo engine (vesica mc; src/app/config_mc.c checks them across keys). */
    {KEY("mc", K_GROUP, OPTIONAL, NULL,
         "Metropolis Monte Carlo: present in a configuration for `vesica mc` (dpd and "
         "integrator are then not needed)"),
     OWN(mc.on)},
    {KEY("mc.ensemble", K_ENUM, OPTIONAL, "\"nvt\"",
         "nvt, npt (isotropic log-volume moves), gcmc (insertions and deletions), gibbs "
         "(NVT Gibbs ensemble, two boxes) or gibbs_npt (NPT Gibbs ensemble, two boxes at "
         "mc.pressure, for mixtures)"),
     .choices = MC_ENSEMBLE_CHOICES, LAND(mc.ensemble)},
    {KEY("mc.kT", K_FLOAT, REQUIRED, NULL,
         "temperature k_B T (energy units)"),
     NUM_GT(0), LAND(mc.kT)},
    {KEY("mc.pressure", K_FLOAT, OPTIONAL, NULL,
         "npt, gibbs_npt: the imposed pressure (required there)"),
     NUM_GT(0), OWN(mc.pressure)},
    {KEY("mc.activity", K_FLOAT, OPTIONAL, NULL,
         "gcmc: the activity z = exp(mu / kT) / Lambda^3, Lambda = 1 (this or "
         "chemical_potential)"),
     NUM_GT(0), .rival = "chemical_potential", OWN(mc.activity)},
    {KEY("mc.chemical_potential", K_FLOAT, OPTIONAL, NULL,
         "gcmc: the chemical potential mu, z = exp(mu / kT) (this or activity)"),
     .rival = "activity", OWN(mc.activity)},
    {KEY("mc.cycles", K_INT, REQUIRED, NULL,
         "final cycle number (a restart continues to it)"),
     INT_GE(0), LAND(mc.cycles)},
    {KEY("mc.moves_per_cycle", K_INT, OPTIONAL, "0",
         "moves per cycle, the same in every cycle; 0: the particles at the start (at least "
         "one)"),
     INT_GE(0), LAND(mc.moves_per_cycle)},
    {KEY("mc.equilibration", K_INT, OPTIONAL, "0",
         "cycles during which the step sizes are tuned (never after)"),
     INT_GE(0), LAND(mc.equilibration)},
    {KEY("mc.tune_every", K_INT, OPTIONAL, "10",
         "cycles between two tunings of the step sizes during equilibration"),
     INT_GE(1), LAND(mc.tune_every)},
    {KEY("mc.target_acceptance", K_FLOAT, OPTIONAL, "0.5",
         "acceptance the tuning aims at, displacement and volume moves"),
     NUM_IN(0.05, 0.95), LAND(mc.target_acceptance)},
    {KEY("mc.max_displacement", K_FLOAT, OPTIONAL, "0.2",
         "initial largest displacement along each axis (length)"),
     NUM_GT(0), LAND(mc.max_displacement)},
    {KEY("mc.max_log_volume", K_FLOAT, OPTIONAL, "0.01",
         "initial largest change of ln V (npt; gibbs_npt: of one box) or of ln(V1 / V2) "
         "(gibbs)"),
     NUM_GT(0), LAND(mc.max_log_volume)},
    {KEY("mc.sweep", K_ENUM, OPTIONAL, "\"sequential\"",
         "displacements: sequential (one particle at a time) or checkerboard (a sweep of a "
         "shifted cell grid, eight colours, the particles of a colour's cells at once; the CPU "
         "or backend = \"gpu\")"),
     .choices = MC_SWEEP_CHOICES, LAND(mc.sweep)},
    {KEY("mc.decomposition", K_ENUM, OPTIONAL, "\"replicated\"",
         "several ranks: every rank holds the whole boxes (replicated; the CPU or the GPU) or "
         "its brick's particles and a ghost layer (domain; the CPU)"),
     .choices = MC_DECOMPOSITION_CHOICES, LAND(mc.decomposition)},
    {KEY("mc.moves", K_GROUP, OPTIONAL, NULL,
         "probability of each move kind; the given ones sum to 1 (default per ensemble: "
         "docs/configuration.md)")},
    {KEY("mc.moves.displacement", K_FLOAT, OPTIONAL, NULL,
         "probability of a displacement of one particle"),
     NUM_IN(0, 1), OWN(mc.p_move[VS_MC_DISPLACE])},
    {KEY("mc.moves.volume", K_FLOAT, OPTIONAL, NULL,
         "npt, gibbs, gibbs_npt: probability of a volume move (gibbs: volume exchange; "
         "gibbs_npt: one box's volume)"),
     NUM_IN(0, 1), OWN(mc.p_move[VS_MC_VOLUME])},
    {KEY("mc.moves.exchange", K_FLOAT, OPTIONAL, NULL,
         "gcmc: probability of an insertion or deletion (half each); gibbs, gibbs_npt: of "
         "a transfer"),
     NUM_IN(0, 1), OWN(mc.p_move[VS_MC_EXCHANGE])},
    {KEY("mc.box2", K_VEC3, OPTIONAL, NULL,
         "gibbs, gibbs_npt: the second box's edges (required there)"),
     NUM_GT(0), OWN(mc.box2)},
    {KEY("mc.particles2", K_INT, OPTIONAL, NULL,
         "gibbs, gibbs_npt: the second box's particles (required there)"),
     INT_GE(0), OWN(mc.particles2)},
    {KEY("mc.blocks", K_INT, OPTIONAL, "10",
         "blocks of the closing block averages and their errors (mc_summary.h5)"),
     INT_GE(2), LAND(mc.blocks)},
    {KEY("mc.energy_bin", K_FLOAT, OPTIONAL, "0",
         "gcmc: energy bin width of the (N, E) histogram in mc_summary.h5; 0: mc.kT / 10"),
     NUM_GE(0), LAND(mc.energy_bin)},
};

const int vs_config_schema_count = (int)(sizeof vs_config_schema / sizeof vs_config_schema[0]);

_Static_assert(sizeof vs_config_schema / sizeof vs_config_schema[0] <= VS_CONFIG_SCHEMA_MAX,
               "raise VS_CONFIG_SCHEMA_MAX in param_schema.h");

const key_spec *vs_schema_find(const char *path)
{
    for (int i = 0; i < vs_config_schema_count; ++i)
        if (strcmp(vs_config_schema[i].path, path) == 0)
            return &vs_config_schema[i];
    return NULL;
}
