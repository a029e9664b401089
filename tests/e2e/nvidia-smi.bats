#!/usr/bin/env bats
# The nvidia-smi source, through the stand-in nvidia-smi (tests/stub/nvidia-smi)
# replaying answers taken from real recordings (tests/fixtures/nvidia-smi/).

load helpers

setup() {
	common_setup
	export HMN_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1
}

teardown() {
	# A hung stand-in a failed test left: by its pid.
	[ -z "${hung_pid:-}" ] || kill -9 "$hung_pid" 2>/dev/null || true
}

# The H100 under load, as recorded with driver 590.48.01 (values in MiB).
h100() {
	smi_answers \
		'index, uuid, name, pci.bus_id, memory.total, memory.used, memory.free, memory.reserved, driver_version
0, GPU-00000000-0000-0000-0000-000000000000, NVIDIA H100 80GB HBM3, 00000000:00:09.0, 81559, 19818, 61263, 479, 590.48.01' \
		'11327, 2566, GPU-00000000-0000-0000-0000-000000000000, /root/tools/memhog
11328, 1542, GPU-00000000-0000-0000-0000-000000000000, /root/tools/memhog
11345, 15690, GPU-00000000-0000-0000-0000-000000000000, ./gpu_burn' "${1:-}"
}

@test "with no NVML, nvidia-smi answers hmn free, exactly" {
	h100
	run_split "$HMN" free --json
	[ "$status" -eq 0 ]
	[ "$output" = '[{"index":0,"name":"NVIDIA H100 80GB HBM3","uuid":"GPU-00000000-0000-0000-0000-000000000000","vendor":"nvidia","pci_bus_id":"0000:00:09.0","total_bytes":85520809984,"free_bytes":64237862912,"used_bytes":20780679168,"reserved_bytes":502267904,"shared_total_bytes":null,"shared_used_bytes":null,"driver_version":"590.48.01","source":"nvidia-smi","mig":null,"unified_memory":false,"utilization_percent":null,"memory_utilization_percent":null,"temperature_celsius":null,"power_milliwatts":null,"power_limit_milliwatts":null,"compute_capability":null}]' ]
	grep -q -- '--format=csv,noheader,nounits' "$HMN_FAKE_SMI_DIR/calls"
	jq -e '.[0].total_bytes == .[0].reserved_bytes + .[0].used_bytes + .[0].free_bytes' <<<"$output"
}

@test "-v: the nvidia-smi that ran, its driver and what it found; why NVML was skipped" {
	h100
	run_split "$HMN" -v free
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"hmn: nvml: skipped: /nonexistent/libnvidia-ml.so.1: cannot open shared object file"* ]]
	[[ "$stderr" == *"hmn: nvidia-smi: $HMN_NVIDIA_SMI (driver 590.48.01), 1 GPU"* ]]
}

@test "nvidia-smi processes: compute rows, names from nvidia-smi where the OS has none" {
	h100
	run_split "$HMN" ps --json
	[ "$status" -eq 0 ]
	[ "$(jq -c '[.[] | [.pid, .used_bytes, .name, .path, .type, .device_index, .source]]' <<<"$output")" = '[[11345,16452157440,"gpu_burn","./gpu_burn","compute",0,"nvidia-smi"],[11327,2690646016,"memhog","/root/tools/memhog","compute",0,"nvidia-smi"],[11328,1616904192,"memhog","/root/tools/memhog","compute",0,"nvidia-smi"]]' ]
	[ "$stderr" = "hmn: 3 GPU processes found (19.3GiB total)." ]
}

@test "nvidia-smi processes: the OS names a process it can see" {
	h100
	fake_process 11327 0 /usr/local/bin/real-name
	run "$HMN" ps --json --pid 11327
	[ "$(jq -c '.[0] | [.name, .path, .user]' <<<"$output")" = '["real-name","/usr/local/bin/real-name","root"]' ]
}

@test "Windows WDDM rows: [N/A] memory is null and shows -, names with spaces kept" {
	smi_answers \
		'index, uuid, name, pci.bus_id, memory.total, memory.used, memory.free, memory.reserved, driver_version
0, GPU-00000000-0000-0000-0000-000000000000, NVIDIA GeForce RTX 2080 SUPER, 00000000:0C:00.0, 8192, 1366, 6622, 205, 610.62' \
		'2140, [N/A], GPU-00000000-0000-0000-0000-000000000000, C:\Windows\System32\dwm.exe
17648, [N/A], GPU-00000000-0000-0000-0000-000000000000, C:\Program Files\NVIDIA Corporation\NVIDIA App\CEF\NVIDIA Overlay.exe'
	run_split "$HMN" ps --json --sort pid
	[ "$status" -eq 0 ]
	[ "$(jq -c '[.[] | [.pid, .used_bytes, .name]]' <<<"$output")" = '[[2140,null,"dwm.exe"],[17648,null,"NVIDIA Overlay.exe"]]' ]
	run_split "$HMN" ps --no-header --sort pid
	[ "${lines[0]}" = " 2140  ?     C        -       -    -    0  dwm.exe" ]
	[ "$stderr" = "hmn: 2 GPU processes found (0MiB total)." ]
}

@test "a driver without memory.reserved: asked again without it, reserved null" {
	smi_answers \
		'index, uuid, name, pci.bus_id, memory.total, memory.used, memory.free, driver_version
0, GPU-1937b558-347d-0f30-105b-893b98985668, NVIDIA GeForce RTX 2080 SUPER, 00000000:01:00.0, 7979, 344, 7635, 465.27' '' no-reserved
	run_split "$HMN" free --json -v
	[ "$status" -eq 0 ]
	[ "$(jq -c '.[0] | [.reserved_bytes, .total_bytes, .driver_version]' <<<"$output")" = '[null,8366587904,"465.27"]' ]
	jq -e '.[0].total_bytes == .[0].used_bytes + .[0].free_bytes' <<<"$output"
	[[ "$stderr" == *"nvidia-smi: this driver has no memory.reserved: asking without it"* ]]
	[ "$(grep -c 'memory.reserved' "$HMN_FAKE_SMI_DIR/calls")" -eq 1 ]
}

@test "telemetry through nvidia-smi: utilisation, temperature, power in W with decimals, compute capability" {
	smi_answers \
		'index, uuid, name, pci.bus_id, memory.total, memory.used, memory.free, memory.reserved, driver_version, utilization.gpu, utilization.memory, temperature.gpu, power.draw, enforced.power.limit, compute_cap
0, GPU-2be53767-343e-fae9-329f-d851a383224a, NVIDIA H100 80GB HBM3, 00000000:00:06.0, 81559, 10678, 70402, 480, 580.159.04, 37, 12, 41, 71.23, 700.00, 9.0
1, GPU-00000000-0000-0000-0000-000000000001, NVIDIA L40S, 00000000:3B:00.0, 46068, 1, 45589, 478, 580.159.04, [N/A], [N/A], 30, [N/A], [Not Supported], [N/A]'
	run_split "$HMN" free --json
	[ "$status" -eq 0 ]
	[ "$(jq -c '[.[] | [.utilization_percent, .memory_utilization_percent, .temperature_celsius, .power_milliwatts, .power_limit_milliwatts, .compute_capability]]' <<<"$output")" = \
		'[[37,12,41,71230,700000,"9.0"],[null,null,30,null,null,null]]' ]
}

@test "an older driver rejects compute_cap: asked again without it, the rest still there" {
	smi_answers \
		'index, uuid, name, pci.bus_id, memory.total, memory.used, memory.free, memory.reserved, driver_version, temperature.gpu
0, GPU-2be53767-343e-fae9-329f-d851a383224a, NVIDIA H100 80GB HBM3, 00000000:00:06.0, 81559, 10678, 70402, 480, 470.256.02, 41' '' reject:compute_cap
	run_split "$HMN" free --json -v
	[ "$status" -eq 0 ]
	[ "$(jq -c '.[0] | [.temperature_celsius, .compute_capability, .total_bytes]' <<<"$output")" = '[41,null,85520809984]' ]
	[[ "$stderr" == *"nvidia-smi: this driver has no compute_cap: asking without it"* ]]
}

@test "a hung nvidia-smi costs HMN_TIMEOUT, then a message, never a hang; a failure (1), not 'no GPU' (3)" {
	h100 hang
	export HMN_TIMEOUT=1
	start=$(date +%s%N)
	run_split "$HMN" free
	elapsed_ms=$((($(date +%s%N) - start) / 1000000))
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"nvidia-smi: $HMN_NVIDIA_SMI did not answer within 1 s (HMN_TIMEOUT): killed"* ]]
	[[ "$stderr" != *"no GPU found"* ]]
	[ "$elapsed_ms" -lt 5000 ]
	! pgrep -f "hung-nvidia-smi $HMN_FAKE_SMI_DIR" >/dev/null || false
	run_split "$HMN" ps --json
	[ "$status" -eq 1 ]
	run_split "$HMN" watch --count 1 --json
	[ "$status" -eq 1 ]
}

@test "nvidia-smi dies with hmn: hmn SIGKILLed while it hangs leaves none running (Linux)" {
	[ "$(uname -s)" = Linux ] || skip "PR_SET_PDEATHSIG is Linux's"
	h100 hang
	export HMN_TIMEOUT=60
	"$HMN" free >/dev/null 2>&1 &
	hmn_pid=$!
	for _ in $(seq 100); do
		hung_pid=$(pgrep -f "hung-nvidia-smi $HMN_FAKE_SMI_DIR" || true)
		[ -z "$hung_pid" ] || break
		sleep 0.05
	done
	[ -n "$hung_pid" ]
	# Spawned as before: its own process group, stdin from /dev/null.
	[ "$(awk '{ print $5 }' "/proc/$hung_pid/stat")" = "$hung_pid" ]
	[ "$(readlink "/proc/$hung_pid/fd/0")" = /dev/null ]
	kill -9 "$hmn_pid"
	wait "$hmn_pid" || true
	# Gone within a second (a zombie its new parent has not reaped yet has no command line).
	for _ in $(seq 20); do
		pgrep -f "hung-nvidia-smi $HMN_FAKE_SMI_DIR" >/dev/null || break
		sleep 0.05
	done
	! pgrep -f "hung-nvidia-smi $HMN_FAKE_SMI_DIR" >/dev/null || false
}

@test "an nvidia-smi that cannot be executed: its error said, never a crash" {
	printf '\177ELF, but not one' >"$BATS_TEST_TMPDIR/nvidia-smi"
	chmod +x "$BATS_TEST_TMPDIR/nvidia-smi"
	HMN_NVIDIA_SMI="$BATS_TEST_TMPDIR/nvidia-smi" run_split "$HMN" free
	[ "$status" -eq 3 ]
	[[ "$stderr" == *"nvidia-smi: $BATS_TEST_TMPDIR/nvidia-smi: cannot run: Exec format error"* ]]
}

@test "no driver: exit 3 with nvidia-smi's own words" {
	run_split "$HMN" free
	[ "$status" -eq 3 ]
	[[ "$stderr" == *"nvidia-smi: $no_driver_message"* ]]
}

@test "nvidia-smi that prints without end is killed at the bound" {
	h100 flood
	run_split "$HMN" free
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"printed more than 4 MiB: killed"* ]]
}

@test "No devices were found: no GPU, exit 3" {
	h100 nodevices
	run_split "$HMN" free
	[ "$status" -eq 3 ]
	[[ "$stderr" == *"nvidia-smi: no GPU"* ]]
}

@test "nvidia-smi is found only in absolute PATH entries, or by absolute HMN_NVIDIA_SMI" {
	h100
	bin="$BATS_TEST_TMPDIR/bin"
	mkdir -p "$bin"
	cp "$HMN_NVIDIA_SMI" "$bin/nvidia-smi"
	unset HMN_NVIDIA_SMI
	cd "$bin"
	PATH=".:/usr/bin:/bin" run_split "$HMN" free
	[ "$status" -eq 3 ]
	[[ "$stderr" == *"nvidia-smi not found in the absolute entries of PATH"* ]]
	PATH="$bin:/usr/bin:/bin" run_split "$HMN" free
	[ "$status" -eq 0 ]
	HMN_NVIDIA_SMI=nvidia-smi run_split "$HMN" free
	[ "$status" -eq 2 ]
	[ "${stderr%%$'\n'*}" = "hmn: HMN_NVIDIA_SMI: 'nvidia-smi' is not an absolute path (nothing is loaded or run from the current directory)" ]
}

@test "while NVML answers, nvidia-smi is never run" {
	h100
	export HMN_NVML_LIBRARY="$STUB_MODERN"
	two_gpus
	run "$HMN" ps --json
	[ "$status" -eq 0 ]
	[ ! -e "$HMN_FAKE_SMI_DIR/calls" ]
}

@test "--backend nvidia-smi uses it even where NVML answers; one run a query" {
	h100
	export HMN_NVML_LIBRARY="$STUB_MODERN"
	two_gpus
	run "$HMN" --backend nvidia-smi free --json
	[ "$(jq -r '.[0].source' <<<"$output")" = "nvidia-smi" ]
	[ "$(wc -l <"$HMN_FAKE_SMI_DIR/calls")" -eq 1 ]
}

@test "NVML whose every GPU fails falls back to nvidia-smi" {
	h100
	export HMN_NVML_LIBRARY="$STUB_MODERN"
	scenario 'gpu name=A total=1000 used=1 error=15'
	run_split "$HMN" free --json
	[ "$status" -eq 0 ]
	[ "$(jq -r '.[0].source' <<<"$output")" = "nvidia-smi" ]
	[[ "$stderr" == *"GPU 0: GPU is lost (nvml)"* ]]
}

@test "NVML that measures no process (WDDM, WSL2): nvidia-smi is asked for the figures" {
	smi_answers \
		'index, uuid, name, pci.bus_id, memory.total, memory.used, memory.free, memory.reserved, driver_version
0, GPU-aaaaaaaa-1111-2222-3333-444444444444, NVIDIA H100 80GB HBM3, 00000000:1B:00.0, 81559, 19818, 61263, 479, 550.54.15' \
		'100, 2566, GPU-aaaaaaaa-1111-2222-3333-444444444444, /root/tools/memhog'
	export HMN_NVML_LIBRARY="$STUB_MODERN"
	two_gpus 'proc gpu=0 pid=100 used=na list=compute' 'proc gpu=1 pid=200 used=na list=graphics'
	run_split "$HMN" ps --json --sort pid -v
	[ "$status" -eq 0 ]
	[ "$(jq -c '[.[] | [.pid, .used_bytes, .source]]' <<<"$output")" = '[[100,2690646016,"nvidia-smi"],[200,null,"nvml"]]' ]
	[[ "$stderr" == *"nvml: measured no process: asking nvidia-smi for the figures"* ]]
}

@test "NVML that measures its processes: nvidia-smi is not asked" {
	h100
	export HMN_NVML_LIBRARY="$STUB_MODERN"
	two_gpus 'proc gpu=0 pid=100 used=5 list=compute' 'proc gpu=1 pid=200 used=na list=graphics'
	run "$HMN" ps --json
	[ "$status" -eq 0 ]
	[ ! -e "$HMN_FAKE_SMI_DIR/calls" ]
}
