"""The field tests' fixed random A/B system (field_check.py, field_gpu.py): its LAMMPS data
file and the field-only configuration that reads it (dpd a = gamma = 0, one step of dt 0.001
from rest, thermo and a checkpoint every step)."""


def write_data(path, x, species, box):
    with open(path, "w") as f:
        f.write(f"field test\n\n{len(x)} atoms\n2 atom types\n\n")
        for d in "xyz":
            f.write(f"0.0 {box} {d}lo {d}hi\n")
        f.write("\nMasses\n\n1 1.0\n2 1.0\n\nAtoms # molecular\n\n")
        for i in range(len(x)):
            xyz = " ".join(repr(float(v)) for v in x[i])  # plain floats under numpy 2
            f.write(f"{i + 1} 0 {species[i] + 1} {xyz}\n")
        f.write("\nVelocities\n\n")
        for i in range(len(x)):
            f.write(f"{i + 1} 0.0 0.0 0.0\n")


def field_only_config(data, scheme, backend="cpu"):
    return f"""input = {{ format = "lammps-data"; file = "{data}"; species = "type"; }};
seed = 1;
species = ( {{ name = "A"; }}, {{ name = "B"; }} );
dpd = {{ a = {{ A = {{ A = 0.0; B = 0.0; }}; B = {{ A = 0.0; B = 0.0; }}; }};
        gamma = 0.0; kT = 1.0; }};
integrator = {{ dt = 0.001; steps = 1; }};
neighbor = {{ skin = 0.0; }};
field = {{ spacing = 1.0; kappa = 0.2; force = "{scheme}";
  chi = {{ A = {{ A = 0.0; B = 1.5; }}; B = {{ A = 1.5; B = 0.3; }}; }}; }};
backend = "{backend}";
output = {{ dir = "unused"; thermo_interval = 1; checkpoint_interval = 1; }};
"""
