# The configuration writer of the Monte Carlo shell tests (sourced by mc_restart_exact.sh,
# mc_checkerboard.sh, mc_gpu_exact.sh and mc_gpu_ranks.sh).
#
# mc_cfg NAME EDGE PARTICLES SEED FRACTION_A MC_KEYS writes NAME.cfg: a cubic box of edge EDGE
# with PARTICLES LJ particles (rc 2.5 with tail corrections) of species A and B, FRACTION_A of
# them A (1: species A alone), the mc group { MC_KEYS }, output to NAME/ with a thermo row
# every 2 cycles and a checkpoint every 10 (two kept). MC_STYLE=mie in the environment makes
# the style mie (n 14, m 6; species A alone).
mc_cfg() {
    local species coeff style=${MC_STYLE:-lj}
    if [ "$style" = mie ]; then
        species='( { name = "A"; } )'
        coeff='A = { A = { epsilon = 1.0; sigma = 1.0; n = 14.0; m = 6.0; }; };'
    elif [ "$5" = 1 ]; then
        species='( { name = "A"; } )'
        coeff='A = { A = { epsilon = 1.0; sigma = 1.0; }; };'
    else
        species="( { name = \"A\"; fraction = $5; }, { name = \"B\"; fraction = $(awk "BEGIN { print 1 - $5 }"); } )"
        coeff='A = { A = { epsilon = 1.0; sigma = 1.0; }; B = { epsilon = 0.8; sigma = 0.9; }; };
                     B = { B = { epsilon = 0.6; sigma = 0.8; }; };'
    fi
    cat > "$1.cfg" <<EOF2
box = [$2, $2, $2];
particles = $3;
seed = $4;
species = $species;
pair = ( { style = "$style"; rc = 2.5; tail = "on";
           coeff = { $coeff }; } );
mc = { $6 };
output = { dir = "$1"; thermo_interval = 2; checkpoint_interval = 10; checkpoint_keep = 2; };
EOF2
}

# mc_gpu_cases writes the checkerboard cases the GPU tests share (mc_gpu_exact.sh,
# mc_gpu_ranks.sh): nvt (two species, 4^3 cells of 41: the kernel's global-memory path), npt
# (volume moves; 6^3 cells, staged), gibbs (transfers) and gcmc (insertions and deletions),
# 40 cycles each; MC_GPU_RUN holds their common keys for further cases.
MC_GPU_RUN='kT = 1.1; cycles = 40; equilibration = 20; tune_every = 5; blocks = 3; sweep = "checkerboard";'
mc_gpu_cases() {
    mc_cfg nvt 14.9 2600 31 0.8 "$MC_GPU_RUN ensemble = \"nvt\";"
    mc_cfg npt 15.0 2700 31 0.8 "$MC_GPU_RUN ensemble = \"npt\"; pressure = 1.0; moves = { displacement = 0.98; volume = 0.02; };"
    mc_cfg gibbs 12.0 1200 31 1 "$MC_GPU_RUN ensemble = \"gibbs\"; box2 = [10.0, 10.0, 10.0]; particles2 = 200;"
    mc_cfg gcmc 12.0 20 31 1 "$MC_GPU_RUN ensemble = \"gcmc\"; activity = 0.3; moves_per_cycle = 400;"
}
