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

@test "usage errors: one specific line, the hint, exit 2, nothing on stdout" {
	for args in "bogus" "--bogus" "-x" "ps extra" "free --pid 1" "ps --sort" "--json=1" "ps --sort=" "--backend ''"; do
		eval "run_split \"\$HMN\" $args"
		# Every line of the note a comment, so the TAP stream stays TAP.
		sed 's/^/# /' <<<"$args: $status: $stderr" >&3
		[ "$status" -eq 2 ]
		[ -z "$output" ]
		[ "${#stderr}" -gt 0 ]
		[ "$(sed -n 2p <<<"$stderr")" = "Try 'hmn --help'." ]
		[ "$(wc -l <<<"$stderr")" -eq 2 ]
	done
}

@test "the messages name the problem" {
	run_split "$HMN" bogus
	[ "${stderr%%$'\n'*}" = "hmn: unknown command 'bogus'" ]
	run_split "$HMN" --bogus
	[ "${stderr%%$'\n'*}" = "hmn: unknown option '--bogus'" ]
	run_split "$HMN" free --sort pid
	[ "${stderr%%$'\n'*}" = "hmn: option '--sort' is not valid for 'hmn free'" ]
	run_split "$HMN" ps --pid
	[ "${stderr%%$'\n'*}" = "hmn: option '--pid' needs a value" ]
}

@test "global options before or after the command give the same answer" {
	a=$("$HMN" --json ps 2>/dev/null)
	b=$("$HMN" ps --json 2>/dev/null)
	c=$("$HMN" ps --pid=100 --json 2>/dev/null)
	[ "$a" = "$b" ]
	[ "$a" = "$c" ]
	[ "$("$HMN" --json free)" = "$("$HMN" free --json)" ]
	[ "$("$HMN" --json -- free)" = "$("$HMN" free --json)" ]
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
