/* The configuration schema: see config_schema.h. The table drives everything config.c does
 * per key (unknown-key check, type and range checks, their wording, --set paths, defaults);
 * docs/configuration.md documents every path in it (tests/config reads this file to check).
 */
#include "config_schema.h"

#include <limits.h>
#include <stdint.h>

#include "params.h"

/* Designated initialisers throughout, so unnamed checks are zero (-Wextra stays quiet). */
#define KEY(p, t, n, d, doc_) .path = (p), .type = (t), .need = (n), .def = (d), .doc = (doc_)
#define NUM_GT(x) .bounds = B_LO | B_LO_OPEN, .lo = (x)
#define NUM_GE(x) .bounds = B_LO, .lo = (x)
#define NUM_IN(a, b) .bounds = B_LO | B_HI, .lo = (a), .hi = (b)
#define INT_GE(x) .ilo = (x), .ihi = INT64_MAX

/* Names tied to the enum values of params.h explicitly, not by position. */
static const key_choice RANDOM_CHOICES[] = {
    {"uniform", VS_RANDOM_UNIFORM}, {"gaussian", VS_RANDOM_GAUSSIAN}, {NULL, 0}};
static const key_choice BACKEND_CHOICES[] = {
    {"auto", VS_BACKEND_AUTO}, {"cpu", VS_BACKEND_CPU}, {"gpu", VS_BACKEND_GPU}, {NULL, 0}};
static const key_choice BUILDER_CHOICES[] = {
    {"thread", VS_GPU_BUILDER_THREAD},
    {"warp", VS_GPU_BUILDER_WARP},
    {"cells", VS_GPU_BUILDER_CELLS},
    {"auto", VS_GPU_BUILDER_AUTO},
    {NULL, 0}};
static const key_choice TRANSPORT_CHOICES[] = {
    {"auto", VS_TRANSPORT_AUTO},
    {"host", VS_TRANSPORT_HOST},
    {"peer", VS_TRANSPORT_PEER},
    {"mpi-device", VS_TRANSPORT_MPI_DEVICE},
    {NULL, 0}};
static const key_choice BOND_CHOICES[] = {
    {"harmonic", VS_BOND_HARMONIC}, {"fene", VS_BOND_FENE}, {NULL, 0}};
static const key_choice ANGLE_CHOICES[] = {
    {"harmonic", VS_ANGLE_HARMONIC}, {"cosine", VS_ANGLE_COSINE}, {NULL, 0}};
static const key_choice ON_OFF_CHOICES[] = {{"on", 1}, {"off", 0}, {NULL, 0}};
static const key_choice FLOW_CHOICES[] = {
    {"none", VS_FLOW_NONE}, {"double_poiseuille", VS_FLOW_DOUBLE_POISEUILLE}, {NULL, 0}};
static const key_choice AXIS_CHOICES[] = {{"x", 0}, {"y", 1}, {"z", 2}, {NULL, 0}};
static const key_choice PROFILE_AXIS_CHOICES[] = {
    {"none", -1}, {"x", 0}, {"y", 1}, {"z", 2}, {NULL, 0}};
static const key_choice INPUT_FORMAT_CHOICES[] = {
    {"lammps-data", VS_INPUT_LAMMPS_DATA}, {"h5md", VS_INPUT_H5MD}, {NULL, 0}};
static const key_choice INPUT_SPECIES_CHOICES[] = {{"type", 0}, {"name", 1}, {NULL, 0}};
static const key_choice PRECISION_CHOICES[] = {
    {"mixed", VS_PRECISION_MIXED}, {"double", VS_PRECISION_DOUBLE}, {NULL, 0}};

/* Every key Vesica reads, in the order the documentation lists them. The first five fields

 * are path, type, need, default, meaning; the checks follow. docs/configuration.md documents
 * every path (a unit test checks that). */
const key_spec vs_config_schema[] = {
    {KEY("box", K_VEC3, REQUIRED, NULL,
         "periodic box edges [Lx, Ly, Lz], each >= 2 * dpd.rc"), .with_input = WI_REFUSED},
    {KEY("density", K_FLOAT, REQUIRED_UNLESS_RIVAL, NULL,
         "number density; particles = round(density * volume)"),
     NUM_GT(0), .rival = "particles", .with_input = WI_REFUSED},
    {KEY("particles", K_INT, OPTIONAL, NULL,
         "total particle count, instead of density"),
     INT_GE(1), .rival = "density", .with_input = WI_REFUSED},
    {KEY("input", K_GROUP, OPTIONAL, NULL,
         "read the initial system from a file (box, particles, molecules) instead of building "
         "it"), .rival = "molecules"},
    {KEY("input.format", K_ENUM, REQUIRED, NULL,
         "lammps-data (atom styles molecular, full) or h5md"),
     .choices = INPUT_FORMAT_CHOICES},
    {KEY("input.file", K_STRING, REQUIRED, NULL,
         "the file, relative to the working directory"),
     .maxlen = VS_PATH_LEN - 1},
    {KEY("input.species", K_ENUM, OPTIONAL, "\"type\"",
         "type: file type k is species.[k-1]; name: by the file's type names"),
     .choices = INPUT_SPECIES_CHOICES},
    {KEY("input.frame", K_INT, OPTIONAL, "-1",
         "h5md: the frame read (0 the first); -1: the last"),
     .ilo = -1, .ihi = INT64_MAX},
    {KEY("seed", K_INT, OPTIONAL, "1",
         "64-bit seed of the initial state and the pair random stream"),
     INT_GE(0)},

    {KEY("species", K_LIST, REQUIRED, NULL,
         "particle species, one group each"),
     .ilo = 1, .ihi = VS_MAX_SPECIES},
    {KEY("species.[]", K_GROUP, OPTIONAL, NULL,
         "one species")},
    {KEY("species.[].name", K_NAME, REQUIRED, NULL,
         "unique name, used as a key of dpd.a"),
     .maxlen = VS_NAME_LEN - 1},
    {KEY("species.[].mass", K_FLOAT, OPTIONAL, "1.0",
         "particle mass"),
     NUM_GT(0)},
    {KEY("species.[].fraction", K_FLOAT, REQUIRED_IF_SEVERAL, "1.0",
         "number fraction of all particles; fractions sum to 1"),
     NUM_IN(0, 1), .with_input = WI_OPTIONAL},
    {KEY("species.[].body_force", K_VEC3, OPTIONAL, "[0.0, 0.0, 0.0]",
         "constant force on every particle of the species")},

    {KEY("dpd", K_GROUP, REQUIRED, NULL,
         "DPD pair interaction")},
    {KEY("dpd.a", K_MAP, REQUIRED, NULL,
         "conservative amplitudes a_ij by species names")},
    {KEY("dpd.a.*", K_MAP, OPTIONAL, NULL,
         "row i of a_ij")},
    {KEY("dpd.a.*.*", K_FLOAT, OPTIONAL, NULL,
         "a_ij; a.A.B must equal a.B.A")},
    {KEY("dpd.gamma", K_FLOAT, REQUIRED, NULL,
         "dissipative strength gamma"),
     NUM_GE(0)},
    {KEY("dpd.kT", K_FLOAT, REQUIRED, NULL,
         "thermostat temperature k_B T"),
     NUM_GE(0)},
    {KEY("dpd.rc", K_FLOAT, OPTIONAL, "1.0",
         "cutoff radius r_c"),
     NUM_GT(0)},
    {KEY("dpd.s", K_FLOAT, OPTIONAL, "1.0",
         "weight exponent: w_D = w^(2s), w_R = w^s"),
     NUM_GT(0)},
    {KEY("dpd.random", K_ENUM, OPTIONAL, "\"uniform\"",
         "distribution of the pair random numbers"),
     .choices = RANDOM_CHOICES},

    {KEY("flow", K_GROUP, OPTIONAL, NULL,
         "driving field on top of the body forces (a force-field term)")},
    {KEY("flow.kind", K_ENUM, OPTIONAL, "\"none\"",
         "none, or double_poiseuille: +g in the lower half along flow.across, -g in the upper"),
     .choices = FLOW_CHOICES},
    {KEY("flow.g", K_FLOAT, OPTIONAL, "0.0",
         "force per particle of the driving field (force units)")},
    {KEY("flow.axis", K_ENUM, OPTIONAL, "\"z\"",
         "direction of the driving force"),
     .choices = AXIS_CHOICES},
    {KEY("flow.across", K_ENUM, OPTIONAL, "\"x\"",
         "coordinate whose half of the box sets the sign; differs from flow.axis"),
     .choices = AXIS_CHOICES},
    {KEY("flow.species", K_STRING, OPTIONAL, "\"all\"",
         "the species driven: a species name, or all"),
     .maxlen = VS_NAME_LEN - 1},

    {KEY("integrator", K_GROUP, REQUIRED, NULL,
         "time integration")},
    {KEY("integrator.dt", K_FLOAT, REQUIRED, NULL,
         "time step"),
     NUM_GT(0)},
    {KEY("integrator.lambda", K_FLOAT, OPTIONAL, "0.5",
         "Groot-Warren velocity-prediction factor"),
     NUM_IN(0, 1)},
    {KEY("integrator.steps", K_INT, REQUIRED, NULL,
         "final step number (a restart continues up to it)"),
     INT_GE(0)},

    {KEY("neighbor", K_GROUP, OPTIONAL, NULL,
         "neighbor list")},
    {KEY("neighbor.skin", K_FLOAT, OPTIONAL, "0.0",
         "Verlet skin added to rc; 0 rebuilds the lists on every step"),
     NUM_GE(0)},
    {KEY("neighbor.gpu_builder", K_ENUM, OPTIONAL, "\"auto\"",
         "GPU neighbour-list builder"),
     .choices = BUILDER_CHOICES},

    {KEY("decomposition", K_IVEC3, OPTIONAL, "[0, 0, 0]",
         "MPI ranks per dimension; all 0 = automatic"),
     .ilo = 0, .ihi = INT_MAX},
    {KEY("comm", K_GROUP, OPTIONAL, NULL,
         "communication between ranks")},
    {KEY("comm.transport", K_ENUM, OPTIONAL, "\"auto\"",
         "how the GPU backend moves halo data: auto, host, peer or mpi-device"),
     .choices = TRANSPORT_CHOICES},
    {KEY("comm.overlap", K_ENUM, OPTIONAL, "\"on\"",
         "GPU: compute interior forces while the ghosts travel"),
     .choices = ON_OFF_CHOICES},
    {KEY("backend", K_ENUM, OPTIONAL, "\"auto\"",
         "where the step runs"),
     .choices = BACKEND_CHOICES},
    {KEY("precision", K_ENUM, OPTIONAL, "\"mixed\"",
         "GPU arithmetic (the CPU backend is always double)"),
     .choices = PRECISION_CHOICES},

    {KEY("output", K_GROUP, REQUIRED, NULL,
         "output files")},
    {KEY("output.dir", K_STRING, REQUIRED, NULL,
         "directory for every output file"),
     .maxlen = VS_PATH_LEN - 1},
    {KEY("output.thermo_interval", K_INT, OPTIONAL, "100",
         "steps between thermo rows"),
     INT_GE(1)},
    {KEY("output.trajectory_interval", K_INT, OPTIONAL, "0",
         "steps between H5MD trajectory frames; 0 = no trajectory"),
     INT_GE(0)},
    {KEY("output.checkpoint_interval", K_INT, OPTIONAL, "0",
         "steps between checkpoints; 0 = only at the end of the run"),
     INT_GE(0)},
    {KEY("output.checkpoint_keep", K_INT, OPTIONAL, "2",
         "checkpoints kept (the newest ones); 0 = no checkpoints"),
     INT_GE(0)},

    {KEY("profiles", K_GROUP, OPTIONAL, NULL,
         "binned profiles written to profiles.h5")},
    {KEY("profiles.axis", K_ENUM, OPTIONAL, "\"none\"",
         "axis of the bins; none = no profiles"),
     .choices = PROFILE_AXIS_CHOICES},
    {KEY("profiles.bins", K_INT, OPTIONAL, "50",
         "bins along the axis"),
     .ilo = 1, .ihi = 1 << 20},
    {KEY("profiles.every", K_INT, OPTIONAL, "10",
         "steps between samples"),
     INT_GE(1)},
    {KEY("profiles.window", K_INT, OPTIONAL, "1000",
         "steps per window (windows end at its multiples); 0 = the named times"),
     INT_GE(0)},
    {KEY("profiles.times", K_FLOATS, OPTIONAL, "[0.0]",
         "named windows [t - half_width, t + half_width] (when window = 0)"),
     NUM_GE(0), .ilo = 1, .ihi = VS_MAX_PROFILE_TIMES},
    {KEY("profiles.half_width", K_FLOAT, OPTIONAL, "0.5",
         "half width of a named window (time units)"),
     NUM_GT(0)},
    {KEY("profiles.per_species", K_ENUM, OPTIONAL, "\"off\"",
         "also one profile per species"),
     .choices = ON_OFF_CHOICES},

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
    {KEY("molecules.[].bond.style", K_ENUM, REQUIRED, NULL,
         "harmonic: K/2 (r - r0)^2; fene: -K R0^2/2 ln(1 - (r/R0)^2)"),
     .choices = BOND_CHOICES},
    {KEY("molecules.[].bond.K", K_FLOAT, REQUIRED, NULL,
         "bond stiffness K"),
     NUM_GE(0)},
    {KEY("molecules.[].bond.r0", K_FLOAT, OPTIONAL, NULL,
         "harmonic: rest length r0 (required)"),
     NUM_GE(0)},
    {KEY("molecules.[].bond.R0", K_FLOAT, OPTIONAL, NULL,
         "fene: maximum extension R0 (required)"),
     NUM_GT(0)},
    {KEY("molecules.[].bond.length", K_FLOAT, OPTIONAL, NULL,
         "step of the random walk that places the beads (default r0, or R0/2 for fene)"),
     NUM_GT(0)},
    {KEY("molecules.[].angle", K_GROUP, OPTIONAL, NULL,
         "the angle of three consecutive beads; absent: none")},
    {KEY("molecules.[].angle.style", K_ENUM, REQUIRED, NULL,
         "harmonic: K/2 (theta - theta0)^2; cosine: K (1 + cos theta)"),
     .choices = ANGLE_CHOICES},
    {KEY("molecules.[].angle.K", K_FLOAT, REQUIRED, NULL,
         "angle stiffness K"),
     NUM_GE(0)},
    {KEY("molecules.[].angle.theta0", K_FLOAT, OPTIONAL, "180.0",
         "harmonic: rest angle in degrees (180: straight)"),
     NUM_IN(0, 180)},
    {KEY("bonded", K_GROUP, OPTIONAL, NULL,
         "settings of the bonded interactions")},
    {KEY("bonded.bonds", K_LIST, OPTIONAL, NULL,
         "with input: the bond types, bond type k of the file is bonded.bonds.[k-1]"),
     .ilo = 1, .ihi = VS_MAX_MOLTYPES},
    {KEY("bonded.bonds.[]", K_GROUP, OPTIONAL, NULL,
         "one bond type")},
    {KEY("bonded.bonds.[].style", K_ENUM, REQUIRED, NULL,
         "harmonic or fene, as molecules.[].bond.style"),
     .choices = BOND_CHOICES},
    {KEY("bonded.bonds.[].K", K_FLOAT, REQUIRED, NULL,
         "bond stiffness K"),
     NUM_GE(0)},
    {KEY("bonded.bonds.[].r0", K_FLOAT, OPTIONAL, NULL,
         "harmonic: rest length r0 (required)"),
     NUM_GE(0)},
    {KEY("bonded.bonds.[].R0", K_FLOAT, OPTIONAL, NULL,
         "fene: maximum extension R0 (required)"),
     NUM_GT(0)},
    {KEY("bonded.angles", K_LIST, OPTIONAL, NULL,
         "with input: the angle types, angle type k of the file is bonded.angles.[k-1]"),
     .ilo = 1, .ihi = VS_MAX_MOLTYPES},
    {KEY("bonded.angles.[]", K_GROUP, OPTIONAL, NULL,
         "one angle type")},
    {KEY("bonded.angles.[].style", K_ENUM, REQUIRED, NULL,
         "harmonic or cosine, as molecules.[].angle.style"),
     .choices = ANGLE_CHOICES},
    {KEY("bonded.angles.[].K", K_FLOAT, REQUIRED, NULL,
         "angle stiffness K"),
     NUM_GE(0)},
    {KEY("bonded.angles.[].theta0", K_FLOAT, OPTIONAL, "180.0",
         "harmonic: rest angle in degrees"),
     NUM_IN(0, 180)},
    {KEY("bonded.reach", K_FLOAT, OPTIONAL, NULL,
         "longest bond allowed, the ghost reach of bonded beads (default: rc, or the "
         "largest fene R0)"),
     NUM_GT(0)},

    {KEY("run", K_GROUP, OPTIONAL, NULL,
         "run control")},
    {KEY("run.walltime", K_FLOAT, OPTIONAL, "0.0",
         "hours this run may last; 0 = no limit"),
     NUM_GE(0)},
    {KEY("run.temperature_tolerance", K_FLOAT, OPTIONAL, "0.5",
         "relative deviation of the kinetic temperature from dpd.kT that draws a warning; "
         "0 = not watched"),
     NUM_GE(0)},
    {KEY("run.temperature_rows", K_INT, OPTIONAL, "5",
         "thermo rows in a row beyond the tolerance that stop the run; 0 = warn only"),
     INT_GE(0)},
    {KEY("run.equilibration_time", K_FLOAT, OPTIONAL, "10.0",
         "time before which the temperature is not watched"),
     NUM_GE(0)},
};

const int vs_config_schema_count = (int)(sizeof vs_config_schema / sizeof vs_config_schema[0]);

_Static_assert(sizeof vs_config_schema / sizeof vs_config_schema[0] <= VS_CONFIG_SCHEMA_MAX,
               "raise VS_CONFIG_SCHEMA_MAX in config_schema.h");
