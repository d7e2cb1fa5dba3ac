/* fields.h5: frames of the MD-SCF density fractions phi_K on the grid (output.field_interval),
 * as a temporal VTK-HDF ImageData that VTK's vtkHDFReader and ParaView open as a time series
 * (docs/file-formats.md, "fields.h5"), written collectively through parallel HDF5.
 *
 * The grid's vertices are the image's points (n per axis, spacing h, origin 0; the periodic
 * image of vertex 0 at the far face is not repeated). Each field species K is one point array
 * VTKHDF/PointData/phi_<name> of shape (frames, n_z, n_y, n_x), written by every rank as the
 * hyperslab of the vertices it owns, so the file does not depend on the rank count.
 * VTKHDF/Steps holds the frames' times and the offsets VTK reads each frame at; the group
 * /vesica (outside VTKHDF, which VTK ignores) the frames' step numbers and the run's
 * description.
 *
 * A killed run keeps the frames written before: each append opens the file, writes the
 * frame's data, then its step, time and offsets, raises Steps' NSteps last and closes the
 * file (which flushes it), so the file is whole between appends and a reader that trusts
 * NSteps never reads a frame that was not complete.
 */
#ifndef VESICA_FIELDS_H5_H
#define VESICA_FIELDS_H5_H

#include <stddef.h>
#include <stdint.h>

#include "parallel.h"

/* The grid and this rank's part of it. */
typedef struct {
    int n[3];                 /* vertices (= cells, periodic) along each axis */
    double h[3];              /* their spacing (length) */
    int a[3], b[3];           /* this rank's owned vertices: [a, b) along each axis */
    int nf;                   /* field species */
    const char *const *names; /* their species names, nf of them */
} vs_fields_layout;

/* A new fields.h5 at path (replacing any) with no frame; config_text is kept verbatim.
 * Collective. Returns 0, or -1 with one line in err on every rank. */
int vs_fields_h5_create(const vs_par *par, const char *path, const vs_fields_layout *L,
                        const char *config_text, char *err, size_t err_len);
/* Append the frame of `step` at `time`: phi holds this rank's owned vertices, species after
 * species, x fastest (nf * owned values). Collective. Returns 0 or -1 (one line in err). */
int vs_fields_h5_append(const vs_par *par, const char *path, const vs_fields_layout *L,
                        int64_t step, double time, const double *phi, char *err,
                        size_t err_len);
/* A restart at `max_step`: keep the frames up to it, drop the later ones. The file must hold
 * this layout's grid and species. Collective. Returns the frames kept, or -1 (one line). */
int64_t vs_fields_h5_trim(const vs_par *par, const char *path, const vs_fields_layout *L,
                          int64_t max_step, char *err, size_t err_len);

#endif
