/* thermo.csv: one row per thermo step, written by rank 0 and flushed per row, so a killed run
 * leaves every completed row. The header starts with these columns, in this order:
 *   step,time,temperature,pressure,kinetic_energy,potential_energy,px,py,pz
 * More columns may follow them (never before or between them): the tests and scripts that
 * read the file find columns by name or take `step` as the first. Values are printed with 17
 * significant digits, so runs can be compared to round-off. Columns: docs/file-formats.md. */
#ifndef VESICA_THERMO_CSV_H
#define VESICA_THERMO_CSV_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "observables.h"

typedef struct {
    FILE *file;
    int molecules; /* set before opening: the header gets pair_energy,bond_energy,
                      angle_energy,dihedral_energy */
    int oriented; /* set before opening: the header gets rotational_kinetic_energy,
                     rotational_temperature after the molecules' columns (oriented species) */
    int ensemble_columns; /* set before opening (vs_thermo.ensemble_columns): 1 appends
                             conserved_energy, 2 thermostat_energy,conserved_energy,
                             3 (npt) thermostat_energy,conserved_energy,volume */
    int tensor; /* set before opening (output.pressure_tensor): pxx,pyy,pzz,pxy,pxz,pyz */
    int reactions; /* set before opening (vs_thermo.reactions): last, 1 appends reactions,
                      conversion,active_ends; 2 bonds_created; 4 bonds_broken */
    int field; /* set before opening (vs_thermo.field): field_energy, after everything */
} vs_thermo_csv;

/* Rank 0 only. Returns 0, or -1 with one line in err. */
int vs_thermo_csv_open(vs_thermo_csv *csv, const char *dir, char *err, size_t err_len);
/* Rank 0, on restart from a checkpoint at `max_step`: drop the rows of later steps (written
 * after that checkpoint by the run that stopped), atomically, and append from there. A
 * missing file is created with its header. Returns 0, or -1 with one line in err. */
int vs_thermo_csv_reopen(vs_thermo_csv *csv, const char *dir, int64_t max_step, char *err,
                         size_t err_len);
int vs_thermo_csv_write(vs_thermo_csv *csv, const vs_thermo *t);
void vs_thermo_csv_close(vs_thermo_csv *csv);

#endif
