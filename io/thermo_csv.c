/* thermo.csv writer: see thermo_csv.h. */
#include "thermo_csv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fsutil.h"
#include "params.h"

#define VS_THERMO_HEADER "step,time,temperature,pressure,kinetic_energy,potential_energy,px,py,pz"
#define VS_THERMO_MOLECULE_COLUMNS ",pair_energy,bond_energy,angle_energy,dihedral_energy"
#define VS_THERMO_TENSOR_COLUMNS ",pxx,pyy,pzz,pxy,pxz,pyz"

int vs_thermo_csv_open(vs_thermo_csv *csv, const char *dir, char *err, size_t err_len)
{
    char path[VS_PATH_LEN + 16];
    snprintf(path, sizeof path, "%s/thermo.csv", dir);
    csv->file = fopen(path, "w");
    if (!csv->file) {
        snprintf(err, err_len, "%s: cannot create: %s", path, strerror(errno));
        return -1;
    }
    /* the molecules' columns follow the contract's, and only when there are molecules */
    /* and the ensemble's after them, only where the integrator has a conserved energy */
    static const char *const ensemble[4] = {"", ",conserved_energy",
                                            ",thermostat_energy,conserved_energy",
                                            ",thermostat_energy,conserved_energy,volume"};
    const int e = csv->ensemble_columns >= 0 && csv->ensemble_columns <= 3 ? csv->ensemble_columns
                                                                           : 0;
    /* and the pressure tensor's last, only where output.pressure_tensor asks for it */
    /* and the reactions' after everything, only where the run has reactions */
    /* and the field term's energy after those, only where the run has the term */
    fprintf(csv->file, "%s%s%s%s%s%s%s%s%s\n", VS_THERMO_HEADER,
            csv->molecules ? VS_THERMO_MOLECULE_COLUMNS : "",
            csv->oriented ? ",rotational_kinetic_energy,rotational_temperature" : "", ensemble[e],
            csv->tensor ? VS_THERMO_TENSOR_COLUMNS : "",
            csv->reactions & 1 ? ",reactions,conversion,active_ends" : "",
            csv->reactions & 2 ? ",bonds_created" : "", csv->reactions & 4 ? ",bonds_broken" : "",
            csv->field ? ",field_energy" : "");
    return fflush(csv->file) == 0 ? 0 : -1;
}

int vs_thermo_csv_reopen(vs_thermo_csv *csv, const char *dir, int64_t max_step, char *err,
                         size_t err_len)
{
    char path[VS_PATH_LEN + 16];
    snprintf(path, sizeof path, "%s/thermo.csv", dir);
    FILE *probe = fopen(path, "r");
    if (!probe)
        return vs_thermo_csv_open(csv, dir, err, err_len);
    fclose(probe);
    char *text = vs_read_text_file(path, err, err_len);
    if (!text)
        return -1;
    /* keep the header and every row whose step is at most max_step */
    size_t kept = 0;
    char *line = text;
    int first = 1;
    while (*line) {
        char *end = strchr(line, '\n');
        const size_t len = end ? (size_t)(end - line) + 1 : strlen(line);
        const int keep = first || (end && strtoll(line, NULL, 10) <= max_step);
        if (keep) {
            memmove(text + kept, line, len);
            kept += len;
        }
        first = 0;
        line += len;
    }
    const int rc = vs_write_file_atomic(path, text, kept, err, err_len);
    free(text);
    if (rc != 0)
        return -1;
    csv->file = fopen(path, "a");
    if (!csv->file) {
        snprintf(err, err_len, "%s: cannot append: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

int vs_thermo_csv_write(vs_thermo_csv *csv, const vs_thermo *t)
{
    if (!csv->file)
        return 0;
    fprintf(csv->file, "%lld,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g",
            (long long)t->step, t->time, t->temperature, t->pressure, t->kinetic,
            t->potential, t->momentum[0], t->momentum[1], t->momentum[2]);
    if (t->molecules)
        fprintf(csv->file, ",%.17g,%.17g,%.17g,%.17g", t->pair_energy, t->bond_energy,
                t->angle_energy, t->dihedral_energy);
    if (t->oriented)
        fprintf(csv->file, ",%.17g,%.17g", t->rot_kinetic, t->rot_temperature);
    if (t->ensemble_columns >= 2)
        fprintf(csv->file, ",%.17g", t->thermostat_energy);
    if (t->ensemble_columns >= 1)
        fprintf(csv->file, ",%.17g", t->conserved_energy);
    if (t->ensemble_columns == 3)
        fprintf(csv->file, ",%.17g", t->volume);
    if (t->tensor)
        for (int k = 0; k < VS_TENSOR; ++k)
            fprintf(csv->file, ",%.17g", t->ptensor[k]);
    if (t->reactions & 1)
        fprintf(csv->file, ",%.17g,%.17g,%.17g", t->rx_chain, t->rx_conversion, t->rx_active);
    if (t->reactions & 2)
        fprintf(csv->file, ",%.17g", t->rx_created);
    if (t->reactions & 4)
        fprintf(csv->file, ",%.17g", t->rx_broken);
    if (t->field)
        fprintf(csv->file, ",%.17g", t->field_energy);
    fputc('\n', csv->file);
    return fflush(csv->file) == 0 ? 0 : -1;
}

void vs_thermo_csv_close(vs_thermo_csv *csv)
{
    if (csv->file)
        fclose(csv->file);
    csv->file = NULL;
}
