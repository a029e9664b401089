#!/usr/bin/env bats
# The command line: help, version, usage errors, option placement, backends.

load helpers

setup() {
	common_setup
	two_gpus 'proc gpu=0 pid=100 used=1048576'
}

@test "--help and -h print usage on stdout and exit 0" {
	run_split "$HMN" --help
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "Usage: hmn [GLOBAL OPTIONS] [COMMAND] [OPTIONS]" ]]
	[ -z "$stderr" ]
	run "$HMN" -h
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "Usage: hmn "* ]]
}

@test "hmn help and hmn help COMMAND are --help and COMMAND --help; hmn help nosuch is a usage error" {
	run_split "$HMN" help
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[ "$output" = "$("$HMN" --help)" ]
	# The help names help itself.
	[[ "$output" == *$'\n'"  help   this help, or a command's: hmn help COMMAND"$'\n'* ]]
	for command in free ps watch run fit; do
		run_split "$HMN" help $command
		[ "$status" -eq 0 ]
		[ -z "$stderr" ]
		[ "$output" = "$("$HMN" $command --help)" ]
	done
	[ "$("$HMN" --json help ps)" = "$("$HMN" ps --help)" ]
	[ "$("$HMN" help help)" = "$("$HMN" --help)" ]
	run_split "$HMN" help nosuch
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	[ "$stderr" = "hmn: unknown command 'nosuch'
Try 'hmn --help'." ]
	run_split "$HMN" help ps extra
	[ "$status" -eq 2 ]
	[ "${stderr%%$'\n'*}" = "hmn: unexpected argument 'extra' (hmn help [COMMAND])" ]
}

@test "COMMAND --help prints that command's options" {
	run "$HMN" ps --help
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "Usage: hmn ps "* ]]
	[[ "$output" == *"--sort KEY"* ]]
	run "$HMN" free --help
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "Usage: hmn free "* ]]
}

@test "--version and -V" {
	run_split "$HMN" --version
	[ "$status" -eq 0 ]
	[[ "$output" =~ ^hmn\ [0-9]+\.[0-9]+\.[0-9]+$ ]]
	run "$HMN" -V
	[[ "$output" =~ ^hmn\ [0-9]+\.[0-9]+\.[0-9]+$ ]]
}

@test "usage errors: one specific line, the hint for the command at hand, exit 2, nothing on stdout" {
	for args in "bogus" "--bogus" "-x" "ps extra" "free --pid 1" "ps --sort" "--json=1" "ps --sort=" "--backend ''" \
		"watch --count 0" "free --need 1e9" "ps --need 1G" "--format yaml ps" "free -o" "watch --d 1s"; do
		eval "run_split \"\$HMN\" $args"
		# Every line of the note a comment, so the TAP stream stays TAP.
		sed 's/^/# /' <<<"$args: $status: $stderr" >&3
		[ "$status" -eq 2 ]
		[ -z "$output" ]
		[ "${#stderr}" -gt 0 ]
		command=$(tr ' ' '\n' <<<"$args" | grep -xE 'free|ps|watch|run' | head -1 || true)
		[ "$(sed -n 2p <<<"$stderr")" = "Try 'hmn ${command:+$command }--help'." ]
		[ "$(wc -l <<<"$stderr")" -eq 2 ]
	done
}

@test "the messages name the option as it was typed" {
	run_split "$HMN" bogus
	[ "${stderr%%$'\n'*}" = "hmn: unknown command 'bogus'" ]
	run_split "$HMN" --bogus
	[ "${stderr%%$'\n'*}" = "hmn: unknown option '--bogus'" ]
	run_split "$HMN" free --sort pid
	[ "${stderr%%$'\n'*}" = "hmn: option '--sort' is not valid for 'hmn free'" ]
	run_split "$HMN" fit -l
	[ "$stderr" = "hmn: option '-l' is not valid for 'hmn fit'
Try 'hmn fit --help'." ]
	run_split "$HMN" ps --pid
	[ "${stderr%%$'\n'*}" = "hmn: option '--pid' needs a value" ]
	run_split "$HMN" fit -lv
	[ "${stderr%%$'\n'*}" = "hmn: option '-l' is not valid for 'hmn fit'" ]
	run_split "$HMN" free -lx
	[ "${stderr%%$'\n'*}" = "hmn: unknown option '-x'" ]
	run_split "$HMN" ps --so=bogus
	[ "${stderr%%$'\n'*}" = "hmn: invalid --so 'bogus' (expected vram (default), pid, name or device)" ]
	run_split "$HMN" watch --int=0
	[ "${stderr%%$'\n'*}" = "hmn: invalid DURATION '0' for --int (e.g. 250ms, 1.5s, 2m; 1ms to 366d)" ]
	run_split "$HMN" watch --d 1s
	[ "${stderr%%$'\n'*}" = "hmn: option '--d' is ambiguous (--duration, --device)" ]
	run_split "$HMN" --json=1
	[ "${stderr%%$'\n'*}" = "hmn: option '--json' takes no value" ]
	# A global option's abbreviation means the same before and after the command's name.
	for args in "--b nvml free" "free --b nvml" "--b nvml run -- true" "run --b nvml -- true"; do
		run_split "$HMN" $args
		[ "$status" -ne 0 ]
		[[ "${stderr%%$'\n'*}" == "hmn: option '--b' is ambiguous ("*"--backend"*")" ]]
	done
	for args in "--back nvml free" "free --back nvml"; do
		run_split "$HMN" $args
		[ "$status" -ne 2 ] # taken as --backend: no usage error
	done
	run_split "$HMN" free --=x
	[ "${stderr%%$'\n'*}" = "hmn: unknown option '--=x'" ]
	run_split "$HMN" --pid 1 ps
	[ "${stderr%%$'\n'*}" = "hmn: option '--pid' must follow its command's name" ]
	run_split "$HMN" -l ps
	[ "${stderr%%$'\n'*}" = "hmn: 'ps' must come before its options" ]
}

@test "GNU getopt_long syntax: bundles, attached values, --opt=value, prefixes, --" {
	want=$("$HMN" free --long --json --device 0)
	[ "$("$HMN" free -lv --json --device 0 2>/dev/null)" = "$want" ]
	[ "$("$HMN" free -l --json --dev 0)" = "$want" ]
	[ "$("$HMN" free -l --js --dev=0)" = "$want" ]
	[ "$("$HMN" free --lo --json --device=0 --)" = "$want" ]
	[ "$("$HMN" --json free -l --device 0)" = "$want" ]
	# -oFILE, -o FILE, --output=FILE, --out FILE: the same document.
	for form in "-o$BATS_TEST_TMPDIR/a" "-o $BATS_TEST_TMPDIR/b" "--output=$BATS_TEST_TMPDIR/c" "--out $BATS_TEST_TMPDIR/d"; do
		"$HMN" free --json $form
	done
	for f in a b c d; do
		[ "$(cat "$BATS_TEST_TMPDIR/$f")" = "$("$HMN" free --json)" ]
	done
	# Operands after --: ps takes none.
	run_split "$HMN" ps -- --json
	[ "$status" -eq 2 ]
	[ "${stderr%%$'\n'*}" = "hmn: unexpected argument '--json'" ]
}

@test "hmn run's own usage errors exit 125, never taken for COMMAND's 2" {
	for args in "run" "run --bogus -- true" "run --interval 0 -- true" "run --format csv -- true" \
		"--format yaml run -- true" "run -l -- true" "run --device 0/x -- true"; do
		eval "run_split \"\$HMN\" $args"
		sed 's/^/# /' <<<"$args: $status: $stderr" >&3
		[ "$status" -eq 125 ]
		[ "$(sed -n 2p <<<"$stderr")" = "Try 'hmn run --help'." ]
	done
	run_split "$HMN" run --device 9 -- true
	[ "$status" -eq 125 ]
	[ "${stderr%%$'\n'*}" = "hmn: --device 9: no such GPU (2 found, indices from 0)" ]
	# COMMAND's own 2 stays 2.
	run_split "$HMN" run -- sh -c 'exit 2'
	[ "$status" -eq 2 ]
}

@test "global options before or after the command give the same answer" {
	a=$("$HMN" --json ps 2>/dev/null)
	b=$("$HMN" ps --json 2>/dev/null)
	c=$("$HMN" ps --pid=100 --json 2>/dev/null)
	[ "$a" = "$b" ]
	[ "$a" = "$c" ]
	[ "$("$HMN" --json free)" = "$("$HMN" free --json)" ]
	[ "$("$HMN" --json -- free)" = "$("$HMN" free --json)" ]
	[ "$("$HMN" -q ps --json)" = "$("$HMN" ps -q --json)" ]
	# Free's options without a command: hmn is hmn free.
	[ "$("$HMN" -l --json)" = "$("$HMN" free -l --json)" ]
}

@test "-q: no summary line, and free --need answers by its status alone; errors still said" {
	run_split "$HMN" ps -q
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 2 ]
	[ -z "$stderr" ]
	run_split "$HMN" free --need 1GiB -q
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	[ -z "$stderr" ]
	run_split "$HMN" --quiet free --need 100GiB --json
	[ "$status" -eq 4 ]
	[ -z "$output" ]
	[ -z "$stderr" ]
	# A FILE asked for is still written.
	run_split "$HMN" free --need 100GiB -q -o "$BATS_TEST_TMPDIR/f.json" --json
	[ "$status" -eq 4 ]
	jq -e 'length == 2' "$BATS_TEST_TMPDIR/f.json"
	# -q without --need: free's table is its answer.
	run_split "$HMN" free -q
	[ "${#lines[@]}" -eq 3 ]
	# Errors reach stderr: a GPU that is not there, no GPU at all.
	run_split "$HMN" free --need 1GiB -q --device 9
	[ "$status" -eq 2 ]
	[[ "$stderr" == "hmn: --device 9: no such GPU"* ]]
	HMN_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1 run_split "$HMN" free --need 1GiB -q
	[ "$status" -eq 3 ]
	[[ "$stderr" == "hmn: no GPU found"* ]]
}

@test "--backend: unknown name is a usage error; HMN_BACKENDS too, named; the option wins" {
	run_split "$HMN" --backend nvml,bogus
	[ "$status" -eq 2 ]
	[ "${stderr%%$'\n'*}" = "hmn: unknown backend 'bogus'" ]
	HMN_BACKENDS=bogus run_split "$HMN"
	[ "$status" -eq 2 ]
	[ "${stderr%%$'\n'*}" = "hmn: HMN_BACKENDS: unknown backend 'bogus'" ]
	HMN_BACKENDS=bogus run_split "$HMN" --backend nvml
	[ "$status" -eq 0 ]
	# What a terminal would take for an escape sequence is shown as '?'.
	HMN_BACKENDS=$'nvml,\e[2Jx' run_split "$HMN"
	[ "$status" -eq 2 ]
	[ "${stderr%%$'\n'*}" = "hmn: HMN_BACKENDS: unknown backend '?[2Jx'" ]
}

@test "a backend of another system (metal, dxgi, pdh on Linux) is a usage error naming it and the system, not 'no GPU found'" {
	[ "$(uname -s)" = Linux ] || skip "the names are Linux's"
	for name in metal dxgi pdh; do
		run_split "$HMN" --backend "nvml,$name" -v
		[ "$status" -eq 2 ]
		[ -z "$output" ]
		[[ "${stderr%%$'\n'*}" =~ ^hmn:\ backend\ \'$name\'\ does\ not\ exist\ on\ Linux\ \((macOS|Windows)\ only\)$ ]]
		[ "$(sed -n 2p <<<"$stderr")" = "Try 'hmn --help'." ]
	done
	HMN_BACKENDS=Metal run_split "$HMN" ps
	[ "$status" -eq 2 ]
	[ "$stderr" = "hmn: HMN_BACKENDS: backend 'Metal' does not exist on Linux (macOS only)
Try 'hmn ps --help'." ]
	# hmn run: its usage errors exit 125, before COMMAND runs.
	run_split "$HMN" run --backend dxgi -- touch "$BATS_TEST_TMPDIR/ran"
	[ "$status" -eq 125 ]
	[ "${stderr%%$'\n'*}" = "hmn: backend 'dxgi' does not exist on Linux (Windows only)" ]
	[ ! -e "$BATS_TEST_TMPDIR/ran" ]
	run "$HMN" --backend nvml free --json
	[ "$status" -eq 0 ]
	[ "$(jq -r '.[0].source' <<<"$output")" = "nvml" ]
}

@test "every enumerated value in any case: --format, --sort, --backend, --attention, --rows, HMN_BACKENDS; messages as typed" {
	[ "$("$HMN" free --format JSON)" = "$("$HMN" free --json)" ]
	[ "$("$HMN" free --format Csv)" = "$("$HMN" free --format csv)" ]
	[ "$("$HMN" ps --sort PID --format jSoN 2>/dev/null)" = "$("$HMN" ps --sort pid --json 2>/dev/null)" ]
	[ "$("$HMN" --backend NVML free --json)" = "$("$HMN" --backend nvml free --json)" ]
	[ "$(HMN_BACKENDS=Nvml,DRM "$HMN" free --json)" = "$("$HMN" --backend nvml free --json)" ]
	run_split "$HMN" run --format JSON -- true
	[ "$status" -eq 0 ]
	jq -e '.exit_code == 0' <<<"$(tail -1 <<<"$stderr")"
	# --attention EAGER is taken: what fails is MODEL (1), not the option (2).
	run_split "$HMN" fit "$BATS_TEST_TMPDIR/none.gguf" --memory 80GiB --attention EAGER
	[ "$status" -eq 1 ]
	run_split "$HMN" fit "$BATS_TEST_TMPDIR/none.gguf" --memory 80GiB --attention EAGERLY
	[ "$status" -eq 2 ]
	[ "${stderr%%$'\n'*}" = "hmn: invalid --attention 'EAGERLY' (expected fused (default: no s^2 scores) or eager)" ]
	# (time, the first column, aside)
	[ "$("$HMN" watch --format CSV --rows PROCESSES --count 1 2>/dev/null | cut -d, -f2-)" = \
		"$("$HMN" watch --format csv --rows processes --count 1 2>/dev/null | cut -d, -f2-)" ]
	# An unknown value is still named as it was typed.
	run_split "$HMN" ps --sort VRAMS
	[ "$status" -eq 2 ]
	[ "${stderr%%$'\n'*}" = "hmn: invalid --sort 'VRAMS' (expected vram (default), pid, name or device)" ]
	run_split "$HMN" --backend NVML,Bogus
	[ "${stderr%%$'\n'*}" = "hmn: unknown backend 'Bogus'" ]
}

@test "a malformed HMN_* variable is a usage error naming it (2; hmn run 125), never ignored; an empty one is unset" {
	for value in abc 0 -1 0.0 1e3 " 5" inf nan 0x10 86401 10s 1. .5 0.0000001; do
		HMN_TIMEOUT=$value run_split "$HMN" free
		sed 's/^/# /' <<<"HMN_TIMEOUT=[$value]: $status: $stderr" >&3
		[ "$status" -eq 2 ]
		[ -z "$output" ]
		[ "$stderr" = "hmn: HMN_TIMEOUT: '$value' is not a number of seconds (e.g. 10 or 0.5; above 0, 86400 at most)
Try 'hmn free --help'." ]
	done
	for value in 10 0.5 86400 0.000001 ""; do
		HMN_TIMEOUT=$value run_split "$HMN" free
		[ "$status" -eq 0 ]
	done
	HMN_TIMEOUT=abc run_split "$HMN" run -- touch "$BATS_TEST_TMPDIR/ran"
	[ "$status" -eq 125 ]
	[[ "$stderr" == "hmn: HMN_TIMEOUT: 'abc' is not a number of seconds"* ]]
	[ ! -e "$BATS_TEST_TMPDIR/ran" ]
	# HMN_TIMEOUT=0 once let nvidia-smi run for the default 10 s, saying so only as a warning.
	HMN_TIMEOUT=0 run_split "$HMN" --backend nvidia-smi watch --count 1
	[ "$status" -eq 2 ]
	[[ "$stderr" != *"using 10"* ]]
	# An empty variable is as unset: the default.
	for variable in HMN_BACKENDS HMN_NVIDIA_SMI HMN_PROCFS HMN_SYSFS HMN_PCI_IDS; do
		env "$variable=" "$HMN" free --json >/dev/null
	done
	# A relative library or program would be found from the current directory: refused, by name.
	cd "$BATS_TEST_TMPDIR"
	for variable in HMN_NVML_LIBRARY HMN_NVIDIA_SMI; do
		run_split env "$variable=./x" "$HMN" ps
		[ "$status" -eq 2 ]
		[ "$stderr" = "hmn: $variable: './x' is not an absolute path (nothing is loaded or run from the current directory)
Try 'hmn ps --help'." ]
	done
	HMN_BACKENDS=, run_split "$HMN"
	[ "$status" -eq 2 ]
	[ "${stderr%%$'\n'*}" = "hmn: HMN_BACKENDS: unknown backend ''" ]
}

@test "one NVML load and init per run" {
	export HMN_STUB_TRACE="$BATS_TEST_TMPDIR/trace"
	run "$HMN" ps --device 0 --json
	[ "$status" -eq 0 ]
	[ "$(grep -c '^nvmlInit' "$HMN_STUB_TRACE")" -eq 1 ]
	[ "$(grep -c '^load$' "$HMN_STUB_TRACE")" -eq 1 ]
	[ "$(grep -c '^nvmlShutdown$' "$HMN_STUB_TRACE")" -eq 1 ]
}

@test "JSON output is one compact line ending in a newline" {
	run bash -c '"$HMN" free --json | od -c | tail -2 | head -1'
	[[ "$output" == *"]  \\n"* ]]
	[ "$("$HMN" free --json | wc -l)" -eq 1 ]
}
