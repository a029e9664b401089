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

@test "--backend: unknown name is a usage error; HMN_BACKENDS too; the option wins" {
	run_split "$HMN" --backend nvml,bogus
	[ "$status" -eq 2 ]
	[ "${stderr%%$'\n'*}" = "hmn: unknown backend 'bogus'" ]
	HMN_BACKENDS=bogus run_split "$HMN"
	[ "$status" -eq 2 ]
	[ "${stderr%%$'\n'*}" = "hmn: unknown backend 'bogus' in HMN_BACKENDS" ]
	HMN_BACKENDS=bogus run_split "$HMN" --backend nvml
	[ "$status" -eq 0 ]
}

@test "--backend restricts the sources: another platform's finds no GPU (exit 3)" {
	run_split "$HMN" --backend dxgi,metal -v
	[ "$status" -eq 3 ]
	[[ "$stderr" == *"hmn: dxgi: skipped: not available on this platform"* ]]
	[[ "$stderr" == *"hmn: no GPU found: no source is available on this platform"* ]]
	run "$HMN" --backend nvml free --json
	[ "$status" -eq 0 ]
	[ "$(jq -r '.[0].source' <<<"$output")" = "nvml" ]
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
