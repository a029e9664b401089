#!/usr/bin/env bats
# hmn watch: samples again and again from one context, as JSON Lines, as
# appended tables, and as a view redrawn in place on a terminal (tmux).

load helpers

setup() {
	common_setup
	export HMN_STUB_WATCH=1
	two_gpus 'proc gpu=0 pid=4242 used=2147483648 list=compute'
	fake_process 4242 0 /usr/bin/python3.11
}

teardown() {
	for pid in ${started_pids:-}; do
		kill "$pid" 2>/dev/null || true
	done
	[ -z "${tmux_socket:-}" ] || tmux -L "$tmux_socket" kill-server 2>/dev/null || true
}

# replace LINE...: a new scenario, swapped in whole while hmn runs.
replace() {
	printf '%s\n' "$@" >"$HMN_STUB_SCENARIO.new"
	mv "$HMN_STUB_SCENARIO.new" "$HMN_STUB_SCENARIO"
}

h100='gpu name="NVIDIA H100 80GB HBM3" uuid=GPU-aaaaaaaa-1111-2222-3333-444444444444 pci=00000000:1B:00.0 total=85520809984 reserved=502267904 used=20780679168'
l40s='gpu name="NVIDIA L40S" uuid=GPU-bbbbbbbb-1111-2222-3333-444444444444 pci=00000000:3B:00.0 total=48305799168 reserved=0 used=1048576'

@test "watch --count 3 --interval 100ms --json: three JSON lines, time and elapsed_ms rising" {
	run_split "$HMN" watch --count 3 --interval 100ms --json
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 3 ]
	for line in "${lines[@]}"; do
		jq -e '(.time | test("^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$")) and
			(.gpus | length) == 2 and .processes[0].pid == 4242 and (.gpus[0] | has("unified_memory"))' <<<"$line"
	done
	[ "$(jq -s -c '[.[].elapsed_ms] | [.[0] < .[1], .[1] < .[2], .[2] >= 180]' <<<"$output")" = '[true,true,true]' ]
	[ "$(jq -s -c '[.[].time] | [.[0] < .[1], .[1] < .[2]]' <<<"$output")" = '[true,true]' ]
	[[ "$stderr" == "hmn: 3 samples over 0.2 s. Peak used: GPU 0 19.4 GiB, GPU 1 1 MiB. Highest process peaks: 4242 python3.11 2.0 GiB (GPU 0)." ]]
}

@test "watch --duration ends by itself" {
	start=$(date +%s%N)
	run_split "$HMN" watch --duration 500ms --interval 100ms --json
	elapsed=$((($(date +%s%N) - start) / 1000000))
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 5 ]
	[ "$elapsed" -ge 450 ] && [ "$elapsed" -lt 3000 ]
}

@test "watch: SIGINT ends it after the sample, exit 0, with the summary" {
	"$HMN" watch --interval 100ms --json >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" &
	pid=$!
	started_pids=$pid
	sleep 0.5
	kill -INT "$pid"
	wait "$pid" && status=0 || status=$?
	[ "$status" -eq 0 ]
	[ "$(wc -l <"$BATS_TEST_TMPDIR/out")" -ge 3 ]
	jq -e . "$BATS_TEST_TMPDIR/out" >/dev/null # every line whole
	grep -q '^hmn: [0-9]* samples over 0\.[0-9] s\. Peak used: GPU 0 19\.4 GiB' "$BATS_TEST_TMPDIR/err"
	# SIGTERM too.
	"$HMN" watch --interval 100ms --json >/dev/null 2>"$BATS_TEST_TMPDIR/err" &
	pid=$!
	sleep 0.3
	kill -TERM "$pid"
	wait "$pid" && status=0 || status=$?
	[ "$status" -eq 0 ]
	grep -q '^hmn: [0-9]* samples over' "$BATS_TEST_TMPDIR/err"
}

@test "watch: a process that starts mid-run appears, one that exits is gone" {
	"$HMN" watch --interval 100ms --count 12 --json >"$BATS_TEST_TMPDIR/out" 2>/dev/null &
	pid=$!
	started_pids=$pid
	sleep 0.35
	replace "$h100" "$l40s" 'proc gpu=0 pid=4242 used=2147483648 list=compute' 'proc gpu=1 pid=5151 used=1048576 list=graphics'
	sleep 0.4
	replace "$h100" "$l40s" 'proc gpu=1 pid=5151 used=1048576 list=graphics'
	wait "$pid"
	run jq -c '[.processes[].pid]' "$BATS_TEST_TMPDIR/out"
	[ "${lines[0]}" = "[4242]" ]
	printf '%s\n' "${lines[@]}" | grep -qx '\[4242,5151\]'
	[ "${lines[11]}" = "[5151]" ]
}

@test "watch: a GPU lost mid-run is said once; the other keeps coming" {
	"$HMN" watch --interval 100ms --count 8 --json >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" &
	pid=$!
	started_pids=$pid
	sleep 0.25
	replace "$h100" "${l40s} error=15" 'proc gpu=0 pid=4242 used=2147483648 list=compute'
	wait "$pid"
	[ "$(jq -c '[.gpus[].index]' "$BATS_TEST_TMPDIR/out" | tail -1)" = "[0]" ]
	[ "$(jq -c '[.gpus[].index]' "$BATS_TEST_TMPDIR/out" | head -1)" = "[0,1]" ]
	[ "$(grep -c 'GPU 1: GPU is lost (nvml)' "$BATS_TEST_TMPDIR/err")" -eq 1 ]
}

@test "watch: one NVML init for the run, each GPU's MIG mode probed once" {
	export HMN_STUB_TRACE="$BATS_TEST_TMPDIR/trace"
	run_split "$HMN" watch --count 5 --interval 50ms --json
	[ "$status" -eq 0 ]
	[ "$(grep -c '^nvmlInit' "$HMN_STUB_TRACE")" -eq 1 ]
	grep -qx 'calls nvmlDeviceGetMigMode 2' "$HMN_STUB_TRACE"
	grep -qx 'calls nvmlDeviceGetName 2' "$HMN_STUB_TRACE"
	# A memory query per GPU per sample, and the first to learn each one's total for ps.
	grep -qx 'calls nvmlDeviceGetMemoryInfo_v2 12' "$HMN_STUB_TRACE"
}

@test "watch, not on a terminal: each sample appended, a # TIME line, the two tables, a blank line" {
	run_split "$HMN" watch --count 2 --interval 100ms
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" =~ ^#\ [0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z$ ]]
	[ "${lines[1]}" = "GPU  NAME                       USED      FREE     TOTAL  RESERVED  SOURCE" ]
	[ "$(grep -c '^# ' <<<"$output")" -eq 2 ]
	[ "$(grep -c '^ PID  USER  TYPE' <<<"$output")" -eq 2 ]
	[ "$(sed -n 5p <<<"$output")" = "" ] # between the tables
	[ "$(sed -n 8p <<<"$output")" = "" ] # after the sample
	! grep -q $'\033' <<<"$output" || false
}

@test "watch: usage errors" {
	for d in 0 -1s abc 10x 1e3 ''; do
		run_split "$HMN" watch --interval "$d"
		[ "$status" -eq 2 ]
		[[ "${stderr%%$'\n'*}" == "hmn: invalid DURATION '$d' for --interval (e.g. 250ms, 1.5s, 2m)" ]]
	done
	run_split "$HMN" watch --count 0
	[ "$status" -eq 2 ]
	run_split "$HMN" watch --duration 0s
	[ "$status" -eq 2 ]
	run_split "$HMN" watch --format csv
	[ "$status" -eq 2 ]
	[ "${stderr%%$'\n'*}" = "hmn: hmn watch prints --format table or json only" ]
}

@test "watch on a terminal (tmux): redrawn in place, cut to the window, left on screen at the end" {
	command -v tmux >/dev/null || skip "tmux is not installed"
	tmux_socket="hmn-watch-$$"
	tmux -L "$tmux_socket" -f /dev/null new-session -d -x 60 -y 20 -s w \
		"env HMN_NVML_LIBRARY='$HMN_NVML_LIBRARY' HMN_STUB_SCENARIO='$HMN_STUB_SCENARIO' HMN_STUB_WATCH=1 \
		 HMN_PROCFS='$HMN_PROCFS' HMN_SYSFS='$HMN_SYSFS' HMN_NVIDIA_SMI='$HMN_NVIDIA_SMI' \
		 HMN_FAKE_SMI_DIR='$HMN_FAKE_SMI_DIR' '$HMN' watch --interval 200ms 2>'$BATS_TEST_TMPDIR/err'; sleep 30"
	sleep 1
	first=$(tmux -L "$tmux_socket" capture-pane -p -t w)
	[[ "${first%%$'\n'*}" == "hmn watch: every 200 ms  "* ]]
	[ "$(grep -c '^GPU  NAME' <<<"$first")" -eq 1 ]
	[ "$(grep -c '^ PID  USER' <<<"$first")" -eq 1 ]
	grep -q '^4242  root  C     2.0 GiB       -    0  python3.11$' <<<"$first"
	# 60 columns: the GPU table's long lines are cut, never wrapped onto the next line.
	awk 'length($0) > 60 { exit 1 }' <<<"$first"
	grep -q '^  0  NVIDIA H100 80GB HBM3  19.4 GiB  59.8 GiB  79.6 GiB   4$' <<<"$first"
	replace "$h100" "$l40s" 'proc gpu=0 pid=4242 used=2147483648 list=compute' 'proc gpu=1 pid=777 used=1048576 list=graphics'
	sleep 0.8
	second=$(tmux -L "$tmux_socket" capture-pane -p -t w)
	[ "$second" != "$first" ]
	[ "$(grep -c '^GPU  NAME' <<<"$second")" -eq 1 ] # in place: not appended
	grep -q '^ 777  ?     G       1 MiB       -    1  ?$' <<<"$second"
	# A shorter frame again: nothing of the longer one is left on screen.
	replace "$h100" "$l40s" 'proc gpu=0 pid=4242 used=2147483648 list=compute'
	sleep 0.8
	third=$(tmux -L "$tmux_socket" capture-pane -p -t w)
	! grep -q '^ 777 ' <<<"$third" || false
	grep -q '^4242  root  C     2.0 GiB       -    0  python3.11$' <<<"$third"
	tmux -L "$tmux_socket" send-keys -t w C-c
	sleep 0.5
	last=$(tmux -L "$tmux_socket" capture-pane -p -t w)
	[ "$(grep -c '^GPU  NAME' <<<"$last")" -eq 1 ] # the last view stays
	grep -q '^hmn: [0-9]* samples over' "$BATS_TEST_TMPDIR/err"
}
