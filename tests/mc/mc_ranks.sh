#!/bin/bash
# The Monte Carlo engine on several ranks (the checkerboard sweep's cells in bricks, one per
# rank: src/engine/mc/mc_ranks.h) makes the one-rank run bit for bit: thermo.csv byte for byte,
# the final checkpoint, mc_summary.h5 and traj.h5md value for value (h5diff; the files' bytes
# hold creation times), and a restart on another rank count continues the straight run.
#   canonical: nvt and npt on 1, 2 and 4 ranks; a 1-rank checkpoint continued on 2 ranks.
#   exchange:  gcmc and gibbs on 1 and 2 ranks; a 2-rank gibbs checkpoint continued on 1; a
#              start from a LAMMPS data file on 1 and 2 ranks; SIGUSR1 on 2 ranks: exit 3.
# A mode with -domain (canonical-domain, exchange-domain) runs every case with
# mc.decomposition = "domain" (each rank holds its brick's particles: mc_domain.h): the same
# one-rank run bit for bit, from three or four ranks, restarts across the two decompositions.
# Usage: mc_ranks.sh canonical|exchange[-domain] VESICA WORKDIR MPIEXEC...
set -u
MODE=${1%-domain}
DECOMP=()
[ "$1" != "$MODE" ] && DECOMP=(--set 'mc.decomposition="domain"')
VESICA=$2
WORK=$3
shift 3
MPIEXEC=("$@")
command -v h5diff > /dev/null || { echo "SKIP: no h5diff (hdf5-tools)"; exit 77; }
rm -rf "$WORK"
mkdir -p "$WORK"
cd "$WORK" || exit 1
fail=0

# 9 / 2.2: a grid of 4 x 4 x 4 cells, 2 per rank along two axes on 4 ranks
write_cfg() { # name, mc keys
    cat > "$1.cfg" <<EOF2
box = [9.0, 9.0, 9.0];
particles = 400;
seed = 29;
species = ( { name = "A"; fraction = 0.7; }, { name = "B"; fraction = 0.3; } );
pair = ( { style = "lj"; rc = 2.2; tail = "on";
           coeff = { A = { A = { epsilon = 1.0; sigma = 1.0; }; B = { epsilon = 0.8; sigma = 0.9; }; };
                     B = { B = { epsilon = 0.6; sigma = 0.8; }; }; }; } );
mc = { kT = 1.2; cycles = 40; equilibration = 20; tune_every = 5; blocks = 2; sweep = "checkerboard"; $2 };
output = { dir = "$1"; thermo_interval = 2; checkpoint_interval = 10; checkpoint_keep = 1; trajectory_interval = 10; };
EOF2
}
LAST=checkpoints/mc-000000000040.h5

# run NAME RANKS DIR [ARGS...]: one run; its log must name the ranks when there are several
run() {
    local name=$1 n=$2 dir=$3
    shift 3
    if ! "${MPIEXEC[@]}" -n "$n" "$VESICA" mc "$name.cfg" --set output.dir=\"$dir\" \
         "${DECOMP[@]}" "$@" > "$dir.log" 2>&1; then
        echo "FAIL: $name on $n rank(s): $(tail -3 "$dir.log")"; fail=1; return 1
    fi
    if [ "$n" -gt 1 ] && ! grep -q "^Monte Carlo: $n ranks" "$dir.log"; then
        echo "FAIL: $name on $n ranks: the log does not name the ranks"; fail=1; return 1
    fi
    if [ "$n" -gt 1 ] && [ ${#DECOMP[@]} -gt 0 ] && ! grep -q "(decomposition domain)" "$dir.log"; then
        echo "FAIL: $name on $n ranks: not split (the log does not say domain)"; fail=1; return 1
    fi
}

# same WHAT A B: thermo.csv, the final checkpoint, the summary and the trajectory of A and B
same() {
    local what=$1 a=$2 b=$3 f
    if ! cmp -s "$a/thermo.csv" "$b/thermo.csv"; then
        echo "FAIL: $what: thermo.csv differs"; fail=1; return
    fi
    for f in $LAST mc_summary.h5 traj.h5md; do
        if ! h5diff "$a/$f" "$b/$f" > /dev/null; then
            echo "FAIL: $what: $f differs"; fail=1; return
        fi
    done
    echo "$what: the same ($(wc -l < "$a/thermo.csv") rows, $LAST, mc_summary.h5, traj.h5md)"
}

if [ "$MODE" = canonical ]; then
    write_cfg nvt 'ensemble = "nvt";'
    write_cfg npt 'ensemble = "npt"; pressure = 0.5; moves = { displacement = 0.9; volume = 0.1; };'
    for e in nvt npt; do
        run $e 1 $e-1 || continue
        for n in 2 4; do
            run $e $n $e-$n && same "$e on $n ranks against 1" $e-1 $e-$n
        done
    done
    # a 1-rank run stopped at cycle 20 (inside the tuning), continued on 2 ranks
    run nvt 1 nvt-re --set mc.cycles=20 &&
        run nvt 2 nvt-re --restart latest && same "nvt: 1-rank checkpoint continued on 2 ranks" nvt-1 nvt-re
    if [ ${#DECOMP[@]} -gt 0 ]; then
        # split: 4 ranks hold about a quarter each; a replicated 2-rank checkpoint continued
        # split on 4 ranks, and a split one continued replicated
        # frames: each rank writes its rows of a fresh file; a file one rank made (the
        # 1-rank run continued on 2 ranks above) is continued by rank 0 gathering them
        if grep -q "each rank writes its rows of a frame" nvt-4.log &&
           grep -q "rank 0 gathers each frame" nvt-re.log; then
            echo "traj.h5md: written by every rank when split, gathered when continuing a 1-rank file"
        else
            echo "FAIL: the split runs' trajectory writers are not the ones expected"; fail=1
        fi
        line=$(grep "^Box 0 split over 4 ranks" nvt-4.log)
        most=$(echo "$line" | awk '{print $9}')
        if [ -n "$most" ] && [ "$most" -lt 200 ]; then
            echo "nvt on 4 ranks: $line"
        else
            echo "FAIL: nvt on 4 ranks does not split its 400 particles: ${line:-no split line}"; fail=1
        fi
        saved=("${DECOMP[@]}")
        DECOMP=()
        run npt 2 npt-re --set mc.cycles=20 && DECOMP=("${saved[@]}") &&
            run npt 4 npt-re --restart latest && same "npt: replicated checkpoint continued split" npt-1 npt-re
        DECOMP=("${saved[@]}")
        run nvt 4 nvt-re2 --set mc.cycles=20 && DECOMP=() &&
            run nvt 2 nvt-re2 --restart latest && same "nvt: split checkpoint continued replicated" nvt-1 nvt-re2
        DECOMP=("${saved[@]}")
        # a split checkpoint (each rank writes its rows) continued split on 3 ranks (each
        # reads its rows: 400 over 3, uneven), and a damaged one refused on every rank
        run npt 4 npt-re3 --set mc.cycles=20 && run npt 3 npt-re3 --restart latest &&
            same "npt: split checkpoint continued split on 3 ranks" npt-1 npt-re3
        mkdir -p bad/checkpoints && head -c 3000 "npt-re3/$LAST" > bad/checkpoints/mc-000000000040.h5
        if "${MPIEXEC[@]}" -n 2 "$VESICA" mc npt.cfg --set output.dir=\"bad\" "${DECOMP[@]}" \
               --restart latest > bad.log 2>&1; then
            echo "FAIL: a damaged checkpoint was read split"; fail=1
        elif [ "$(grep -c 'not a readable Monte Carlo checkpoint' bad.log)" -eq 1 ]; then
            echo "a damaged checkpoint, read split: $(grep -o 'error: .*' bad.log | cut -c1-90)"
        else
            echo "FAIL: a damaged checkpoint read split: not one error line: $(tail -2 bad.log)"; fail=1
        fi
    fi
    acc=$(tail -1 npt-1/thermo.csv | cut -d, -f11) # volume_accepted
    if [ "${acc:-0}" -gt 0 ]; then
        echo "npt: $acc volume moves accepted"
    else
        echo "FAIL: npt: no volume move accepted"; fail=1
    fi
else
    write_cfg gibbs 'ensemble = "gibbs"; box2 = [9.0, 9.0, 9.0]; particles2 = 80;'
    write_cfg gcmc 'ensemble = "gcmc"; activity = 0.1;'
    for e in gibbs gcmc; do # one species (gcmc inserts one)
        sed -i 's/species = .*/species = ( { name = "A"; } );/; s/ B = { epsilon = 0.8; sigma = 0.9; };//; s/ *B = { B = { epsilon = 0.6; sigma = 0.8; }; };//' $e.cfg
    done
    for e in gcmc gibbs; do
        run $e 1 $e-1 && run $e 2 $e-2 && same "$e on 2 ranks against 1" $e-1 $e-2
    done
    if [ ${#DECOMP[@]} -gt 0 ]; then
        # a mixture's transfers pick a species, then one of its particles by index (asked of
        # the rank that holds it); 3 ranks along x; gcmc's insertions and deletions on 3
        write_cfg gnpt 'ensemble = "gibbs_npt"; pressure = 0.05; box2 = [14.0, 9.0, 9.0]; particles2 = 120;'
        sed -i 's/^box = .*/box = [14.0, 9.0, 9.0];/; s/^particles = .*/particles = 500;/' gnpt.cfg
        run gnpt 1 gnpt-1 && run gnpt 3 gnpt-3 && same "gibbs_npt on 3 ranks against 1" gnpt-1 gnpt-3
        sed 's/^box = .*/box = [14.0, 9.0, 9.0];/' gcmc.cfg > gcmc3.cfg
        run gcmc3 1 gcmc3-1 && run gcmc3 3 gcmc3-3 && same "gcmc on 3 ranks against 1" gcmc3-1 gcmc3-3
    fi
    # a 2-rank gibbs run stopped at cycle 30, continued on 1 rank
    run gibbs 2 gibbs-re --set mc.cycles=30 &&
        run gibbs 1 gibbs-re --restart latest && same "gibbs: 2-rank checkpoint continued on 1 rank" gibbs-1 gibbs-re
    # the start from an input file (read by rank 0, sent to the others): a LAMMPS data file of
    # 343 particles of two types on a jittered lattice, on 1 and 2 ranks
    python3 - <<'EOF2'
lines = ["LAMMPS data", "", "343 atoms", "2 atom types", ""] + \
        ["0 9.0 %slo %shi" % (a, a) for a in "xyz"] + ["", "Masses", "", "1 1.0", "2 1.0", "",
                                                     "Atoms # molecular", ""]
for k in range(343):
    a, b, c = k % 7, k // 7 % 7, k // 49
    lines.append("%d 1 %d %.6f %.6f %.6f" % (k + 1, 1 + (k % 3 == 0), (a + 0.5) * 9 / 7 +
                                             0.01 * (k % 11), (b + 0.5) * 9 / 7, (c + 0.5) * 9 / 7))
open("in.data", "w").write("\n".join(lines) + "\n")
EOF2
    write_cfg input 'ensemble = "nvt";'
    sed -i '/^box = /d; s/^particles = .*/input = { format = "lammps-data"; file = "in.data"; };/' input.cfg
    run input 1 input-1 && run input 2 input-2 && same "nvt from an input file on 2 ranks against 1" input-1 input-2
    # SIGUSR1 to mpiexec (forwarded to every rank): a checkpoint and exit 3 on 2 ranks
    "${MPIEXEC[@]}" -n 2 "$VESICA" mc gcmc.cfg --set output.dir=\"sig\" --set mc.cycles=100000000 \
        > sig.log 2>&1 &
    pid=$!
    for _ in $(seq 1 300); do compgen -G "sig/checkpoints/mc-*.h5" > /dev/null && break; sleep 0.1; done
    kill -USR1 $pid
    for _ in $(seq 1 600); do kill -0 $pid 2> /dev/null || break; sleep 0.1; done
    if kill -0 $pid 2> /dev/null; then # an mpiexec that does not forward SIGUSR1 never stops
        kill -TERM $pid; sleep 10; kill -9 $pid 2> /dev/null
        echo "FAIL: SIGUSR1 on 2 ranks: still running 60 s after the signal (does this mpiexec forward SIGUSR1?)"
        exit 1
    fi
    wait $pid
    rc=$?
    if [ $rc -eq 3 ] && [ "$(grep -c 'Stopped at cycle' sig.log)" -eq 1 ]; then
        echo "SIGUSR1 on 2 ranks: exit 3, $(grep 'Stopped at cycle' sig.log | cut -d' ' -f1-4)"
    else
        echo "FAIL: SIGUSR1 on 2 ranks gave exit $rc: $(tail -3 sig.log)"; fail=1
    fi
fi
exit $fail
