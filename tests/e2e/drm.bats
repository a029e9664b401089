#!/usr/bin/env bats
# The drm source: AMD and Intel GPUs from a fake sysfs, their processes from a
# fake /proc, both from tests/fixtures/drm (see make-trees there for the machine).

load helpers

setup() {
	common_setup
	# A copy, so that a test may break it (permissions, a GPU off the bus).
	cp -a "$TESTS_DIR/fixtures/drm/sys" "$TESTS_DIR/fixtures/drm/proc" "$BATS_TEST_TMPDIR/"
	export HMN_SYSFS="$BATS_TEST_TMPDIR/sys" HMN_PROCFS="$BATS_TEST_TMPDIR/proc"
	export HMN_BACKENDS=drm
}

@test "the committed trees are what make-trees writes" {
	"$TESTS_DIR/fixtures/drm/make-trees" "$BATS_TEST_TMPDIR/fresh"
	diff -r --no-dereference "$TESTS_DIR/fixtures/drm/sys" "$BATS_TEST_TMPDIR/fresh/sys"
	diff -r --no-dereference "$TESTS_DIR/fixtures/drm/proc" "$BATS_TEST_TMPDIR/fresh/proc"
}

@test "free --json: amdgpu VRAM and GTT, xe tile VRAM, i915 unknown; NVIDIA, BMC and connectors skipped" {
	run_split "$HMN" free --json
	[ "$status" -eq 0 ]
	[ "$output" = '[{"index":0,"name":"AMD Navi 31 [Radeon RX 7900 XT/7900 XTX/7900 GRE/7900M]","uuid":null,"vendor":"amd","pci_bus_id":"0000:08:00.0","total_bytes":25753026560,"free_bytes":23586242560,"used_bytes":2166784000,"reserved_bytes":null,"shared_total_bytes":33554432000,"shared_used_bytes":41943040,"driver_version":null,"source":"drm","mig":null,"unified_memory":false,"utilization_percent":37,"memory_utilization_percent":12,"temperature_celsius":41,"power_milliwatts":71000,"power_limit_milliwatts":327000,"compute_capability":null},{"index":1,"name":"AMD GPU [1002:150e]","uuid":null,"vendor":"amd","pci_bus_id":"0000:c4:00.0","total_bytes":536870912,"free_bytes":531394560,"used_bytes":5476352,"reserved_bytes":null,"shared_total_bytes":68719476736,"shared_used_bytes":25864192000,"driver_version":null,"source":"drm","mig":null,"unified_memory":false,"utilization_percent":5,"memory_utilization_percent":null,"temperature_celsius":52,"power_milliwatts":15000,"power_limit_milliwatts":null,"compute_capability":null},{"index":2,"name":"Intel Battlemage G21 [Arc B580]","uuid":null,"vendor":"intel","pci_bus_id":"0000:03:00.0","total_bytes":12884901888,"free_bytes":null,"used_bytes":null,"reserved_bytes":null,"shared_total_bytes":null,"shared_used_bytes":null,"driver_version":null,"source":"drm","mig":null,"unified_memory":false,"utilization_percent":null,"memory_utilization_percent":null,"temperature_celsius":null,"power_milliwatts":null,"power_limit_milliwatts":190000,"compute_capability":null},{"index":3,"name":"Intel DG2 [Arc A310]","uuid":null,"vendor":"intel","pci_bus_id":"0000:3d:00.0","total_bytes":null,"free_bytes":null,"used_bytes":null,"reserved_bytes":null,"shared_total_bytes":null,"shared_used_bytes":null,"driver_version":null,"source":"drm","mig":null,"unified_memory":false,"utilization_percent":null,"memory_utilization_percent":null,"temperature_celsius":null,"power_milliwatts":null,"power_limit_milliwatts":null,"compute_capability":null}]' ]
	[ "$stderr" = "" ]
}

@test "free table: unknown figures are -, and -v says why each is unknown" {
	run_split "$HMN" -v free
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "GPU    USED     FREE    TOTAL  RESERVED  SOURCE  NAME" ]
	[ "${lines[3]}" = "  2       -        -  12.0GiB         -  drm     Intel Arc B580" ]
	[ "${lines[4]}" = "  3       -        -        -         -  drm     Intel Arc A310" ]
	[[ "$stderr" == *"drm: $HMN_SYSFS/class/drm (card0 amdgpu, card1 amdgpu, card2 xe, card3 i915), 4 GPUs"* ]]
	[[ "$stderr" == *"drm: card2: xe prints no used VRAM figure in sysfs: used unknown"* ]]
	[[ "$stderr" == *"drm: card3: i915: HMN_SYSFS is set, so no device node is queried: memory unknown"* ]]
	[[ "$stderr" == *"drm: card4 (0000:01:00.0): NVIDIA: left to nvml and nvidia-smi"* ]]
	[[ "$stderr" == *"drm: card5 (0000:0a:00.0): driver ast: not a GPU hmn measures"* ]]
}

@test "the table names a GPU by the product pci.ids gives in brackets; JSON keeps the whole name" {
	run_split "$HMN" free
	[ "$(awk 'NR > 1 { $1 = $2 = $3 = $4 = $5 = $6 = ""; sub(/^ +/, ""); print }' <<<"$output")" = "AMD Radeon RX 7900 XT
AMD GPU [1002:150e]
Intel Arc B580
Intel Arc A310" ]
	run_split "$HMN" free --json
	[ "$(jq -r '.[0].name' <<<"$output")" = "AMD Navi 31 [Radeon RX 7900 XT/7900 XTX/7900 GRE/7900M]" ]
	# As wide as the rest: no longer the 124 columns of the whole name.
	[ "$("$HMN" free | awk '{ n = length($0) > n ? length($0) : n } END { print n }')" -le 80 ]
}

@test "names: product_name first, then pci.ids, then vendor and ids" {
	echo "AMD Radeon RX 7900 XTX" >"$HMN_SYSFS/devices/pci0000:00/0000:00:01.1/0000:08:00.0/product_name"
	HMN_PCI_IDS=/nonexistent run_split "$HMN" free --json
	[ "$status" -eq 0 ]
	[ "$(jq -c '[.[].name]' <<<"$output")" = '["AMD Radeon RX 7900 XTX","AMD GPU [1002:150e]","Intel GPU [8086:e20b]","Intel GPU [8086:56a6]"]' ]
}

@test "ps --json: every DRM row, exactly" {
	run_split "$HMN" ps --json --sort pid
	[ "$status" -eq 0 ]
	[ "$output" = '[{"pid":1000,"name":"blender","used_bytes":2117632,"shared_used_bytes":8388608,"device_index":0,"device_name":"AMD Navi 31 [Radeon RX 7900 XT/7900 XTX/7900 GRE/7900M]","device_uuid":null,"type":"graphics","user":null,"uid":4201,"path":"/usr/bin/blender","protected":false,"source":"drm","ns_pid":null,"container":null,"mig":null,"mps":false,"ram_bytes":1610612736,"pod_uid":null,"command":["/usr/bin/blender"]},{"pid":1100,"name":"llama-server","used_bytes":5476352,"shared_used_bytes":25864192000,"device_index":1,"device_name":"AMD GPU [1002:150e]","device_uuid":null,"type":"compute","user":null,"uid":4201,"path":"/opt/llama.cpp/bin/llama-server","protected":false,"source":"drm","ns_pid":null,"container":null,"mig":null,"mps":false,"ram_bytes":432013312,"pod_uid":null,"command":["/opt/llama.cpp/bin/llama-server"]},{"pid":1200,"name":"gnome-shell","used_bytes":24567808,"shared_used_bytes":196608,"device_index":2,"device_name":"Intel Battlemage G21 [Arc B580]","device_uuid":null,"type":"graphics","user":null,"uid":4201,"path":"/usr/bin/gnome-shell","protected":false,"source":"drm","ns_pid":null,"container":null,"mig":null,"mps":false,"ram_bytes":268435456,"pod_uid":null,"command":["/usr/bin/gnome-shell"]},{"pid":1300,"name":"ffmpeg","used_bytes":2762895360,"shared_used_bytes":null,"device_index":3,"device_name":"Intel DG2 [Arc A310]","device_uuid":null,"type":"graphics","user":null,"uid":4202,"path":"/usr/bin/ffmpeg","protected":false,"source":"drm","ns_pid":null,"container":null,"mig":null,"mps":false,"ram_bytes":100663296,"pod_uid":null,"command":["/usr/bin/ffmpeg"]},{"pid":1400,"name":"python3.11","used_bytes":1073741824,"shared_used_bytes":67108864,"device_index":0,"device_name":"AMD Navi 31 [Radeon RX 7900 XT/7900 XTX/7900 GRE/7900M]","device_uuid":null,"type":"compute","user":null,"uid":4201,"path":"/usr/bin/python3.11","protected":false,"source":"drm","ns_pid":null,"container":null,"mig":null,"mps":false,"ram_bytes":2147483648,"pod_uid":null,"command":["/usr/bin/python3.11"]},{"pid":1500,"name":"python3.11","used_bytes":536870912,"shared_used_bytes":2097152,"device_index":0,"device_name":"AMD Navi 31 [Radeon RX 7900 XT/7900 XTX/7900 GRE/7900M]","device_uuid":null,"type":"compute","user":null,"uid":4201,"path":"/usr/bin/python3.11","protected":false,"source":"drm","ns_pid":null,"container":null,"mig":null,"mps":false,"ram_bytes":1073741824,"pod_uid":null,"command":["/usr/bin/python3.11"]},{"pid":1501,"name":"python3.11","used_bytes":0,"shared_used_bytes":0,"device_index":0,"device_name":"AMD Navi 31 [Radeon RX 7900 XT/7900 XTX/7900 GRE/7900M]","device_uuid":null,"type":"compute","user":null,"uid":4201,"path":"/usr/bin/python3.11","protected":false,"source":"drm","ns_pid":null,"container":null,"mig":null,"mps":false,"ram_bytes":1073741824,"pod_uid":null,"command":["/usr/bin/python3.11"]},{"pid":1600,"name":"vkcube","used_bytes":67108864,"shared_used_bytes":null,"device_index":0,"device_name":"AMD Navi 31 [Radeon RX 7900 XT/7900 XTX/7900 GRE/7900M]","device_uuid":null,"type":"graphics","user":null,"uid":4203,"path":"/usr/bin/vkcube","protected":false,"source":"drm","ns_pid":null,"container":null,"mig":null,"mps":false,"ram_bytes":50331648,"pod_uid":null,"command":["/usr/bin/vkcube"]}]' ]
	[ "$stderr" = "hmn: 8 GPU processes found (4.2GiB total)." ]
}

@test "the APU: 5 MiB of VRAM, the model's 24 GiB in SHARED" {
	run_split "$HMN" ps --pid 1100
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = " PID  USER  TYPE  VRAM   SHARED     RAM  GPU  NAME" ]
	[ "${lines[1]}" = "1100  4201  C     5MiB  24.1GiB  412MiB    1  llama-server" ]
	[ "$stderr" = "hmn: 1 GPU process found matching pid=1100 (5MiB total)." ]
}

@test "xe: KiB beside MiB on one client, resident only" {
	run_split "$HMN" ps --json --pid 1200
	[ "$(jq -c '.[] | [.used_bytes, .shared_used_bytes]' <<<"$output")" = '[24567808,196608]' ]
}

@test "a dup'ed descriptor counts its client once; a forked child's shared client counts in the parent" {
	run_split "$HMN" ps --json --pid 1400,1500,1501
	[ "$status" -eq 0 ]
	[ "$(jq -c '[.[] | [.pid, .used_bytes]]' <<<"$output")" = '[[1400,1073741824],[1500,536870912],[1501,0]]' ]
	[ "$stderr" = "hmn: 3 GPU processes found matching pid=1400,1500,1501 (1.5GiB total)." ]
}

@test "units change between samples: the same client read in MiB, then KiB" {
	info="$HMN_PROCFS/1600/fdinfo/3"
	sed -i 's/^drm-resident-vram:.*/drm-resident-vram:\t65536 KiB/' "$info"
	run_split "$HMN" ps --json --pid 1600
	[ "$(jq '.[0].used_bytes' <<<"$output")" = 67108864 ]
	sed -i 's/^drm-resident-vram:.*/drm-resident-vram:\t67108864/' "$info"
	run_split "$HMN" ps --json --pid 1600
	[ "$(jq '.[0].used_bytes' <<<"$output")" = 67108864 ]
}

@test "--device picks a DRM GPU by index; NVIDIA's node and processes without a GPU are not listed" {
	run_split "$HMN" ps --json --device 3
	[ "$status" -eq 0 ]
	[ "$(jq -c '[.[].pid]' <<<"$output")" = '[1300]' ]
	run_split "$HMN" ps --json --pid 1700,1800,2
	[ "$output" = '[]' ]
	[ "$stderr" = "hmn: 0 GPU processes found matching pid=1700,1800,2." ]
}

@test "NVIDIA GPUs first, DRM GPUs after them, in one list" {
	unset HMN_BACKENDS
	scenario 'gpu name="NVIDIA H100 80GB HBM3" uuid=GPU-aaaaaaaa-1111-2222-3333-444444444444 pci=00000000:01:00.0 total=85520809984 reserved=502267904 used=1048576'
	run_split "$HMN" free
	[ "$status" -eq 0 ]
	[ "$(awk '{print $1, $6}' <<<"$output" | tr '\n' ' ')" = "GPU SOURCE 0 nvml 1 drm 2 drm 3 drm 4 drm " ]
	run_split "$HMN" ps --json --device 4
	[ "$(jq -c '[.[] | [.pid, .device_index]]' <<<"$output")" = '[[1300,4]]' ]
}

@test "an NVIDIA card that neither NVML nor nvidia-smi can read: said, exit 1, the other GPUs keep their indices" {
	unset HMN_BACKENDS
	export HMN_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1 HMN_NVIDIA_SMI=/nonexistent/nvidia-smi
	run_split "$HMN" free
	echo "# $status: $stderr"
	[ "$status" -eq 1 ]
	# The indices the DRM GPUs have when NVML answers (the test above): 1 to 4, not 0 to 3.
	[ "$(awk '{print $1, $6}' <<<"$output" | tr '\n' ' ')" = "GPU SOURCE 1 drm 2 drm 3 drm 4 drm " ]
	[[ "$stderr" == "hmn: 1 NVIDIA GPU (0000:"*") that no source could read (nvml: "*"; nvidia-smi: "*"): GPU 0 left out" ]]
	run_split "$HMN" ps --json --device 4
	[ "$status" -eq 1 ]
	[ "$(jq -c '[.[] | [.pid, .device_index]]' <<<"$output")" = '[[1300,4]]' ]
	run_split "$HMN" watch --json --count 1
	[ "$status" -eq 1 ]
	[ "$(jq -c '[.gpus[].index]' <<<"$output")" = '[1,2,3,4]' ]
	# --backend drm leaves NVIDIA out by choice: nothing to say.
	run_split "$HMN" free --backend drm
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
}

@test "a broken NVIDIA driver on a machine whose only GPU is NVIDIA's: exit 1, never 'no GPU' (3)" {
	unset HMN_BACKENDS
	# The card alone, as the PCI bus shows it with the driver not loaded: no DRM node.
	rm -rf "$HMN_SYSFS/class" "$HMN_SYSFS/bus/pci/devices/"0000:0[38a]:00.0 "$HMN_SYSFS/bus/pci/devices/0000:c4:00.0" \
		"$HMN_SYSFS/bus/pci/devices/0000:3d:00.0"
	[ "$(ls "$HMN_SYSFS/bus/pci/devices" | tr '\n' ' ')" = "0000:01:00.0 0000:05:00.0 " ]
	# NVML cannot be loaded, nvidia-smi is absent...
	export HMN_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1 HMN_NVIDIA_SMI=/nonexistent/nvidia-smi
	for command in free ps "watch --count 1" "free --need 1GiB"; do
		run_split "$HMN" $command
		[ "$status" -eq 1 ]
		[[ "$stderr" == *"hmn: 1 NVIDIA GPU (0000:01:00.0) that no source could read (nvml: "*"; nvidia-smi: "*"): GPU 0 left out"* ]]
		[[ "$stderr" == *"hmn: no GPU could be read (tried nvml: "* ]]
	done
	# ...or NVML loads but fails to initialise (the driver's module not loaded), nvidia-smi the same.
	export HMN_NVML_LIBRARY="$STUB_MODERN"
	scenario 'init-error 9'
	run_split "$HMN" free --json
	[ "$status" -eq 1 ]
	[ "$output" = "" ]
	[[ "$stderr" == *"1 NVIDIA GPU (0000:01:00.0) that no source could read"* ]]
	# The NVSwitch beside it is NVIDIA's but no GPU: alone, the machine has none (3).
	rm "$HMN_SYSFS/bus/pci/devices/0000:01:00.0"
	run_split "$HMN" free
	[ "$status" -eq 3 ]
	[[ "$stderr" == "hmn: no GPU found (tried nvml: "* ]]
	# --backend drm leaves NVIDIA out by choice.
	ln -s ../../../devices/pci0000:00/0000:00:03.0/0000:01:00.0 "$HMN_SYSFS/bus/pci/devices/0000:01:00.0"
	run_split "$HMN" free --backend drm
	[ "$status" -eq 3 ]
	[[ "$stderr" != *"NVIDIA GPU"* ]]
}

# nvidia_function SLOT [DRIVER]: an NVIDIA 3D controller on the fake PCI bus, bound to DRIVER (none: no driver).
nvidia_function() {
	local dir="$HMN_SYSFS/bus/pci/devices/$1"
	mkdir -p "$dir"
	echo 0x10de >"$dir/vendor"
	echo 0x030200 >"$dir/class"
	[ -z "${2:-}" ] || ln -s "../../../bus/pci/drivers/$2" "$dir/driver"
}

@test "one NVIDIA GPU of three that NVML cannot read (it failed its initialisation): said, exit 1, the others listed" {
	unset HMN_BACKENDS
	rm -rf "$HMN_SYSFS"/*
	# Three GPUs on the bus; NVML lists two (a GPU that failed to initialise is not in its list at all).
	nvidia_function 0000:1b:00.0 nvidia
	nvidia_function 0000:3b:00.0 nvidia
	nvidia_function 0000:5e:00.0
	# One passed through to a virtual machine and a virtual function: not the host driver's to read.
	nvidia_function 0000:86:00.0 vfio-pci
	nvidia_function 0000:af:00.4 nvidia
	ln -s ../0000:5e:00.0 "$HMN_SYSFS/bus/pci/devices/0000:af:00.4/physfn"
	two_gpus
	run_split "$HMN" free --json
	[ "$status" -eq 1 ]
	[ "$(jq -c '[.[].index]' <<<"$output")" = "[0,1]" ]
	[ "$stderr" = "hmn: 1 of the 3 NVIDIA GPUs the system shows (0000:1b:00.0, 0000:3b:00.0, 0000:5e:00.0) no source could read (nvml: read the others): GPU 2 left out" ]
	run_split "$HMN" ps
	[ "$status" -eq 1 ]
	# All read: 0.
	rm -r "$HMN_SYSFS/bus/pci/devices/0000:5e:00.0"
	run_split "$HMN" free
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
}

@test "another user's process: counted as protected, never silently lost" {
	dir=$(mktemp -d)
	cp -a "$HMN_SYSFS" "$HMN_PROCFS" "$dir/"
	chmod 755 "$dir"
	if [ "$(id -u)" -eq 0 ]; then
		as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups)
		chown -R 0:0 "$dir/proc/1600"
		chmod 500 "$dir/proc/1600/fd" "$dir/proc/1600/fdinfo"
		mkdir -p "$dir/proc/2/fd" # a kernel thread: unreadable, and holding nothing
		chmod 500 "$dir/proc/2/fd"
	else
		as_user=()
		mkdir -p "$dir/proc/2/fd"
		chmod 000 "$dir/proc/1600/fd" "$dir/proc/2/fd"
	fi
	HMN_SYSFS="$dir/sys" HMN_PROCFS="$dir/proc" run_split "${as_user[@]}" "$HMN" ps --json -v
	rm -rf "$dir"
	[ "$status" -eq 0 ]
	[ "$(jq -c '[.[].pid] | sort' <<<"$output")" = '[1000,1100,1200,1300,1400,1500,1501]' ]
	[[ "$stderr" == *"drm: 1 processes' descriptors are unreadable without privilege: their GPU memory is not counted"* ]]
	[[ "$stderr" == *"hmn: 7 GPU processes found (4.1GiB total; 1 protected — re-run elevated for names)." ]]
}

@test "an unreadable fdinfo behind a readable descriptor list: protected too" {
	dir=$(mktemp -d)
	cp -a "$HMN_SYSFS" "$HMN_PROCFS" "$dir/"
	chmod 755 "$dir"
	chmod 000 "$dir/proc/1600/fdinfo/3"
	as_user=()
	[ "$(id -u)" -eq 0 ] && as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	HMN_SYSFS="$dir/sys" HMN_PROCFS="$dir/proc" run_split "${as_user[@]}" "$HMN" ps --pid 1600
	rm -rf "$dir"
	[ "$status" -eq 0 ]
	[ "$output" = "PID  USER  TYPE  VRAM  SHARED  RAM  GPU  NAME" ]
	[ "$stderr" = "hmn: 0 GPU processes found matching pid=1600 (1 protected — re-run elevated for names)." ]
}

@test "a sysfs size in 0x-prefixed hex, as older kernels print some, reads as the number it is" {
	xe="$HMN_SYSFS/devices/pci0000:00/0000:00:1c.0/0000:02:00.0/0000:03:00.0"
	echo 0x300000000 >"$xe/tile0/physical_vram_size_bytes"
	run "$HMN" free --json
	[ "$status" -eq 0 ]
	[ "$(jq -c '.[2].total_bytes' <<<"$output")" = 12884901888 ]
	echo 0x >"$xe/tile0/physical_vram_size_bytes"
	run "$HMN" free --json
	[ "$(jq -c '.[2].total_bytes' <<<"$output")" = null ]
}

@test "a GPU that fell off the bus: the others still answer, and the status says it (1)" {
	amd="$HMN_SYSFS/devices/pci0000:00/0000:00:01.1/0000:08:00.0"
	rm "$amd/mem_info_vram_total"
	mkdir "$amd/mem_info_vram_total" # read() now fails with EISDIR, as a dead device's fails with EIO
	run_split "$HMN" free --json
	[ "$status" -eq 1 ]
	[ "$(jq -c '[.[].index]' <<<"$output")" = '[1,2,3]' ]
	[[ "$stderr" == *"drm: GPU 0 (0000:08:00.0): Is a directory"* ]]
}

@test "no AMD or Intel GPU: drm says so, exit 3" {
	rm -rf "$HMN_SYSFS/class/drm/card0" "$HMN_SYSFS/class/drm/card1" "$HMN_SYSFS/class/drm/card2" \
		"$HMN_SYSFS/class/drm/card3"
	run_split "$HMN" free
	[ "$status" -eq 3 ]
	[ "$stderr" = "hmn: no GPU found (tried drm: no AMD or Intel GPU in $HMN_SYSFS/class/drm)" ]
}

@test "a descriptor whose fdinfo has no drm lines still maps to its GPU by its node" {
	printf 'pos:\t0\nflags:\t02\n' >"$HMN_PROCFS/1600/fdinfo/3"
	run_split "$HMN" ps --json --pid 1600
	[ "$(jq -c '.[] | [.pid, .device_index, .used_bytes, .type]' <<<"$output")" = '[1600,0,null,"graphics"]' ]
}

@test "free -l: amdgpu's busy percent, hwmon temperature and power; - where the kernel says nothing" {
	run_split "$HMN" free -l
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == *"RESERVED  UTIL  TEMP  POWER  SOURCE  NAME" ]]
	[[ "${lines[1]}" == *"   37%   41C    71W  drm     AMD Radeon RX 7900 XT" ]]
	[[ "${lines[2]}" == *"    5%   52C    15W  drm     AMD GPU [1002:150e]" ]]
	[[ "${lines[3]}" == *"     -     -      -  drm     Intel Arc B580" ]]
}

@test "Prometheus on AMD and Intel: GTT as the shared families, promtool passes" {
	command -v promtool >/dev/null || skip "promtool (Debian's prometheus) is not installed"
	"$HMN" free --format prometheus >"$BATS_TEST_TMPDIR/free.prom"
	promtool check metrics <"$BATS_TEST_TMPDIR/free.prom"
	grep -q '^hmn_gpu_shared_memory_used_bytes{gpu="1",uuid="",name="AMD GPU \[1002:150e\]",vendor="amd",source="drm"} 25864192000$' "$BATS_TEST_TMPDIR/free.prom"
	grep -q '^hmn_gpu_power_limit_watts{gpu="2",.*source="drm"} 190.000$' "$BATS_TEST_TMPDIR/free.prom"
	"$HMN" ps --format prometheus >"$BATS_TEST_TMPDIR/ps.prom" 2>/dev/null
	promtool check metrics <"$BATS_TEST_TMPDIR/ps.prom"
	grep -q '^hmn_process_gpu_shared_memory_bytes{pid="1100",name="llama-server",' "$BATS_TEST_TMPDIR/ps.prom"
}

@test "watch on AMD and Intel: JSON Lines with their rows, the peaks summed up" {
	run_split "$HMN" watch --count 2 --interval 50ms --json
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 2 ]
	[ "$(jq -c '[.gpus[].source] | unique' <<<"${lines[1]}")" = '["drm"]' ]
	[ "$(jq -c '[.processes[] | select(.pid == 1100) | [.device_index, .shared_used_bytes]]' <<<"${lines[1]}")" = "$(HMN_BACKENDS=drm "$HMN" ps --json 2>/dev/null | jq -c '[.[] | select(.pid == 1100) | [.device_index, .shared_used_bytes]]')" ]
	[ "$(jq -c '[.processes[] | select(.pid == 1100) | .shared_used_bytes > 20000000000] | any' <<<"${lines[1]}")" = true ]
	# xe and i915 say no used figure: their peak is unknown, not 0.
	[[ "$stderr" == "hmn: 2 samples over "*"ms. Peaks:
GPU    PEAK
  0  2.0GiB
  1    5MiB
  2       -
  3       -
 PID  GPU    PEAK  NAME
1300    3  2.6GiB  ffmpeg"* ]]
}
