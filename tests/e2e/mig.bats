#!/usr/bin/env bats
# MIG, from the H100 recording in MIG mode (driver 590.48.01): four instances
# (GPU instances 2, 3, 9 and 10, compute instance 0), a model on instance 2.

load helpers

setup() {
	common_setup
}

MIG0=MIG-00000000-0000-0000-0000-000000000000
MIG1=MIG-00000001-0000-0000-0000-000000000001

h100_mig() {
	scenario 'driver 590.48.01' \
		"gpu name=\"NVIDIA H100 80GB HBM3\" uuid=GPU-00000000-0000-0000-0000-000000000000 pci=00000000:00:09.0 total=85520809984 reserved=502267904 used=11665408000 $1" \
		"mig gpu=0 gi=2 ci=0 name=\"NVIDIA H100 80GB HBM3 MIG 3g.40gb\" uuid=$MIG0 total=42412802048 used=11629756416 $2" \
		"mig gpu=0 gi=3 ci=0 name=\"NVIDIA H100 80GB HBM3 MIG 2g.20gb\" uuid=$MIG1 total=21072183296 used=17825792 $2" \
		"mig gpu=0 gi=9 ci=0 name=\"NVIDIA H100 80GB HBM3 MIG 1g.10gb\" uuid=MIG-00000002-0000-0000-0000-000000000002 total=10468982784 used=9437184 $2" \
		"mig gpu=0 gi=10 ci=0 name=\"NVIDIA H100 80GB HBM3 MIG 1g.10gb\" uuid=MIG-00000003-0000-0000-0000-000000000003 total=10468982784 used=9437184 $2" \
		'proc mig=0 pid=21180 used=2407530496' \
		'proc mig=0 pid=21181 used=1333788672' \
		'proc mig=0 pid=21198 used=7847542784' \
		'proc gpu=0 pid=21180 used=2407530496 gi=2 ci=0' \
		'proc gpu=0 pid=21181 used=1333788672 gi=2 ci=0' \
		'proc gpu=0 pid=21198 used=7847542784 gi=2 ci=0'
}

@test "free: each MIG instance has its own row under its GPU" {
	h100_mig
	run_split "$HMN" free --json
	[ "$status" -eq 0 ]
	[ "$(jq -c '[.[] | [.index, .mig]]' <<<"$output")" = '[[0,null],[0,{"gpu_instance_id":2,"compute_instance_id":0,"parent_index":0}],[0,{"gpu_instance_id":3,"compute_instance_id":0,"parent_index":0}],[0,{"gpu_instance_id":9,"compute_instance_id":0,"parent_index":0}],[0,{"gpu_instance_id":10,"compute_instance_id":0,"parent_index":0}]]' ]
	[ "$(jq -c '.[1] | [.name, .uuid, .total_bytes, .used_bytes, .free_bytes, .pci_bus_id]' <<<"$output")" = "[\"NVIDIA H100 80GB HBM3 MIG 3g.40gb\",\"$MIG0\",42412802048,11629756416,30783045632,\"0000:00:09.0\"]" ]
	run "$HMN" free
	[ "${lines[1]}" = "     0  10.9GiB  68.3GiB  79.6GiB    479MiB  nvml    NVIDIA H100 80GB HBM3" ]
	[ "${lines[2]}" = " 0/2.0  10.8GiB  28.7GiB  39.5GiB      0MiB  nvml    NVIDIA H100 80GB HBM3 MIG 3g.40gb" ]
	[ "${lines[5]}" = "0/10.0     9MiB   9.7GiB   9.8GiB      0MiB  nvml    NVIDIA H100 80GB HBM3 MIG 1g.10gb" ]
}

@test "free -l: an instance shows no telemetry of its own (the driver has none), never its GPU's copied" {
	h100_mig 'util=37 memutil=12 temp=41 power=71234 powerlimit=700000'
	run_split "$HMN" free --json
	[ "$status" -eq 0 ]
	[ "$(jq -c '.[0] | [.utilization_percent, .temperature_celsius, .power_milliwatts]' <<<"$output")" = '[37,41,71234]' ]
	[ "$(jq -c '[.[1:][] | [.utilization_percent, .memory_utilization_percent, .temperature_celsius, .power_milliwatts, .power_limit_milliwatts]] | unique' <<<"$output")" = '[[null,null,null,null,null]]' ]
	run_split "$HMN" free -l --device 0/2.0
	[ "$status" -eq 0 ]
	[[ "${lines[1]}" =~ ^0/2\.0\ +10\.8GiB\ +28\.7GiB\ +39\.5GiB\ +0MiB\ +-\ +-\ +-\ +nvml ]]
}

@test "ps: rows say which instance a process runs on" {
	h100_mig
	run_split "$HMN" ps --json
	[ "$status" -eq 0 ]
	[ "$(jq -c '[.[] | [.pid, .used_bytes, .device_index, .device_uuid, .mig]]' <<<"$output")" = "[[21198,7847542784,0,\"GPU-00000000-0000-0000-0000-000000000000\",{\"gpu_instance_id\":2,\"compute_instance_id\":0,\"uuid\":\"$MIG0\"}],[21180,2407530496,0,\"GPU-00000000-0000-0000-0000-000000000000\",{\"gpu_instance_id\":2,\"compute_instance_id\":0,\"uuid\":\"$MIG0\"}],[21181,1333788672,0,\"GPU-00000000-0000-0000-0000-000000000000\",{\"gpu_instance_id\":2,\"compute_instance_id\":0,\"uuid\":\"$MIG0\"}]]" ]
	[ "$stderr" = "hmn: 3 GPU processes found (10.8GiB total)." ]
	run_split "$HMN" ps --no-header
	[ "${lines[0]}" = "21198  ?     C     7.3GiB       -    -  0/2.0  ?" ]
}

@test "--device takes MIG UUIDs: one instance, in free and in ps" {
	h100_mig
	run "$HMN" free --json --device "$MIG1"
	[ "$(jq -c '[.[] | .uuid]' <<<"$output")" = "[\"$MIG1\"]" ]
	run "$HMN" free --json --device 0
	[ "$(jq length <<<"$output")" -eq 5 ]
	run_split "$HMN" ps --json --device "$MIG0"
	[ "$(jq length <<<"$output")" -eq 3 ]
	[ "$stderr" = "hmn: 3 GPU processes found matching device=$MIG0 (10.8GiB total)." ]
	run_split "$HMN" ps --json --device "$MIG1"
	[ "$output" = "[]" ]
	run_split "$HMN" ps --device MIG-ffffffff-0000-0000-0000-000000000000
	[ "$status" -eq 2 ]
}

@test "--device takes an instance as the GPU column prints it (0/2.0): free, ps, watch, run" {
	h100_mig
	run_split "$HMN" free --device 0/2.0
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 2 ]
	[ "${lines[1]}" = "0/2.0  10.8GiB  28.7GiB  39.5GiB      0MiB  nvml    NVIDIA H100 80GB HBM3 MIG 3g.40gb" ]
	run_split "$HMN" free --device 0/10.0,0/3.0 --json
	[ "$(jq -c '[.[].mig.gpu_instance_id]' <<<"$output")" = "[3,10]" ]
	# As --need counts it: that instance's free memory alone.
	run_split "$HMN" free --device 0/3.0 --need 20GiB
	[ "$status" -eq 4 ]
	[ "$stderr" = "hmn: no GPU has 20.0GiB free (most: GPU 0/3.0, 19.6GiB)" ]
	run_split "$HMN" ps --device 0/2.0 --json
	[ "$(jq -c '[.[].pid]' <<<"$output")" = "[21198,21180,21181]" ]
	[ "$stderr" = "hmn: 3 GPU processes found matching device=0/2.0 (10.8GiB total)." ]
	run_split "$HMN" ps --device 0/3.0 --json
	[ "$output" = "[]" ]
	run_split "$HMN" watch --device 0/2.0 --count 1 --json
	[ "$status" -eq 0 ]
	[ "$(jq -c '[[.gpus[].uuid], [.processes[].pid]]' <<<"$output")" = "[[\"$MIG0\"],[21198,21180,21181]]" ]
	# The summary's process peaks say the instance as the GPU column prints it, as its GPU peaks do.
	[[ "$stderr" == *$'\n'"0/2.0  10.8GiB"$'\n'* ]]
	[[ "$stderr" == *$'\n'"21198  0/2.0  7.3GiB  ?"* ]]
	run_split "$HMN" run --device 0/2.0 --json -- true
	[ "$status" -eq 0 ]
	# The selected instance is the report's device (it said "devices":[]), named as the GPU column does.
	[ "$(jq -c '.devices' <<<"$stderr")" = "[{\"index\":0,\"uuid\":\"$MIG0\",\"name\":\"NVIDIA H100 80GB HBM3 MIG 3g.40gb\",\"peak_bytes\":0,\"mig\":{\"gpu_instance_id\":2,\"compute_instance_id\":0}}]" ]
	run_split "$HMN" run --device "$MIG1" -- true
	[ "$status" -eq 0 ]
	[[ "$stderr" =~ ^hmn:\ true:\ peak\ 0B\ of\ GPU\ memory\ \(GPU\ 0/3\.0:\ 0B\), ]]
	run_split "$HMN" run --device 0/2.0,0/3.0 --json -- true
	[ "$(jq -c '[.devices[] | [.uuid, .mig.gpu_instance_id]]' <<<"$stderr")" = "[[\"$MIG0\",2],[\"$MIG1\",3]]" ]
	# The whole GPU: one device, never its instances again beside it.
	run_split "$HMN" run --device 0 --json -- true
	[ "$(jq -c '[.devices[] | [.uuid, .mig]]' <<<"$stderr")" = '[["GPU-00000000-0000-0000-0000-000000000000",null]]' ]
	# A command that holds 1GiB on instance 0/2.0: its peak is that instance's, by 0/2.0 or its UUID.
	cat >"$BATS_TEST_TMPDIR/hold-mig" <<-'EOF'
	#!/bin/bash
	{ cat "$HMN_STUB_SCENARIO"; printf '%s\n' "proc mig=0 pid=$$ used=1073741824" "proc gpu=0 pid=$$ used=1073741824 gi=2 ci=0"; } >"$HMN_STUB_SCENARIO.new"
	mv "$HMN_STUB_SCENARIO.new" "$HMN_STUB_SCENARIO"
	sleep 1
	EOF
	chmod +x "$BATS_TEST_TMPDIR/hold-mig"
	for device in 0/2.0 "$MIG0" 0; do
		h100_mig
		HMN_STUB_WATCH=1 HMN_PROCFS=/proc run_split "$HMN" run --device "$device" --json -- "$BATS_TEST_TMPDIR/hold-mig"
		[ "$status" -eq 0 ]
		[ "$(jq -c '[.peak_bytes, [.devices[] | [.index, .peak_bytes, .mig.gpu_instance_id]]]' <<<"$stderr")" = \
			"[1073741824,[[0,1073741824,$([ "$device" = 0 ] && echo null || echo 2)]]]" ]
	done
	h100_mig
	HMN_STUB_WATCH=1 HMN_PROCFS=/proc run_split "$HMN" run --device 0/2.0 -- "$BATS_TEST_TMPDIR/hold-mig"
	[[ "$stderr" =~ ^hmn:\ .*hold-mig:\ peak\ 1\.0GiB\ of\ GPU\ memory\ \(GPU\ 0/2\.0:\ 1\.0GiB\), ]]
	h100_mig
	# An instance that is not there: a usage error, as a GPU that is not there (run: 125).
	run_split "$HMN" free --device 0/7.0
	[ "$status" -eq 2 ]
	[ "${stderr%%$'\n'*}" = "hmn: --device 0/7.0: no such GPU (1 found: index 0)" ]
	run_split "$HMN" run --device 0/7.0 -- true
	[ "$status" -eq 125 ]
	run_split "$HMN" ps --device 0/2
	[ "$status" -eq 2 ]
	[ "${stderr%%$'\n'*}" = "hmn: invalid GPU '0/2' in --device (an index, GPU/GI.CI, or a UUID)" ]
}

@test "no permission for per-instance figures: said, and the aggregate shown" {
	h100_mig aggregate=1 error=4
	run_split "$HMN" free --json
	[ "$status" -eq 0 ]
	[ "$(jq length <<<"$output")" -eq 1 ]
	[[ "$stderr" == *"GPU 0: MIG instance 2: Insufficient Permissions: its row shows the GPU's aggregate only (nvml)"* ]]
	run_split "$HMN" ps --json
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"GPU 0: no permission for per-instance (MIG) process lists: listing the GPU's aggregate (nvml)"* ]]
	[ "$(jq -c '[.[] | [.pid, .mig.gpu_instance_id, .mig.uuid]] | sort' <<<"$output")" = '[[21180,2,null],[21181,2,null],[21198,2,null]]' ]
}

@test "no permission for either: said, and exit 1" {
	h100_mig "" error=4
	run_split "$HMN" ps --json
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"no permission for its aggregate process list either: re-run elevated"* ]]
}
