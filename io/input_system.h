/* A system read from a file (the configuration's input group) instead of built: a LAMMPS
 * data file (lammps_data.c) or an H5MD file (h5md_input.c), mapped onto the configuration's
 * species and bond and angle types.
 *
 * One process reads the whole file (the run driver reads on rank 0 and scatters the records
 * to their bricks), so the reader holds every particle once; after the scatter each rank
 * keeps only its own. Tags are the file's atom ids - 1 (LAMMPS: ids must be exactly 1..N) or
 * the H5MD rows (or its id dataset), so the file's order is the tag order of every output.
 *
 * Every problem with the file is one line naming the file, the line (LAMMPS) or the dataset
 * (H5MD), and what is wrong; the caller prints it and stops with exit status 2.
 */
#ifndef VESICA_INPUT_SYSTEM_H
#define VESICA_INPUT_SYSTEM_H

#include <stddef.h>
#include <stdint.h>

#include "params.h"
#include "particles.h"

typedef struct {
    double box[3];         /* periodic box edges (the file's origin moved to 0) */
    int64_t n;             /* particles */
    int64_t n_bonds, n_angles, n_dihedrals;
    int topology;          /* the particles carry topology records (molecule ids, bonds) */
    int has_velocities;    /* the file gave every velocity (else they are zero here) */
    vs_particle_rec *recs; /* n records in tag order, positions wrapped into the box; NULL
                              after a header-only read */
    vs_topo *topo;         /* n topology records, or NULL (no topology, or header only) */
    vs_dihedrals *dih;     /* n dihedral records where the configuration has dihedral types,
                              else NULL */
    vs_special *special;   /* n special-neighbour lists made from the bonds by the run driver
                              where the configuration asks for them (src/app/run_input.c),
                              else NULL */
    vs_orient *orient;     /* n orientation records where the file gives orientations (H5MD
                              /particles/<group>/orientation; LAMMPS data files give none)
                              and the configuration has oriented species, else NULL; only
                              the directions n are set */
} vs_input_system;

/* Read prm->input.file (format prm->input.format). With header_only, only box, counts and
 * the topology flag (a restart takes the state from its checkpoint). Returns 0, or -1 with
 * one line in err (nothing allocated is left behind). */
int vs_input_read(const vs_params *prm, int header_only, vs_input_system *sys, char *err,
                  size_t err_len);
void vs_input_system_free(vs_input_system *sys);

/* Shared by the readers. */
int vs_lammps_data_read(const vs_params *prm, int header_only, vs_input_system *sys, char *err,
                        size_t err_len);
int vs_h5md_input_read(const vs_params *prm, int header_only, vs_input_system *sys, char *err,
                       size_t err_len);
/* Add a bond of `type` (0-based) between tags a and b to both beads. Returns 0, or -1 with
 * the reason (no location) in err: a bead bonded to itself, a duplicate, a full list. */
int vs_input_add_bond(vs_topo *topo, int64_t a, int64_t b, int type, char *err, size_t len);
/* The same for an angle a-b-c (b the vertex), added to all three beads. */
int vs_input_add_angle(vs_topo *topo, int64_t a, int64_t b, int64_t c, int type, char *err,
                       size_t len);
/* The same for a dihedral q[0]-q[1]-q[2]-q[3] (q[1]-q[2] the axis), added to all four. */
int vs_input_add_dihedral(vs_dihedrals *dih, const int64_t q[4], int type, char *err,
                          size_t len);
/* Whether n particles of bytes_per_particle each fit in this machine's memory: a header's
 * count is checked before anything is allocated. Returns 0, or -1 with one line in err. */
int vs_input_check_memory(int64_t n, double bytes_per_particle, const char *where, char *err,
                          size_t err_len);

/* The most box lengths a coordinate of an input file may lie from the box, its image flags
 * included: image counts are 32-bit and a run still moves its particles. */
#define VS_INPUT_IMAGE_LIMIT (1 << 30)

/* Checks of the whole system once read: box against rc, every position and velocity finite
 * and every position within VS_INPUT_IMAGE_LIMIT box lengths, no velocity on a particle of a
 * frozen species, every bond shorter than the bonded reach (and a FENE R0). Wraps the positions into the box. Returns 0 or -1 (err: the
 * problem, after "where: "). */
int vs_input_finish(const vs_params *prm, vs_input_system *sys, const char *where, char *err,
                    size_t err_len);

#endif
