#!/usr/bin/env bats
# hmn free against the stand-in NVML: exact values, tables, failures, exit codes.

load helpers

setup() {
	common_setup
}

@test "free --json gives every field, exactly" {
	two_gpus
	run_split "$HMN" free --json
	[ "$status" -eq 0 ]
	[ "$output" = '[{"index":0,"name":"NVIDIA H100 80GB HBM3","uuid":"GPU-aaaaaaaa-1111-2222-3333-444444444444","vendor":"nvidia","pci_bus_id":"0000:1b:00.0","total_bytes":85520809984,"free_bytes":64237862912,"used_bytes":20780679168,"reserved_bytes":502267904,"shared_total_bytes":null,"shared_used_bytes":null,"driver_version":"550.54.15","source":"nvml","mig":null,"unified_memory":false,"utilization_percent":null,"memory_utilization_percent":null,"temperature_celsius":null,"power_milliwatts":null,"power_limit_milliwatts":null,"compute_capability":null},{"index":1,"name":"NVIDIA L40S","uuid":"GPU-bbbbbbbb-1111-2222-3333-444444444444","vendor":"nvidia","pci_bus_id":"0000:3b:00.0","total_bytes":48305799168,"free_bytes":48304750592,"used_bytes":1048576,"reserved_bytes":0,"shared_total_bytes":null,"shared_used_bytes":null,"driver_version":"550.54.15","source":"nvml","mig":null,"unified_memory":false,"utilization_percent":null,"memory_utilization_percent":null,"temperature_celsius":null,"power_milliwatts":null,"power_limit_milliwatts":null,"compute_capability":null}]' ]
	[ -z "$stderr" ]
}

@test "free --json: total = reserved + used + free on every row" {
	two_gpus
	run "$HMN" free --json
	[ "$status" -eq 0 ]
	echo "$output" | jq -e 'all(.[]; .total_bytes == .reserved_bytes + .used_bytes + .free_bytes)'
}

@test "hmn with no command is hmn free" {
	two_gpus
	run "$HMN"
	[ "$status" -eq 0 ]
	free_output=$("$HMN" free)
	[ "$output" = "$free_output" ]
}

@test "free table: aligned, sizes right-aligned and one word, NAME last, no trailing spaces" {
	two_gpus
	run "$HMN" free
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "GPU     USED     FREE    TOTAL  RESERVED  SOURCE  NAME" ]
	[ "${lines[1]}" = "  0  19.4GiB  59.8GiB  79.6GiB    479MiB  nvml    NVIDIA H100 80GB HBM3" ]
	[ "${lines[2]}" = "  1     1MiB  45.0GiB  45.0GiB      0MiB  nvml    NVIDIA L40S" ]
	! grep -q ' $' <<<"$output" || false
}

@test "free --bytes --no-header" {
	two_gpus
	run "$HMN" free --bytes --no-header
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 2 ]
	[ "${lines[0]}" = "  0  20780679168  64237862912  85520809984  502267904  nvml    NVIDIA H100 80GB HBM3" ]
}

@test "free --device by index and by UUID, repeated and comma-separated" {
	two_gpus
	run "$HMN" free --json --device 1
	[ "$(jq -c '[.[].index]' <<<"$output")" = "[1]" ]
	run "$HMN" free --json --device GPU-AAAAAAAA-1111-2222-3333-444444444444
	[ "$(jq -c '[.[].index]' <<<"$output")" = "[0]" ]
	run "$HMN" free --json --device 1 --device=0
	[ "$(jq -c '[.[].index]' <<<"$output")" = "[0,1]" ]
	run "$HMN" free --json --device 0,1
	[ "$(jq -c '[.[].index]' <<<"$output")" = "[0,1]" ]
}

@test "free --device 9 on a machine with 2 GPUs is a usage error" {
	two_gpus
	run_split "$HMN" free --device 9
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	[ "$stderr" = "hmn: --device 9: no such GPU (2 found, indices from 0)
Try 'hmn free --help'." ]
	run "$HMN" free --device GPU-nope
	[ "$status" -eq 2 ]
}

@test "a pre-R510 driver: reserved is null, the table shows -" {
	two_gpus
	export HMN_NVML_LIBRARY="$STUB_PRE_R510"
	run "$HMN" free --json
	[ "$status" -eq 0 ]
	[ "$(jq -c '.[0] | [.reserved_bytes, .used_bytes, .free_bytes, .total_bytes]' <<<"$output")" = "[null,21282947072,64237862912,85520809984]" ]
	run "$HMN" free
	[ "${lines[1]}" = "  0  19.8GiB  59.8GiB  79.6GiB         -  nvml    NVIDIA H100 80GB HBM3" ]
}

@test "a lost GPU: the others are reported, the failure said, exit 1 (never a success)" {
	scenario \
		'gpu name=A uuid=GPU-a pci=00000000:01:00.0 total=1073741824 used=1048576' \
		'gpu name=B uuid=GPU-b pci=00000000:02:00.0 total=1073741824 used=1048576 error=15' \
		'gpu name=C uuid=GPU-c pci=00000000:03:00.0 total=1073741824 used=1048576'
	run_split "$HMN" free --json
	# The contract: a GPU the system shows that no source could read makes the status 1.
	[ "$status" -eq 1 ]
	[ "$(jq -c '[.[].index]' <<<"$output")" = "[0,2]" ]
	[ "$stderr" = "hmn: GPU 1: GPU is lost (nvml)" ]
}

@test "a lost GPU: --need answers 1 with -q as without, whether the others have room or not" {
	scenario \
		'gpu name=A uuid=GPU-a pci=00000000:01:00.0 total=1073741824 used=1048576' \
		'gpu name=B uuid=GPU-b pci=00000000:02:00.0 total=1073741824 used=1048576 error=15'
	for need in 1MiB 2GiB; do
		run_split "$HMN" free --need "$need"
		[ "$status" -eq 1 ]
		run_split "$HMN" free --need "$need" -q
		[ "$status" -eq 1 ]
		# The error alone: the lost GPU.
		[ -z "$output" ] && [ "$stderr" = "hmn: GPU 1: GPU is lost (nvml)" ]
	done
}

@test "every GPU lost: exit 1" {
	scenario 'gpu name=A total=1073741824 used=1 error=15'
	run_split "$HMN" free
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	[[ "$stderr" == *"every GPU found (1) failed to answer"* ]]
}

@test "NVML init failure: exit 3, and what was tried" {
	scenario 'init-error 9'
	run_split "$HMN" free
	[ "$status" -eq 3 ]
	[ -z "$output" ]
	[ "$stderr" = "hmn: no GPU found (tried nvml: nvmlInit_v2 failed: Driver Not Loaded; nvidia-smi: $no_driver_message; drm: no DRM devices ($HMN_SYSFS/class/drm: No such file or directory))" ]
}

@test "no NVML library at all: exit 3, -v says why each source was skipped" {
	export HMN_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1
	run_split "$HMN" -v free
	[ "$status" -eq 3 ]
	[[ "$stderr" == *"hmn: nvml: skipped: /nonexistent/libnvidia-ml.so.1: cannot open shared object file"* ]]
	[[ "$stderr" == *"hmn: no GPU found (tried nvml: "* ]]
}

@test "a relative HMN_NVML_LIBRARY is never loaded from the current directory: a usage error naming it" {
	two_gpus
	cp "$STUB_MODERN" "$BATS_TEST_TMPDIR/libnvidia-ml.so.1"
	cd "$BATS_TEST_TMPDIR"
	HMN_NVML_LIBRARY=libnvidia-ml.so.1 LD_LIBRARY_PATH=: run_split "$HMN" free
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	# The man page says absolute: a bare name is refused as such, not looked for as the loader would.
	[ "${stderr%%$'\n'*}" = "hmn: HMN_NVML_LIBRARY: 'libnvidia-ml.so.1' is not an absolute path (nothing is loaded or run from the current directory)" ]
	HMN_NVML_LIBRARY=./libnvidia-ml.so.1 run_split "$HMN" free
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"'./libnvidia-ml.so.1' is not an absolute path"* ]]
}

@test "the legacy (v1-only) driver still answers" {
	two_gpus
	export HMN_NVML_LIBRARY="$STUB_LEGACY"
	run "$HMN" free --json
	[ "$status" -eq 0 ]
	[ "$(jq -r '.[1].pci_bus_id' <<<"$output")" = "0000:3b:00.0" ]
}

@test "stdout that cannot be written: exit 1 with a message" {
	two_gpus
	run_split "$HMN" free
	[ "$status" -eq 0 ]
	run bash -c '"$HMN" free >/dev/full'
	[ "$status" -eq 1 ]
	[[ "$output" == "hmn: cannot write output: No space left on device" ]]
}

@test "-v says what each source found, and why each other one was skipped" {
	two_gpus
	run_split "$HMN" free -v
	[ "$status" -eq 0 ]
	[ "$stderr" = "hmn: nvml: $STUB_MODERN (driver 550.54.15), 2 GPUs
hmn: nvml: using nvmlInit_v2, nvmlDeviceGetMemoryInfo_v2, process lists compute v3, graphics v3, MPS v3
hmn: nvidia-smi: skipped: nvml answered for the nvidia GPUs
hmn: drm: skipped: no DRM devices ($HMN_SYSFS/class/drm: No such file or directory)" ]
	# A source that found nothing says so once, however many queries a run makes.
	scenario 'gpu name=A total=1073741824 used=1'
	run_split "$HMN" watch --count 3 --interval 1ms --json -v
	[ "$(grep -c 'nvidia-smi: skipped' <<<"$stderr")" -eq 1 ]
}

@test "a copy with file capabilities ignores HMN_NVML_LIBRARY, HMN_NVIDIA_SMI, HMN_PROCFS, HMN_SYSFS and says so" {
	[ "$(id -u)" -eq 0 ] || skip "needs root to give a copy file capabilities and run it as another user"
	command -v setcap >/dev/null || skip "no setcap (Debian's libcap2-bin)"
	two_gpus
	dir=$(mktemp -d /tmp/hmn-caps.XXXXXX)
	chmod 755 "$dir"
	cp "$HMN" "$dir/hmn"
	cp "$HMN_NVML_LIBRARY" "$dir/libnvidia-ml.so.1"
	cp "$HMN_STUB_SCENARIO" "$dir/scenario"
	chmod 755 "$dir/hmn" "$dir/libnvidia-ml.so.1"
	chmod 644 "$dir/scenario"
	as_nobody=(env HMN_NVML_LIBRARY="$dir/libnvidia-ml.so.1" HMN_STUB_SCENARIO="$dir/scenario"
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
		setpriv --reuid=65534 --regid=65534 --clear-groups "$dir/hmn" free --json --backend nvml)
	# Without privileges of its own, the caller's library is the caller's business: used.
	run_split "${as_nobody[@]}"
	echo "# plain: $status $stderr"
	[ "$status" -eq 0 ]
	[[ "$output" == *GPU-aaaaaaaa-1111-2222-3333-444444444444* ]]
	# With cap_sys_ptrace (to "see everyone's names"): not loaded, and said.
	setcap cap_sys_ptrace+ep "$dir/hmn" || { rm -rf "$dir"; skip "setcap refused here (no xattr support?)"; }
	run_split "${as_nobody[@]}"
	rm -rf "$dir"
	echo "# capabilities: $status $stderr"
	[[ "$output" != *GPU-aaaaaaaa* ]]
	for v in HMN_NVML_LIBRARY HMN_NVIDIA_SMI HMN_PROCFS HMN_SYSFS; do
		grep -qx "hmn: $v ignored: hmn runs with privileges its caller lacks (set-user-ID or file capabilities)" <<<"$stderr"
	done
}
