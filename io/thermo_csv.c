/* thermo.csv writer: see thermo_csv.h. */
#include "thermo_csv.h"

#include <errno.h>
#include <string.h>

#include "params.h"

int vs_thermo_csv_open(vs_thermo_csv *csv, const char *dir, char *err, size_t err_len)
{
    char path[VS_PATH_LEN + 16];
    snprintf(path, sizeof path, "%s/thermo.csv", dir);
    csv->file = fopen(path, "w");
    if (!csv->file) {
        snprintf(err, err_len, "%s: cannot create: %s", path, strerror(errno));
        return -1;
    }
    fprintf(csv->file,
            "step,time,temperature,pressure,kinetic_energy,potential_energy,px,py,pz\n");
    return fflush(csv->file) == 0 ? 0 : -1;
}

int vs_thermo_csv_write(vs_thermo_csv *csv, const vs_thermo *t)
{
    if (!csv->file)
        return 0;
    fprintf(csv->file, "%lld,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g\n",
            (long long)t->step, t->time, t->temperature, t->pressure, t->kinetic,
            t->potential, t->momentum[0], t->momentum[1], t->momentum[2]);
    return fflush(csv->file) == 0 ? 0 : -1;
}

void vs_thermo_csv_close(vs_thermo_csv *csv)
{
    if (csv->file)
        fclose(csv->file);
    csv->file = NULL;
}
