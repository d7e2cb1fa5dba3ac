#!/usr/bin/env bash
# bad_input.sh BINARY TMPDIR [LAUNCHER...]
#
# Command-line test of the bad-input contract: `vesica run CONFIG [--set ...]` with a bad
# configuration or command line must exit with status 2, print exactly one line on stderr
# naming the file, line and key (`vesica: error: FILE:LINE: KEY: ...`), and create nothing,
# above all not its output directory. Each case writes its configuration into TMPDIR from a
# here-doc, with output.dir pointing inside TMPDIR, and runs from TMPDIR so the file names in
# the messages are short and predictable.
#
# With LAUNCHER (e.g. `mpiexec --oversubscribe -n 2`) a representative subset of the cases
# (MPI_SUBSET below; each launch costs seconds) runs under it: the status must still be 2 and
# exactly one `vesica:` line may appear (rank 0 reports, the ranks exit together); the
# launcher's own notices on stderr are allowed then.
#
# A control case first runs a good configuration for 0 steps and checks that it does create
# its output directory, so "not created" below is a meaningful check.
set -u

if [ $# -lt 2 ]; then
    echo "usage: $0 BINARY TMPDIR [LAUNCHER...]" >&2
    exit 2
fi
BIN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
TMP=$2
shift 2
LAUNCH=("$@")
if [ ! -x "$BIN" ]; then
    echo "$0: $BIN is not an executable" >&2
    exit 1
fi
rm -rf "$TMP" && mkdir -p "$TMP" && cd "$TMP" || exit 1

failures=0
cases=0
MPI_SUBSET=" control unknown_key asymmetric_a set_bad_value set_output_dir nonexistent no_config "

# skipped NAME: true when a launcher is given and NAME is not in MPI_SUBSET.
skipped() {
    [ ${#LAUNCH[@]} -gt 0 ] && [[ "$MPI_SUBSET" != *" $1 "* ]]
}

# run_case NAME ARGS...: runs the binary, leaving NAME.status, NAME.out, NAME.err.
run_case() {
    local name=$1
    shift
    "${LAUNCH[@]}" "$BIN" "$@" >"$name.out" 2>"$name.err" </dev/null
    echo $? >"$name.status"
}

# Files in TMPDIR, other than the harness's own records of each case.
listing() {
    ls -A | grep -Ev '\.(out|err|status)$' | sort
}

# expect_bad NAME LINES REGEX ARGS...: status 2; stderr has exactly LINES lines (in launcher
# mode: exactly LINES lines that start with "vesica:" or "Usage:"), the first of which matches
# REGEX; nothing new appears in TMPDIR (the output directory is out-NAME).
expect_bad() {
    local name=$1 lines=$2 regex=$3
    shift 3
    skipped "$name" && return 0
    cases=$((cases + 1))
    local before after status got first problems=""
    before=$(listing)
    run_case "$name" "$@"
    after=$(listing)
    status=$(cat "$name.status")
    if [ ${#LAUNCH[@]} -eq 0 ]; then
        got=$(wc -l <"$name.err")
        first=$(head -n 1 "$name.err")
    else
        got=$(grep -Ec '^(vesica:|Usage:)' "$name.err")
        first=$(grep -E '^vesica:' "$name.err" | head -n 1)
    fi
    [ "$status" = 2 ] || problems+="exit status $status (expected 2); "
    [ "$got" -eq "$lines" ] || problems+="$got lines on stderr (expected $lines); "
    printf '%s\n' "$first" | grep -Eq -- "$regex" ||
        problems+="first stderr line does not match /$regex/; "
    [ ! -e "out-$name" ] || problems+="output directory out-$name was created; "
    [ "$before" = "$after" ] ||
        problems+="files appeared: $(comm -13 <(echo "$before") <(echo "$after") | tr '\n' ' '); "
    if [ -n "$problems" ]; then
        failures=$((failures + 1))
        echo "FAIL $name: $problems"
        echo "  command: ${LAUNCH[*]} vesica $*"
        sed 's/^/  stderr: /' "$name.err"
    else
        echo "ok   $name: $first"
    fi
}

# bad NAME REGEX [ARGS...] < CONFIG: writes NAME.cfg (with @OUT@ -> out-NAME) and expects
# `vesica run NAME.cfg ARGS...` to fail with one line matching REGEX.
bad() {
    local name=$1 regex=$2
    shift 2
    sed "s|@OUT@|out-$name|" >"$name.cfg"
    expect_bad "$name" 1 "$regex" run "$name.cfg" "$@"
}

# A valid one-species configuration, for the --set cases and the control.
good_config() {
    sed "s|@OUT@|out-$1|" <<'EOF'
box = [8.0, 8.0, 8.0];
density = 3.0;
species = ( { name = "W"; } );
dpd = { a = { W = { W = 25.0; }; }; gamma = 4.5; kT = 1.0; };
integrator = { dt = 0.04; steps = 10; };
output = { dir = "@OUT@"; };
EOF
}

# ---- control: a good configuration runs and creates its output directory ----------------
cases=$((cases + 1))
good_config control >control.cfg
run_case control run control.cfg --set integrator.steps=0 --set backend=cpu
if [ "$(cat control.status)" = 0 ] && [ -d out-control ]; then
    echo "ok   control: a good configuration exits 0 and creates out-control"
    rm -rf out-control
else
    failures=$((failures + 1))
    echo "FAIL control: status $(cat control.status), out-control exists: $([ -d out-control ] && echo yes || echo no)"
    sed 's/^/  stderr: /' control.err
fi

# ---- configuration errors -----------------------------------------------------------------
bad unknown_key '^vesica: error: unknown_key\.cfg:4: dpd\.gama: unknown key \(did you mean dpd\.gamma\?\)$' <<'EOF'
box = [8.0, 8.0, 8.0];
density = 3.0;
species = ( { name = "W"; } );
dpd = { a = { W = { W = 25.0; }; }; gama = 4.5; kT = 1.0; };
integrator = { dt = 0.04; steps = 10; };
output = { dir = "@OUT@"; };
EOF

bad wrong_type '^vesica: error: wrong_type\.cfg:4: dpd\.kT: expected a number >= 0 \(got a string "1"\)$' <<'EOF'
box = [8.0, 8.0, 8.0];
density = 3.0;
species = ( { name = "W"; } );
dpd = { a = { W = { W = 25.0; }; }; gamma = 4.5; kT = "1"; };
integrator = { dt = 0.04; steps = 10; };
output = { dir = "@OUT@"; };
EOF

bad float_for_integer '^vesica: error: float_for_integer\.cfg:5: integrator\.steps: expected an integer >= 0 \(got 10\.0\)$' <<'EOF'
box = [8.0, 8.0, 8.0];
density = 3.0;
species = ( { name = "W"; } );
dpd = { a = { W = { W = 25.0; }; }; gamma = 4.5; kT = 1.0; };
integrator = { dt = 0.04; steps = 10.0; };
output = { dir = "@OUT@"; };
EOF

bad missing_key '^vesica: error: missing_key\.cfg:5: integrator\.steps: required key is missing$' <<'EOF'
box = [8.0, 8.0, 8.0];
density = 3.0;
species = ( { name = "W"; } );
dpd = { a = { W = { W = 25.0; }; }; gamma = 4.5; kT = 1.0; };
integrator = { dt = 0.04; };
output = { dir = "@OUT@"; };
EOF

bad dt_zero '^vesica: error: dt_zero\.cfg:5: integrator\.dt: expected a number > 0 \(got 0\.0\)$' <<'EOF'
box = [8.0, 8.0, 8.0];
density = 3.0;
species = ( { name = "W"; } );
dpd = { a = { W = { W = 25.0; }; }; gamma = 4.5; kT = 1.0; };
integrator = { dt = 0.0; steps = 10; };
output = { dir = "@OUT@"; };
EOF

bad box_below_2rc '^vesica: error: box_below_2rc\.cfg:1: box: expected each side >= 2 \* dpd\.rc = 3\.0 \(got \[8\.0, 8\.0, 2\.5\]\)$' <<'EOF'
box = [8.0, 8.0, 2.5];
density = 3.0;
species = ( { name = "W"; } );
dpd = { a = { W = { W = 25.0; }; }; gamma = 4.5; kT = 1.0; rc = 1.5; };
integrator = { dt = 0.04; steps = 10; };
output = { dir = "@OUT@"; };
EOF

bad density_negative '^vesica: error: density_negative\.cfg:2: density: expected a number > 0 \(got -3\.0\)$' <<'EOF'
box = [8.0, 8.0, 8.0];
density = -3.0;
species = ( { name = "W"; } );
dpd = { a = { W = { W = 25.0; }; }; gamma = 4.5; kT = 1.0; };
integrator = { dt = 0.04; steps = 10; };
output = { dir = "@OUT@"; };
EOF

bad density_and_particles '^vesica: error: density_and_particles\.cfg:3: particles: expected only one of density and particles \(got both\)$' <<'EOF'
box = [8.0, 8.0, 8.0];
density = 3.0;
particles = 1536;
species = ( { name = "W"; } );
dpd = { a = { W = { W = 25.0; }; }; gamma = 4.5; kT = 1.0; };
integrator = { dt = 0.04; steps = 10; };
output = { dir = "@OUT@"; };
EOF

bad asymmetric_a '^vesica: error: asymmetric_a\.cfg:6: dpd\.a\.B\.A: expected 30\.0, the value of dpd\.a\.A\.B, since a_ij is symmetric \(got 35\.0\)$' <<'EOF'
box = [8.0, 8.0, 8.0];
density = 3.0;
species = ( { name = "A"; fraction = 0.5; },
            { name = "B"; fraction = 0.5; } );
dpd = { a = { A = { A = 25.0; B = 30.0; };
              B = { A = 35.0; B = 25.0; }; };
        gamma = 4.5; kT = 1.0; };
integrator = { dt = 0.04; steps = 10; };
output = { dir = "@OUT@"; };
EOF

bad incomplete_a '^vesica: error: incomplete_a\.cfg:6: dpd\.a\.B\.B: required key is missing' <<'EOF'
box = [8.0, 8.0, 8.0];
density = 3.0;
species = ( { name = "A"; fraction = 0.5; },
            { name = "B"; fraction = 0.5; } );
dpd = { a = { A = { A = 25.0; B = 30.0; };
              B = { A = 30.0; }; };
        gamma = 4.5; kT = 1.0; };
integrator = { dt = 0.04; steps = 10; };
output = { dir = "@OUT@"; };
EOF

bad fractions '^vesica: error: fractions\.cfg:3: species: expected fractions summing to 1 within 1e-9 \(got a sum of 0\.9\)$' <<'EOF'
box = [8.0, 8.0, 8.0];
density = 3.0;
species = ( { name = "A"; fraction = 0.5; },
            { name = "B"; fraction = 0.4; } );
dpd = { a = { A = { A = 25.0; B = 30.0; };
              B = { A = 30.0; B = 25.0; }; };
        gamma = 4.5; kT = 1.0; };
integrator = { dt = 0.04; steps = 10; };
output = { dir = "@OUT@"; };
EOF

bad duplicate_species '^vesica: error: duplicate_species\.cfg:4: species\.\[1\]\.name: expected a name no other species uses \(got "A", as species\.\[0\]\.name\)$' <<'EOF'
box = [8.0, 8.0, 8.0];
density = 3.0;
species = ( { name = "A"; fraction = 0.5; },
            { name = "A"; fraction = 0.5; } );
dpd = { a = { A = { A = 25.0; }; }; gamma = 4.5; kT = 1.0; };
integrator = { dt = 0.04; steps = 10; };
output = { dir = "@OUT@"; };
EOF

bad bad_enum '^vesica: error: bad_enum\.cfg:7: backend: expected one of "auto", "cpu", "gpu" \(got "cuda"\)$' <<'EOF'
box = [8.0, 8.0, 8.0];
density = 3.0;
species = ( { name = "W"; } );
dpd = { a = { W = { W = 25.0; }; }; gamma = 4.5; kT = 1.0; };
integrator = { dt = 0.04; steps = 10; };
output = { dir = "@OUT@"; };
backend = "cuda";
EOF

bad syntax_error '^vesica: error: syntax_error\.cfg:4: syntax error \(syntax error\)$' <<'EOF'
box = [8.0, 8.0, 8.0];
density = 3.0;
species = ( { name = "W"; } );
dpd = { a = { W = { W = 25.0; }; }; gamma 4.5; kT = 1.0; };
integrator = { dt = 0.04; steps = 10; };
output = { dir = "@OUT@"; };
EOF

bad include '^vesica: error: include\.cfg:2: syntax error \(@include is not supported' <<'EOF'
box = [8.0, 8.0, 8.0];
@include "other.cfg"
EOF

# issue 46 item 6: messages that name the cause
bad unquoted_string '^vesica: error: unquoted_string\.cfg:6: syntax error \(cpu is not a value: a string needs double quotes, "cpu"\)$' <<'EOF'
box = [8.0, 8.0, 8.0];
density = 3.0;
species = ( { name = "W"; } );
dpd = { a = { W = { W = 25.0; }; }; gamma = 4.5; kT = 1.0; };
integrator = { dt = 0.04; steps = 10; };
backend = cpu;
output = { dir = "@OUT@"; };
EOF
bad tau_below_dt '^vesica: error: --set integrator\.tau=1e-6: integrator\.tau: expected a time constant from integrator\.dt = 0\.04 to 1e9 dt \(got 1e-06\): the thermostat cannot follow' --set 'integrator.kind="berendsen"' --set integrator.tau=1e-6 < <(good_config tau_below_dt)
bad tau_p_huge '^vesica: error: --set integrator\.tau_p=1e300: integrator\.tau_p: expected a time constant from integrator\.dt = 0\.04 to 1e9 dt \(got 1e\+300\): the barostat' --set 'integrator.kind="npt"' --set dpd.gamma=0 --set integrator.tau=1.0 --set integrator.pressure=23.0 --set integrator.tau_p=1e300 < <(good_config tau_p_huge)
bad input_missing '^vesica: error: input\.file: made/by/a/script\.h5: no such file \(relative to the current directory\); an input file is made beforehand' <<'EOF'
input = { format = "h5md"; file = "made/by/a/script.h5"; };
species = ( { name = "W"; } );
dpd = { a = { W = { W = 25.0; }; }; gamma = 4.5; kT = 1.0; };
integrator = { dt = 0.04; steps = 10; };
output = { dir = "@OUT@"; };
EOF
if [ -d /proc/self ]; then # a file system without room or blocks: the cause, not "0 MiB free"
    bad output_dir_proc '^vesica: error: output\.dir: /proc/vesica_bad_input: cannot create directory: ' --set output.dir=/proc/vesica_bad_input < <(good_config output_dir_proc)
fi

# ---- --set errors on a good configuration ---------------------------------------------------
bad set_bad_value '^vesica: error: --set dpd\.gamma=abc: dpd\.gamma: expected a number >= 0 or a species matrix \{ NAME = \{ NAME = number; \}; \} \(got a string "abc"\)$' --set dpd.gamma=abc < <(good_config set_bad_value)
bad set_unknown_key '^vesica: error: --set integrator\.stpes=5: integrator\.stpes: unknown key \(did you mean integrator\.steps\?\)$' --set integrator.stpes=5 < <(good_config set_unknown_key)
bad set_no_equals "^vesica: error: --set dpd\.gamma: expected key=value \(got no '='\)$" --set dpd.gamma < <(good_config set_no_equals)
bad set_breaks_box '^vesica: error: --set dpd\.rc=5: box: expected each side >= 2 \* dpd\.rc = 10\.0' --set dpd.rc=5 < <(good_config set_breaks_box)
bad set_second_bad '^vesica: error: --set integrator\.dt=-0\.1: integrator\.dt: expected a number > 0 \(got -0\.1\)$' --set integrator.steps=5 --set integrator.dt=-0.1 < <(good_config set_second_bad)
bad set_output_dir '^vesica: error: --set dpd\.kT=-1: dpd\.kT: expected a number >= 0 \(got -1\)$' --set output.dir=out-set_output_dir/inner --set dpd.kT=-1 < <(good_config set_output_dir)

# ---- flow and profiles (issue 26): the line, the key, what was expected ----------------------
bad flow_unknown_species '^vesica: error: flow_unknown_species\.cfg:6: flow\.species: expected "all", "W" \(got "Q"\)$' <<'EOF'
box = [8.0, 8.0, 8.0];
density = 3.0;
species = ( { name = "W"; } );
dpd = { a = { W = { W = 25.0; }; }; gamma = 4.5; kT = 1.0; };
flow = { kind = "double_poiseuille"; g = 0.1;
         species = "Q"; };
integrator = { dt = 0.04; steps = 10; };
output = { dir = "@OUT@"; };
EOF
bad profile_axis '^vesica: error: profile_axis\.cfg:6: profiles\.axis: expected one of "none", "x", "y", "z" \(got "w"' <<'EOF'
box = [8.0, 8.0, 8.0];
density = 3.0;
species = ( { name = "W"; } );
dpd = { a = { W = { W = 25.0; }; }; gamma = 4.5; kT = 1.0; };
integrator = { dt = 0.04; steps = 10; };
profiles = { axis = "w"; };
output = { dir = "@OUT@"; };
EOF
bad set_profile_bins '^vesica: error: --set profiles\.bins=0: profiles\.bins: expected an integer in \[1, 1048576\] \(got 0\)$' --set profiles.axis=x --set profiles.bins=0 < <(good_config set_profile_bins)
bad set_profile_window '^vesica: error: --set profiles\.window=20: profiles\.window: expected at most integrator\.steps = 10 steps \(got 20\)$' --set profiles.axis=x --set profiles.window=20 < <(good_config set_profile_window)
bad set_profile_time '^vesica: error: --set profiles\.times=\[0\.3\]: profiles\.times\.\[0\]: expected a window ending within the run, a time <= steps \* dt - half_width = -0\.1 \(got 0\.3\)$' --set profiles.axis=x --set profiles.window=0 --set 'profiles.times=[0.3]' < <(good_config set_profile_time)
bad set_flow_across '^vesica: error: --set flow\.across=z: flow\.across: expected an axis other than flow\.axis \(got "z" for both\)$' --set flow.kind=double_poiseuille --set flow.across=z < <(good_config set_flow_across)

# ---- files and command line -----------------------------------------------------------------
expect_bad nonexistent 1 '^vesica: error: nonexistent\.cfg: cannot read: No such file or directory$' run nonexistent.cfg
# ---- molecules ---------------------------------------------------------------------------
mol_config() {
    sed "s|@OUT@|out-$1|" <<'EOF2'
box = [8.0, 8.0, 8.0];
density = 3.0;
species = ( { name = "A"; fraction = 0.0; }, { name = "S"; fraction = 1.0; } );
dpd = { a = { A = { A = 25.0; S = 25.0; }; S = { A = 25.0; S = 25.0; }; }; gamma = 4.5; kT = 1.0; };
molecules = ( { name = "chain"; sequence = "AAAA"; count = 10;
                bond = { style = "harmonic"; K = 80.0; r0 = 0.38; }; } );
integrator = { dt = 0.01; steps = 10; };
output = { dir = "@OUT@"; };
EOF2
}
bad mol_unknown_letter "^vesica: error: .*molecules\.\[0\]\.sequence: expected one-letter species names \(got 'X' at position 2" --set 'molecules.[0].sequence="AXA"' < <(mol_config mol_unknown_letter)
bad mol_no_r0 '^vesica: error: .*molecules\.\[0\]\.bond\.r0: required key is missing \(bond style harmonic\)$' --set 'molecules.[0].bond.style="harmonic"' --set 'molecules.[0].bond.R0=1.5' < <(mol_config mol_no_r0 | sed 's/ r0 = 0.38;//')
bad mol_too_many '^vesica: error: .*molecules: expected at most the 1536 particles of the system in molecules' --set 'molecules.[0].count=1000' < <(mol_config mol_too_many)
bad mol_reach '^vesica: error: .*bonded\.reach: expected more than the bond length 0\.38 of molecules\.\[0\]' --set 'bonded.reach=0.3' < <(mol_config mol_reach)
bad mol_reach_half_box '^vesica: error: bonded\.reach: 4 is not below half the shortest box edge \(4\): a bond that long would be measured through the nearest periodic image' --set 'bonded.reach=4.0' < <(mol_config mol_reach_half_box)
bad mol_count_and_fraction '^vesica: error: .*expected only one of molecules\.\[0\]\.count and molecules\.\[0\]\.bead_fraction' < <(mol_config mol_count_and_fraction | sed 's/count = 10;/count = 10; bead_fraction = 0.1;/')
bad mol_gpu '^vesica: error: .*backend: "gpu"' --set 'backend="gpu"' < <(mol_config mol_gpu)

mkdir -p a_directory.cfg
expect_bad directory 1 '^vesica: error: a_directory\.cfg: cannot read: Is a directory$' run a_directory.cfg
expect_bad no_config 2 '^vesica: error: run: missing CONFIG file$' run
skipped no_config || grep -q '^Usage: vesica run CONFIG' no_config.err || {
    failures=$((failures + 1))
    echo "FAIL no_config: no usage line on stderr"
}
expect_bad no_command 2 '^vesica: error: missing command$'
expect_bad unknown_command 2 "^vesica: error: unknown command 'frobnicate'$" frobnicate
good_config unknown_option >unknown_option.cfg
expect_bad unknown_option 2 "^vesica: error: run: unknown option '--bogus'$" run unknown_option.cfg --bogus
expect_bad set_without_argument 2 '^vesica: error: --set needs a key=value argument$' run unknown_option.cfg --set

echo "$((cases - failures)) of $cases cases passed"
[ "$failures" -eq 0 ]
