#!/bin/bash
# Bad input to `vesica mc`: exit status 2 and one line naming the file, the line and the key,
# before any output directory exists. Usage: mc_bad_input.sh VESICA WORKDIR MPIEXEC...
set -u
VESICA=$1
WORK=$2
shift 2
MPIEXEC=("$@")
rm -rf "$WORK"
mkdir -p "$WORK"
cd "$WORK" || exit 1
fail=0

# case NAME LINE-OF-MC-GROUP EXPECTED-KEY: the mc group (line 6) replaced by $MC
expect() { # name, mc line, expected "file:line: key" prefix
    cat > "$1.cfg" <<EOF2
box = [8.0, 8.0, 8.0];
particles = 100;
seed = 1;
species = ( { name = "A"; } );
pair = ( { style = "lj"; rc = 3.0; coeff = { A = { A = { epsilon = 1.0; sigma = 1.0; }; }; }; } );
$2
output = { dir = "out-$1"; };
EOF2
    "$VESICA" mc "$1.cfg" > "$1.out" 2> "$1.err"
    local rc=$? lines
    lines=$(grep -c . "$1.err")
    if [ $rc -eq 2 ] && [ "$lines" -eq 1 ] && grep -q "^vesica: error: $1.cfg:$3" "$1.err" &&
       [ ! -e "out-$1" ]; then
        echo "ok   $1: $(cat "$1.err")"
    else
        echo "FAIL $1: exit $rc, $lines line(s): $(cat "$1.err")"
        fail=1
    fi
}

expect kT_zero      'mc = { kT = 0.0; cycles = 10; };' '6: mc.kT: expected a number > 0'
expect kT_negative  'mc = { kT = -1.0; cycles = 10; };' '6: mc.kT: expected a number > 0'
expect gibbs_one    'mc = { ensemble = "gibbs"; kT = 1.0; cycles = 10; };' '6: mc.box2: "gibbs" needs two boxes'
expect activity_0   'mc = { ensemble = "gcmc"; activity = 0.0; kT = 1.0; cycles = 10; };' '6: mc.activity: expected a number > 0'
expect activity_neg 'mc = { ensemble = "gcmc"; activity = -2.0; kT = 1.0; cycles = 10; };' '6: mc.activity: expected a number > 0'
expect pressure_0   'mc = { ensemble = "npt"; pressure = 0.0; kT = 1.0; cycles = 10; };' '6: mc.pressure: expected a number > 0'
expect pressure_no  'mc = { ensemble = "npt"; kT = 1.0; cycles = 10; };' '6: mc.pressure: required key is missing'
expect gibbs_npt_one 'mc = { ensemble = "gibbs_npt"; pressure = 1.0; kT = 1.0; cycles = 10; };' '6: mc.box2: "gibbs_npt" needs two boxes'
expect gibbs_npt_p0 'mc = { ensemble = "gibbs_npt"; pressure = 0.0; kT = 1.0; cycles = 10; box2 = [8.0, 8.0, 8.0]; particles2 = 10; };' '6: mc.pressure: expected a number > 0'
expect gibbs_npt_pno 'mc = { ensemble = "gibbs_npt"; kT = 1.0; cycles = 10; box2 = [8.0, 8.0, 8.0]; particles2 = 10; };' '6: mc.pressure: required key is missing (mc.ensemble = "gibbs_npt" needs it)'
expect gibbs_p      'mc = { ensemble = "gibbs"; pressure = 1.0; kT = 1.0; cycles = 10; box2 = [8.0, 8.0, 8.0]; particles2 = 10; };' '6: mc.pressure: not used by mc.ensemble = "gibbs"'
expect moves_sum    'mc = { ensemble = "npt"; pressure = 1.0; kT = 1.0; cycles = 10; moves = { displacement = 0.9; volume = 0.2; }; };' '6: mc.moves: expected the move probabilities to sum to 1'
expect moves_kind   'mc = { kT = 1.0; cycles = 10; moves = { displacement = 0.5; exchange = 0.5; }; };' '6: mc.moves.exchange: the nvt ensemble has no exchange move'
# mc.sweep (the checkerboard's key) and the GPU backend without it
expect sweep_name 'mc = { kT = 1.0; cycles = 10; sweep = "diagonal"; };' '6: mc.sweep: expected one of'
expect sweep_type 'mc = { kT = 1.0; cycles = 10; sweep = 2; };' '6: mc.sweep: expected'
expect gpu_seq    'mc = { kT = 1.0; cycles = 10; }; backend = "gpu";' '6: backend: the Monte Carlo engine runs on the GPU with mc.sweep = "checkerboard" only'
# mc.decomposition: a name, the sequential sweep
expect decomp_name 'mc = { kT = 1.0; cycles = 10; sweep = "checkerboard"; decomposition = "bricks"; };' '6: mc.decomposition: expected one of'
expect decomp_seq  'mc = { kT = 1.0; cycles = 10; decomposition = "domain"; };' '6: mc.decomposition: "domain" splits the checkerboard sweep'"'"'s cells'
# a build without CUDA: the checkerboard on the GPU stops with MD's line, exit 2
if "$VESICA" info 2>/dev/null | grep -q "built without CUDA"; then
    sed 's/sweep = "diagonal"/sweep = "checkerboard"/; s/^output = .*/backend = "gpu"; output = { dir = "out-nocuda"; };/' sweep_name.cfg > nocuda.cfg
    "$VESICA" mc nocuda.cfg > nocuda.out 2> nocuda.err
    rc=$?
    if [ $rc -eq 2 ] && [ "$(grep -c . nocuda.err)" -eq 1 ] && grep -q 'backend: "gpu" requested but this build has no CUDA support' nocuda.err; then
        echo "ok   no CUDA: $(cat nocuda.err)"
    else
        echo "FAIL no CUDA: exit $rc: $(cat nocuda.err)"; fail=1
    fi
fi

expect box2_small   'mc = { ensemble = "gibbs"; kT = 1.0; cycles = 10; box2 = [5.0, 8.0, 8.0]; particles2 = 10; };' '6: mc.box2: expected each side >= 2'
expect dpd_given    'mc = { kT = 1.0; cycles = 10; }; dpd = { kT = 1.0; };' '6: dpd: not used by the Monte Carlo engine'
expect gpu          'mc = { kT = 1.0; cycles = 10; }; backend = "gpu";' '6: backend: the Monte Carlo engine runs on the GPU with mc.sweep = "checkerboard" only'
# the box below twice the cut-off: reported at the box (line 1)
sed 's/box = \[8.0, 8.0, 8.0\]/box = [5.0, 8.0, 8.0]/' kT_zero.cfg | sed 's/kT = 0.0/kT = 1.0/' > small.cfg
"$VESICA" mc small.cfg 2> small.err
rc=$?
if [ $rc -eq 2 ] && grep -q "^vesica: error: small.cfg:1: box: expected each side >= 2" small.err; then
    echo "ok   box_small: $(cat small.err)"
else
    echo "FAIL box_small: exit $rc: $(cat small.err)"; fail=1
fi
# the engines refuse each other's configurations
sed 's/kT = 0.0/kT = 1.0/' kT_zero.cfg > good.cfg
"$VESICA" run good.cfg 2> run.err
rc=$?
if [ $rc -eq 2 ] && grep -q "run it with \`vesica mc\`" run.err; then
    echo "ok   vesica run refuses an mc configuration"
else
    echo "FAIL vesica run of an mc configuration: exit $rc: $(cat run.err)"; fail=1
fi
sed 's/^mc = .*/dpd = { a = { A = { A = 0.0; }; }; gamma = 1.0; kT = 1.0; }; integrator = { dt = 0.005; steps = 10; };/' good.cfg > md.cfg
"$VESICA" mc md.cfg 2> md.err
rc=$?
if [ $rc -eq 2 ] && grep -q "no mc group" md.err; then
    echo "ok   vesica mc refuses a configuration without an mc group"
else
    echo "FAIL vesica mc of an MD configuration: exit $rc: $(cat md.err)"; fail=1
fi
# more than one rank (mc_ranks.sh runs them): one line, exit 2, for the sequential sweep,
# a checkerboard too coarse for the ranks (8 / 3 gives 2 cells per axis: one rank's worth) and,
# on a machine without a usable GPU, the GPU backend
ranks() { # name, ranks, expected phrase, vesica arguments...
    local name=$1 n=$2 phrase=$3 rc
    shift 3
    "${MPIEXEC[@]}" -n "$n" "$VESICA" mc "$@" > "$name.out" 2> "$name.err"
    rc=$?
    if [ $rc -eq 2 ] && [ "$(grep -c 'vesica: error' "$name.err")" -eq 1 ] &&
       grep -q "^vesica: error: $phrase" "$name.err"; then
        echo "ok   $name: $(grep 'vesica: error' "$name.err")"
    else
        echo "FAIL $name: exit $rc: $(cat "$name.err")"; fail=1
    fi
}
ranks ranks_sequential 2 "mc.sweep: the sequential sweep runs on one rank" good.cfg
ranks ranks_coarse 2 "mc: 2 ranks are too many for the checkerboard grid of 2 x 2 x 2" \
      good.cfg --set mc.sweep=\"checkerboard\"
if ! "$VESICA" info 2>/dev/null | grep -q '^GPUs visible: [1-9]'; then
    ranks ranks_gpu 2 'backend: "gpu" requested but' good.cfg \
          --set mc.sweep=\"checkerboard\" --set backend=\"gpu\"
fi
exit $fail
