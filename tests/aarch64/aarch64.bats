#!/usr/bin/env bats
# hmn built for aarch64 Linux, run under qemu-user against the stand-in NVML
# (also built for aarch64): the machines of GB10, Jetson and GH200.

load ../e2e/helpers

setup() {
	common_setup
	file "$HMN" | grep -q 'ARM aarch64'
}

hmn() {
	# The sysroot's libc, not one the host's ld.so.cache may name (cross/aarch64-linux-gnu.txt).
	"$QEMU" -L "$QEMU_SYSROOT" -E "LD_LIBRARY_PATH=$QEMU_SYSROOT/lib" "$HMN" "$@"
}

@test "aarch64: --version" {
	run hmn --version
	[ "$status" -eq 0 ]
	[[ "$output" =~ ^hmn\ [0-9]+\.[0-9]+\.[0-9]+$ ]]
}

@test "aarch64: free --json against the stand-in NVML" {
	two_gpus
	run_split hmn free --json
	[ "$status" -eq 0 ]
	[ "$(jq -c '[.[] | [.index, .name, .total_bytes, .used_bytes, .reserved_bytes, .unified_memory]]' <<<"$output")" = \
		'[[0,"NVIDIA H100 80GB HBM3",85520809984,20780679168,502267904,false],[1,"NVIDIA L40S",48305799168,1048576,0,false]]' ]
}

@test "aarch64: GB10 unified memory" {
	printf 'MemTotal:       127535708 kB\nMemAvailable:   118004180 kB\n' >"$HMN_PROCFS/meminfo"
	scenario 'gpu name="NVIDIA GB10" uuid=GPU-dddd pci=0000000F:01:00.0 memory-error=3' \
		'proc gpu=0 pid=700 used=8589934592 list=compute'
	run_split hmn free --json
	[ "$status" -eq 0 ]
	[ "$(jq -c '.[0] | [.unified_memory, .total_bytes, .free_bytes]' <<<"$output")" = '[true,130596564992,120836280320]' ]
}

@test "aarch64: ps --json against the stand-in NVML" {
	two_gpus 'proc gpu=0 pid=4242 used=2147483648 list=compute' 'proc gpu=1 pid=777 used=1048576 list=graphics'
	fake_process 4242 0 /usr/bin/python3.11 "" 3670016
	fake_cmdline 4242 python3.11 train.py
	run_split hmn ps --json
	[ "$status" -eq 0 ]
	[ "$(jq -c '[.[].command]' <<<"$output")" = '[["python3.11","train.py"],null]' ]
	[ "$(jq -c '[.[] | [.pid, .name, .used_bytes, .type, .ram_bytes]]' <<<"$output")" = '[[4242,"python3.11",2147483648,"compute",3758096384],[777,null,1048576,"graphics",null]]' ]
	[ "$stderr" = "hmn: 2 GPU processes found (2.0GiB total)." ]
}

@test "aarch64: getopt_long's syntax and the one-word table" {
	two_gpus 'proc gpu=0 pid=4242 used=2147483648 list=compute'
	run_split hmn ps -q --so=pid --dev 0
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[ "${lines[1]}" = "4242  ?     C     2.0GiB       -    -    0  ?" ]
	run_split hmn fit -l
	[ "$status" -eq 2 ]
	[ "$stderr" = "hmn: option '-l' is not valid for 'hmn fit'
Try 'hmn fit --help'." ]
}

@test "aarch64: no GPU: exit 3, saying what was tried" {
	export HMN_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1
	run_split hmn
	[ "$status" -eq 3 ]
	[[ "$stderr" == "hmn: no GPU found (tried nvml: "* ]]
}
