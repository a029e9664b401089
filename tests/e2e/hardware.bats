#!/usr/bin/env bats
# What a real H100 and the NVIDIA machines of 2026 showed (tests/fixtures/h100-580):
# unified memory (DGX Spark's GB10), names the driver knows, MPS clients, and
# what a reused context asks of NVML.

load helpers

setup() {
	common_setup
	printf 'MemTotal:       127535708 kB\nMemFree:         1203816 kB\nMemAvailable:   118004180 kB\n' \
		>"$HMN_PROCFS/meminfo"
}

teardown() {
	for pid in ${started_pids:-}; do
		kill "$pid" 2>/dev/null || true
	done
}

gb10() {
	scenario \
		'driver 580.95.05' \
		'gpu name="NVIDIA GB10" uuid=GPU-dddddddd-1111-2222-3333-444444444444 pci=0000000F:01:00.0 memory-error=3' \
		'proc gpu=0 pid=700 used=8589934592 list=compute' \
		'proc gpu=0 pid=701 used=2147483648 list=compute'
	fake_process 700 1000 /usr/bin/python3.12
	fake_process 701 1000 /opt/llama/llama-server
}

@test "GB10 (NOT_SUPPORTED memory): unified, the system's figures, exit 0" {
	gb10
	run_split "$HMN" free --json
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[ "$(jq -c '.[0] | [.name, .unified_memory, .total_bytes, .free_bytes, .used_bytes, .reserved_bytes]' <<<"$output")" = \
		'["NVIDIA GB10",true,130596564992,120836280320,9760284672,null]' ]
}

@test "GB10 table: SOURCE says nvml/unified (one word), so nobody takes 121.6GiB for VRAM" {
	gb10
	run_split "$HMN" free
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "GPU    USED      FREE     TOTAL  RESERVED  SOURCE        NAME" ]
	[ "${lines[1]}" = "  0  9.1GiB  112.5GiB  121.6GiB         -  nvml/unified  NVIDIA GB10" ]
	[ "$(awk 'NR > 1 { print $6 }' <<<"$output")" = "nvml/unified" ]
}

@test "GB10: processes as usual" {
	gb10
	run_split "$HMN" ps --json
	[ "$status" -eq 0 ]
	[ "$(jq -c '[.[] | [.pid, .name, .used_bytes]]' <<<"$output")" = '[[700,"python3.12",8589934592],[701,"llama-server",2147483648]]' ]
	[ "$stderr" = "hmn: 2 GPU processes found (10.0GiB total)." ]
}

@test "GB10 through nvidia-smi: [N/A] memory is unified memory too" {
	export HMN_BACKENDS=nvidia-smi
	smi_answers \
		'index, uuid, name, pci.bus_id, memory.total, memory.used, memory.free, memory.reserved, driver_version
0, GPU-dddddddd-1111-2222-3333-444444444444, NVIDIA GB10, 0000000F:01:00.0, [N/A], [N/A], [N/A], [N/A], 580.95.05' \
		'700, [N/A], GPU-dddddddd-1111-2222-3333-444444444444, /usr/bin/python3.12'
	run_split "$HMN" free --json
	[ "$status" -eq 0 ]
	[ "$(jq -c '.[0] | [.unified_memory, .total_bytes, .free_bytes, .source]' <<<"$output")" = \
		'[true,130596564992,120836280320,"nvidia-smi"]' ]
	run_split "$HMN" free
	[[ "${lines[1]}" == *"  nvidia-smi/unified  NVIDIA GB10" ]]
}

@test "every other GPU: unified_memory false" {
	two_gpus
	run "$HMN" free --json
	[ "$(jq -c '[.[].unified_memory]' <<<"$output")" = '[false,false]' ]
}

@test "another user's process with a long name: named and pathed by the driver" {
	[ "$(id -u)" -eq 0 ] || skip "needs root to run hmn as another user"
	# A real root process whose /proc/PID/exe nobody may read; what nobody reads lives in $dir.
	dir=$(mktemp -d /tmp/hmn-long.XXXXXX)
	chmod 755 "$dir"
	long="$dir/a-very-long-process-name-beyond-fifteen"
	cp /bin/sleep "$long"
	"$long" 30 &
	pid=$!
	started_pids=$pid
	wait_for_exec "$pid" "$long"
	export HMN_PROCFS=/proc HMN_STUB_SCENARIO="$dir/scenario" HMN_BACKENDS=nvml
	two_gpus "proc gpu=0 pid=$pid used=1591738368 list=compute" "procname pid=$pid path=$long"
	chmod 644 "$HMN_STUB_SCENARIO"
	run_split setpriv --reuid=65534 --regid=65534 --clear-groups "$HMN" ps --json
	nobody_status=$status nobody_output=$output
	# As root the OS says it all: the same answer.
	run_split "$HMN" ps --json
	kill "$pid"
	rm -rf "$dir"
	[ "$nobody_status" -eq 0 ]
	[ "$(jq -c '.[0] | [.name, .path, .user, .protected]' <<<"$nobody_output")" = \
		"[\"a-very-long-process-name-beyond-fifteen\",\"$long\",\"root\",false]" ]
	[ "$(jq -c '.[0] | [.name, .path, .user]' <<<"$output")" = \
		"[\"a-very-long-process-name-beyond-fifteen\",\"$long\",\"root\"]" ]
}

@test "the driver's name goes through the table's sanitizer (ESC, newline)" {
	two_gpus 'proc gpu=0 pid=483 used=1277165568 list=compute' \
		"procname pid=483 path=/tmp/b/evil$(printf '\033')[31mRED"
	run_split "$HMN" ps
	[ "$status" -eq 0 ]
	[ "${lines[1]}" = "483  ?     C     1.2GiB       -    -    0  evil?[31mRED" ]
	run "$HMN" ps --json
	[ "$(jq -r '.[0].path' <<<"$output")" = "/tmp/b/evil"$'\033'"[31mRED" ]
}

@test "MPS: clients M+C with mps true, the server C" {
	two_gpus 'proc gpu=0 pid=470 used=69206016 list=compute' \
		'proc gpu=0 pid=461 used=1275068416 list=mps' \
		'proc gpu=0 pid=463 used=855638016 list=mps'
	fake_process 470 0 /usr/bin/nvidia-cuda-mps-server "" 30720
	fake_process 461 0 /tmp/hold "" 1153434
	fake_process 463 0 /tmp/hold "" 1153434
	run_split "$HMN" ps
	[ "$status" -eq 0 ]
	[ "${lines[1]}" = "461  root  M+C   1.2GiB       -  1.1GiB    0  hold" ]
	[ "${lines[2]}" = "463  root  M+C   816MiB       -  1.1GiB    0  hold" ]
	[ "${lines[3]}" = "470  root  C      66MiB       -   30MiB    0  nvidia-cuda-mps-server" ]
	run "$HMN" ps --json
	[ "$(jq -c '[.[] | [.pid, .type, .mps]]' <<<"$output")" = '[[461,"compute",true],[463,"compute",true],[470,"compute",false]]' ]
}

@test "one hmn run: one init, each GPU probed once, one memory query each" {
	two_gpus 'proc gpu=0 pid=100 used=1048576'
	export HMN_STUB_TRACE="$BATS_TEST_TMPDIR/trace"
	run "$HMN" ps --device 0
	[ "$status" -eq 0 ]
	grep -qx 'calls nvmlInit_v2 1' "$HMN_STUB_TRACE"
	grep -qx 'calls nvmlDeviceGetMigMode 2' "$HMN_STUB_TRACE"
	grep -qx 'calls nvmlDeviceGetMemoryInfo_v2 2' "$HMN_STUB_TRACE"
	grep -qx 'calls nvmlSystemGetProcessName 1' "$HMN_STUB_TRACE"
}
