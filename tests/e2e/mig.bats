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
	[ "${lines[1]}" = "     0  NVIDIA H100 80GB HBM3              10.9 GiB  68.3 GiB  79.6 GiB   479 MiB  nvml" ]
	[ "${lines[2]}" = " 0/2.0  NVIDIA H100 80GB HBM3 MIG 3g.40gb  10.8 GiB  28.7 GiB  39.5 GiB     0 MiB  nvml" ]
	[ "${lines[5]}" = "0/10.0  NVIDIA H100 80GB HBM3 MIG 1g.10gb     9 MiB   9.7 GiB   9.8 GiB     0 MiB  nvml" ]
}

@test "ps: rows say which instance a process runs on" {
	h100_mig
	run_split "$HMN" ps --json
	[ "$status" -eq 0 ]
	[ "$(jq -c '[.[] | [.pid, .used_bytes, .device_index, .device_uuid, .mig]]' <<<"$output")" = "[[21198,7847542784,0,\"GPU-00000000-0000-0000-0000-000000000000\",{\"gpu_instance_id\":2,\"compute_instance_id\":0,\"uuid\":\"$MIG0\"}],[21180,2407530496,0,\"GPU-00000000-0000-0000-0000-000000000000\",{\"gpu_instance_id\":2,\"compute_instance_id\":0,\"uuid\":\"$MIG0\"}],[21181,1333788672,0,\"GPU-00000000-0000-0000-0000-000000000000\",{\"gpu_instance_id\":2,\"compute_instance_id\":0,\"uuid\":\"$MIG0\"}]]" ]
	[ "$stderr" = "hmn: 3 GPU processes found (10.8 GiB total)." ]
	run_split "$HMN" ps --no-header
	[ "${lines[0]}" = "21198  ?     C     7.3 GiB       -  0/2.0  ?" ]
}

@test "--device takes MIG UUIDs: one instance, in free and in ps" {
	h100_mig
	run "$HMN" free --json --device "$MIG1"
	[ "$(jq -c '[.[] | .uuid]' <<<"$output")" = "[\"$MIG1\"]" ]
	run "$HMN" free --json --device 0
	[ "$(jq length <<<"$output")" -eq 5 ]
	run_split "$HMN" ps --json --device "$MIG0"
	[ "$(jq length <<<"$output")" -eq 3 ]
	[ "$stderr" = "hmn: 3 GPU processes found matching device=$MIG0 (10.8 GiB total)." ]
	run_split "$HMN" ps --json --device "$MIG1"
	[ "$output" = "[]" ]
	run_split "$HMN" ps --device MIG-ffffffff-0000-0000-0000-000000000000
	[ "$status" -eq 2 ]
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
