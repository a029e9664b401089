#!/usr/bin/env bats
# hmn ps against the stand-in NVML, with fake /proc trees and real processes.

load helpers

setup() {
	common_setup
}

teardown() {
	for pid in ${started_pids:-}; do
		kill "$pid" 2>/dev/null || true
	done
	[ -z "${tmux_socket:-}" ] || tmux -L "$tmux_socket" kill-server 2>/dev/null || true
}

# Three processes on two GPUs: python3.11 (C+G on GPU 0, 2 GiB; 3.5 GiB of RAM), a
# long-named trainer (compute on GPU 0 and 1; 812 MiB of RAM; no cmdline file), Xorg
# (graphics, unknown size; its status has no VmRSS line, as a kernel thread's has none: RAM
# unknown); any further scenario lines given are added.
three_processes() {
	two_gpus \
		'proc gpu=0 pid=4242 used=2147483648 list=compute' \
		'proc gpu=0 pid=4242 used=2147483648 list=graphics' \
		'proc gpu=0 pid=777 used=536870912 list=compute' \
		'proc gpu=1 pid=777 used=1073741824 list=compute' \
		'proc gpu=1 pid=1500 used=na list=graphics' "$@"
	fake_process 4242 0 /usr/bin/python3.11 "" 3670016
	fake_process 777 65534 "/opt/train/a-trainer-with-a-very-long-name" a-trainer-with- 831488
	fake_process 1500 0 /usr/lib/xorg/Xorg
	fake_cmdline 4242 python3.11 train.py --epochs 3
	fake_cmdline 1500 /usr/lib/xorg/Xorg :0 -nolisten tcp
}

@test "ps --json gives every field, exactly" {
	three_processes
	run_split "$HMN" ps --json
	[ "$status" -eq 0 ]
	[ "$output" = '[{"pid":4242,"name":"python3.11","used_bytes":2147483648,"shared_used_bytes":null,"device_index":0,"device_name":"NVIDIA H100 80GB HBM3","device_uuid":"GPU-aaaaaaaa-1111-2222-3333-444444444444","type":"compute+graphics","user":"root","uid":0,"path":"/usr/bin/python3.11","protected":false,"source":"nvml","ns_pid":null,"container":null,"mig":null,"mps":false,"ram_bytes":3758096384,"pod_uid":null,"command":["python3.11","train.py","--epochs","3"]},{"pid":777,"name":"a-trainer-with-a-very-long-name","used_bytes":1073741824,"shared_used_bytes":null,"device_index":1,"device_name":"NVIDIA L40S","device_uuid":"GPU-bbbbbbbb-1111-2222-3333-444444444444","type":"compute","user":"nobody","uid":65534,"path":"/opt/train/a-trainer-with-a-very-long-name","protected":false,"source":"nvml","ns_pid":null,"container":null,"mig":null,"mps":false,"ram_bytes":851443712,"pod_uid":null,"command":null},{"pid":777,"name":"a-trainer-with-a-very-long-name","used_bytes":536870912,"shared_used_bytes":null,"device_index":0,"device_name":"NVIDIA H100 80GB HBM3","device_uuid":"GPU-aaaaaaaa-1111-2222-3333-444444444444","type":"compute","user":"nobody","uid":65534,"path":"/opt/train/a-trainer-with-a-very-long-name","protected":false,"source":"nvml","ns_pid":null,"container":null,"mig":null,"mps":false,"ram_bytes":851443712,"pod_uid":null,"command":null},{"pid":1500,"name":"Xorg","used_bytes":null,"shared_used_bytes":null,"device_index":1,"device_name":"NVIDIA L40S","device_uuid":"GPU-bbbbbbbb-1111-2222-3333-444444444444","type":"graphics","user":"root","uid":0,"path":"/usr/lib/xorg/Xorg","protected":false,"source":"nvml","ns_pid":null,"container":null,"mig":null,"mps":false,"ram_bytes":null,"pod_uid":null,"command":["/usr/lib/xorg/Xorg",":0","-nolisten","tcp"]}]' ]
	[ "$stderr" = "hmn: 3 GPU processes found (3.5GiB total)." ]
}

@test "ps table: columns, RAM between SHARED and GPU, name last, unknown VRAM, SHARED and RAM as -" {
	three_processes
	run_split "$HMN" ps
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = " PID  USER    TYPE    VRAM  SHARED     RAM  GPU  NAME" ]
	[ "${lines[1]}" = "4242  root    C+G   2.0GiB       -  3.5GiB    0  python3.11" ]
	[ "${lines[2]}" = " 777  nobody  C     1.0GiB       -  812MiB    1  a-trainer-with-a-very-long-name" ]
	[ "${lines[3]}" = " 777  nobody  C     512MiB       -  812MiB    0  a-trainer-with-a-very-long-name" ]
	[ "${lines[4]}" = "1500  root    G          -       -       -    1  Xorg" ]
	[ "${#lines[@]}" -eq 5 ]
	! grep -q ' $' <<<"$output" || false
}

@test "ps --bytes --no-header" {
	three_processes
	run_split "$HMN" ps --bytes --no-header
	[ "${lines[0]}" = "4242  root    C+G   2147483648       -  3758096384    0  python3.11" ]
	[ "${#lines[@]}" -eq 4 ]
}

@test "ps --sort pid, name, device; ties by pid" {
	three_processes
	run "$HMN" ps --json --sort pid
	[ "$(jq -c '[.[] | [.pid, .device_index]]' <<<"$output")" = "[[777,0],[777,1],[1500,1],[4242,0]]" ]
	run "$HMN" ps --json --sort name
	[ "$(jq -c '[.[].name]' <<<"$output")" = '["Xorg","a-trainer-with-a-very-long-name","a-trainer-with-a-very-long-name","python3.11"]' ]
	run "$HMN" ps --json --sort device
	[ "$(jq -c '[.[] | [.device_index, .pid]]' <<<"$output")" = "[[0,777],[0,4242],[1,777],[1,1500]]" ]
}

@test "summary line: filters named, singular, and zero" {
	three_processes
	run_split "$HMN" ps --pid 777 --device 0
	[ "$status" -eq 0 ]
	[ "$stderr" = "hmn: 1 GPU process found matching pid=777 device=0 (512MiB total)." ]
	run_split "$HMN" ps --json --pid 1,2 --pid 3
	[ "$output" = "[]" ]
	[ "$stderr" = "hmn: 0 GPU processes found matching pid=1,2,3." ]
	scenario 'gpu name=A total=1073741824 used=1'
	run_split "$HMN" ps
	[ "$status" -eq 0 ]
	[ "$output" = "PID  USER  TYPE  VRAM  SHARED  RAM  GPU  NAME" ]
	[ "$stderr" = "hmn: 0 GPU processes found." ]
}

# opened_files ARGS...: the files of processes hmn ARGS opens ("PID/FILE", relative to the
# process table's directory, as it opens them), sorted, on one line.
opened_files() {
	# (LeakSanitizer cannot run under ptrace: the sanitizer build's leak check is off for this one run.)
	ASAN_OPTIONS=detect_leaks=0 strace -f -qq -e trace=open,openat,openat2 -o "$BATS_TEST_TMPDIR/trace" \
		"$HMN" "$@" >"$BATS_TEST_TMPDIR/out" 2>/dev/null
	grep -o '"[0-9][0-9]*/[^"]*"' "$BATS_TEST_TMPDIR/trace" | sort | tr '\n' ' '
}

@test "RAM: VmRSS of the status file ps reads anyway, no other file, and only for the rows the filter keeps" {
	strace -o /dev/null true 2>/dev/null || skip "strace cannot trace here"
	three_processes
	[ "$(opened_files ps --pid 4242)" = '"4242/status" ' ]
	[ "$(opened_files ps --json --pid 4242)" = '"4242/cmdline" "4242/status" ' ]
	[ "$(jq -c '[.[] | [.pid, .ram_bytes]]' "$BATS_TEST_TMPDIR/out")" = '[[4242,3758096384]]' ]
}

@test "the command line is read only where it is shown: JSON, CSV, -l; not the plain table nor Prometheus" {
	strace -o /dev/null true 2>/dev/null || skip "strace cannot trace here"
	three_processes
	for args in "ps" "ps --format prometheus" "ps --no-header --bytes"; do
		[ "$(opened_files $args | grep -o cmdline || true)" = "" ]
	done
	for args in "ps --json" "ps --format csv" "ps -l" "ps --long --no-header"; do
		# Once a process, however many GPUs it is on (777 is on two).
		[ "$(opened_files $args | grep -o '"[0-9]*/cmdline"' | tr '\n' ' ')" = '"1500/cmdline" "4242/cmdline" "777/cmdline" ' ]
	done
}

@test "RAM of a real process: its resident set, as its /proc status says" {
	unset HMN_PROCFS
	python3 -c 'import sys, time
block = b"x" * (64 << 20)  # 64 MiB, every page written
print("ready", flush=True)
time.sleep(300)' >"$BATS_TEST_TMPDIR/ready" &
	holder=$!
	started_pids=$holder
	for _ in $(seq 200); do grep -q ready "$BATS_TEST_TMPDIR/ready" && break; sleep 0.05; done
	two_gpus "proc gpu=0 pid=$holder used=1048576 list=compute"
	run_split "$HMN" ps --json
	[ "$status" -eq 0 ]
	ram=$(jq '.[0].ram_bytes' <<<"$output")
	vmrss=$(awk '/^VmRSS:/ { print $2 * 1024 }' "/proc/$holder/status")
	[ "$ram" -ge $((64 << 20)) ]
	# A sleeping process's resident set does not move: the same figure within 1 MiB.
	diff=$((ram - vmrss))
	[ "${diff#-}" -le $((1 << 20)) ]
	run_split "$HMN" ps --bytes --no-header
	[ "$(awk '{ print $6 }' <<<"$output")" = "$ram" ]
}

@test "usage errors: --pid abc, --sort bogus, --device 9" {
	three_processes
	run_split "$HMN" ps --pid abc
	[ "$status" -eq 2 ]
	[ "$stderr" = "hmn: invalid PID 'abc' in --pid
Try 'hmn ps --help'." ]
	run_split "$HMN" ps --sort bogus
	[ "$status" -eq 2 ]
	[ "${stderr%%$'\n'*}" = "hmn: invalid --sort 'bogus' (expected vram (default), pid, name or device)" ]
	run_split "$HMN" ps --device 9
	[ "$status" -eq 2 ]
	[ "${stderr%%$'\n'*}" = "hmn: --device 9: no such GPU (2 found, indices from 0)" ]
	run_split "$HMN" ps --pid 99999999999
	[ "$status" -eq 2 ]
	# A word of a list that is not a pid, quoted printable: never a raw escape or newline on stderr.
	run_split "$HMN" ps --pid $'12 \e[2J'
	[ "$status" -eq 2 ]
	[ "${stderr%%$'\n'*}" = "hmn: invalid PID '?[2J' in --pid" ]
}

@test "--pid takes lists as pgrep and shells make them; an empty one matches nothing" {
	three_processes
	# pgrep prints one pid a line: two matches are a list, not a usage error.
	run_split "$HMN" ps --json --pid $'777\n4242\n'
	[ "$status" -eq 0 ]
	[ "$(jq -c '[.[] | .pid] | unique' <<<"$output")" = '[777,4242]' ]
	[ "$stderr" = "hmn: 2 GPU processes found matching pid=777,4242 (3.5GiB total)." ]
	run_split "$HMN" ps --json --pid ' 777	1500 ,,4242 '
	[ "$status" -eq 0 ]
	[ "$(jq -c '[.[] | .pid] | unique' <<<"$output")" = '[777,1500,4242]' ]
	# pgrep found nothing: "$(pgrep x)" is empty, and so is what is listed (exit 0), so
	# `hmn ps --pid "$(pgrep x)" --no-header | awk ... | xargs -r kill` kills nothing.
	for empty in '' ' ' $'\n'; do
		run_split "$HMN" ps --pid "$empty" --no-header
		[ "$status" -eq 0 ]
		[ "$output" = "" ]
		[ "$stderr" = "hmn: 0 GPU processes found matching pid=none." ]
	done
	run_split "$HMN" ps --json --pid ''
	[ "$output" = "[]" ]
	# An empty list beside a pid: the pid's rows.
	run_split "$HMN" ps --json --pid '' --pid 1500
	[ "$(jq -c '[.[] | .pid]' <<<"$output")" = '[1500]' ]
	# --device lists stay comma lists: an empty item there is still a mistake.
	run_split "$HMN" ps --device 0,,1
	[ "$status" -eq 2 ]
}

@test "on the host, a process in a container shows its pid inside and its container" {
	two_gpus 'proc gpu=0 pid=31000 used=1048576' 'proc gpu=1 pid=31001 used=1048576' 'proc gpu=1 pid=31002 used=1048576'
	fake_process 31000 1000 /usr/bin/python3
	printf 'NSpid:\t31000\t7\n' >>"$HMN_PROCFS/31000/status"
	echo '0::/system.slice/docker-4f1e0cbd2a7d93b1c4e2f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6.scope' >"$HMN_PROCFS/31000/cgroup"
	fake_process 31001 0 /usr/bin/trainer
	printf 'NSpid:\t31001\t1\n' >>"$HMN_PROCFS/31001/status"
	echo '0::/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod1a2b.slice/cri-containerd-9f8e7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a39281706f5e4d3c2b1a0.scope' >"$HMN_PROCFS/31001/cgroup"
	fake_process 31002 0 /usr/bin/on-the-host
	printf 'NSpid:\t31002\n' >>"$HMN_PROCFS/31002/status"
	echo '0::/user.slice/user-0.slice/session-1.scope' >"$HMN_PROCFS/31002/cgroup"
	run_split "$HMN" ps --json --sort pid
	[ "$status" -eq 0 ]
	[ "$(jq -c '[.[] | [.pid, .ns_pid, .container]]' <<<"$output")" = '[[31000,7,"docker:4f1e0cbd2a7d"],[31001,1,"kubernetes:9f8e7d6c5b4a"],[31002,null,null]]' ]
}

@test "in a container, the host's PIDs keep their rows; -v says why they have no name" {
	two_gpus 'proc gpu=0 pid=424242 used=1048576'
	run_split "$HMN" ps --json -v
	[ "$status" -eq 0 ]
	[ "$(jq -c '.[0] | [.pid, .name, .ns_pid]' <<<"$output")" = '[424242,null,null]' ]
	[[ "$stderr" == *"pid 424242: not in $HMN_PROCFS (exited, or in another PID namespace)"* ]]
}

@test "a process that exited keeps its row with name null" {
	two_gpus 'proc gpu=0 pid=31337 used=1048576 list=compute'
	run_split "$HMN" ps --json
	[ "$status" -eq 0 ]
	[ "$(jq -c '.[0] | [.pid, .name, .user, .uid, .path, .protected]' <<<"$output")" = '[31337,null,null,null,null,false]' ]
	[ "$stderr" = "hmn: 1 GPU process found (1MiB total)." ]
	run_split "$HMN" ps --no-header
	[ "$output" = "31337  ?     C     1MiB       -    -    0  ?" ]
}

@test "hundreds of processes across GPUs, through INSUFFICIENT_SIZE" {
	two_gpus \
		'procs gpu=0 list=compute first=200000 count=300 used=1048576' \
		'procs gpu=1 list=graphics first=300000 count=250 used=2097152' \
		'grow gpu=0 list=compute by=400 times=1'
	run_split "$HMN" ps --json
	[ "$status" -eq 0 ]
	[ "$(jq length <<<"$output")" -eq 950 ]
	[ "$(jq '[.[].pid] | unique | length' <<<"$output")" -eq 950 ]
	[ "$stderr" = "hmn: 950 GPU processes found (1.2GiB total)." ]
}

@test "pre-R510 and legacy drivers list the same processes" {
	three_processes
	want=$("$HMN" ps --json 2>/dev/null | jq -c '[.[] | [.pid, .device_index, .used_bytes, .type]]')
	HMN_NVML_LIBRARY="$STUB_PRE_R510" run "$HMN" ps --json
	[ "$(jq -c '[.[] | [.pid, .device_index, .used_bytes, .type]]' <<<"$output")" = "$want" ]
}

@test "real processes: names from /proc/PID/exe, terminal-safe in the table, escaped in JSON" {
	unset HMN_PROCFS
	bin="$BATS_TEST_TMPDIR/bin"
	mkdir -p "$bin"
	evil=$'evil\e[31m\nname'
	cp "$(command -v sleep)" "$bin/$evil"
	cp "$(command -v sleep)" "$bin/a-long-process-name-beyond-15"
	"$bin/$evil" 300 &
	evil_pid=$!
	"$bin/a-long-process-name-beyond-15" 300 &
	long_pid=$!
	started_pids="$evil_pid $long_pid"
	# Until exec is done the child is still a copy of bats: wait for it (a loaded machine is slow).
	wait_for_exec "$evil_pid" "$bin/$evil"
	wait_for_exec "$long_pid" "$bin/a-long-process-name-beyond-15"
	two_gpus "proc gpu=0 pid=$evil_pid used=1048576 list=compute" \
		"proc gpu=1 pid=$long_pid used=2097152 list=graphics"

	run_split "$HMN" ps --json
	[ "$status" -eq 0 ]
	[ "$(jq -r --argjson p "$evil_pid" '.[] | select(.pid == $p) | .name' <<<"$output")" = "$evil" ]
	[[ "$output" == *'"name":"evil\u001b[31m\nname"'* ]]
	[ "$(jq -r --argjson p "$long_pid" '.[] | select(.pid == $p) | .name' <<<"$output")" = "a-long-process-name-beyond-15" ]
	[ "$(jq -r --argjson p "$long_pid" '.[] | select(.pid == $p) | .uid' <<<"$output")" = "$(id -u)" ]
	[ "$(jq -r --argjson p "$long_pid" '.[] | select(.pid == $p) | .path' <<<"$output")" = "$bin/a-long-process-name-beyond-15" ]

	run_split "$HMN" ps --no-header
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 2 ]
	[[ "${lines[1]}" == *"  evil?[31m?name" ]]
	! grep -q $'\e' <<<"$output" || false
}

@test "the jq | xargs kill recipe kills exactly the right process" {
	unset HMN_PROCFS
	sleep 300 &
	big=$!
	sleep 300 &
	small=$!
	started_pids="$big $small"
	two_gpus "proc gpu=0 pid=$big used=2147483648 list=compute" \
		"proc gpu=1 pid=$small used=104857600 list=compute"
	"$HMN" ps --json | jq -r '.[] | select(.used_bytes > 1073741824) | .pid' | xargs -r kill
	wait "$big" 2>/dev/null || true
	! kill -0 "$big" 2>/dev/null || false
	kill -0 "$small"
}

# two_owners NAME: a fake /proc in a folder of /tmp another user can read (set $dir), root's pid
# 4242 and nobody's 555 on GPU 0: for the tests that drop to nobody to lack permission.
two_owners() {
	dir=$(mktemp -d "/tmp/hmn-$1.XXXXXX")
	chmod 755 "$dir"
	export HMN_PROCFS="$dir/proc" HMN_STUB_SCENARIO="$dir/scenario"
	mkdir -p "$HMN_PROCFS"
	two_gpus 'proc gpu=0 pid=4242 used=1048576' 'proc gpu=0 pid=555 used=1048576'
	chmod 644 "$HMN_STUB_SCENARIO"
	fake_process 4242 0 /usr/bin/secret "" 1024
	fake_process 555 65534 /usr/bin/open "" 2048
}

@test "a process whose details are unreadable is protected, and counted" {
	# The reader must lack permission: drop to nobody when we are root.
	two_owners protected
	chmod 600 "$HMN_PROCFS/4242/status" "$HMN_PROCFS/4242/comm"
	rm "$HMN_PROCFS/4242/exe"
	if [ "$(id -u)" -eq 0 ]; then
		as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	else
		as_user=()
		chmod 000 "$HMN_PROCFS/4242/status" "$HMN_PROCFS/4242/comm"
	fi
	run_split "${as_user[@]}" "$HMN" ps --json
	rm -rf "$dir"
	[ "$status" -eq 0 ]
	[ "$(jq -c '.[] | select(.pid == 4242) | [.name, .uid, .protected, .ram_bytes]' <<<"$output")" = '[null,null,true,null]' ]
	[ "$(jq -c '.[] | select(.pid == 555) | [.name, .uid, .protected, .ram_bytes]' <<<"$output")" = '["open",65534,false,2097152]' ]
	[ "$stderr" = "hmn: 2 GPU processes found (2MiB total; 1 protected — re-run elevated for names)." ]
}

@test "a closed pipe ends quietly" {
	two_gpus 'procs gpu=0 list=compute first=100000 count=5000 used=1048576'
	run bash -c 'set -o pipefail; "$HMN" ps --no-header 2>"$BATS_TEST_TMPDIR/err" | head -1'
	[ "$(wc -l <<<"$output")" -eq 1 ]
	[ ! -s "$BATS_TEST_TMPDIR/err" ]
}

@test "ps output that cannot be written: exit 1" {
	three_processes
	run bash -c '"$HMN" ps --json >/dev/full'
	[ "$status" -eq 1 ]
	[[ "$output" == "hmn: cannot write output: No space left on device" ]]
}

@test "ps and free on a narrow terminal: NAME cut with … to the window, never wrapped; a pipe gets it whole" {
	command -v tmux >/dev/null || skip "tmux is not installed"
	three_processes
	printf '%s\n' "$("$HMN" ps 2>/dev/null)" >"$BATS_TEST_TMPDIR/whole"
	grep -q 'a-trainer-with-a-very-long-name$' "$BATS_TEST_TMPDIR/whole"
	tmux_pane 56 20 "'$HMN' ps 2>/dev/null; '$HMN' free 2>/dev/null; echo DONE; sleep 30"
	tmux_view_until_done
	sed 's/^/# /' <<<"$view" >&3
	# One screen line a row: as many lines as the whole tables have, none over 56 columns.
	[ "$(grep -c '' <<<"$view")" -ge 9 ]
	while IFS= read -r line; do [ "${#line}" -le 56 ]; done <<<"$view"
	grep -qx ' 777  nobody  C     512MiB       -  812MiB    0  a-trai…' <<<"$view"
	grep -qx '  0  19.4GiB  59.8GiB  79.6GiB    479MiB  nvml    NVIDI…' <<<"$view"
	grep -qx '1500  root    G          -       -       -    1  Xorg' <<<"$view"
	grep -q '^ PID  USER    TYPE    VRAM  SHARED     RAM  GPU  NAME$' <<<"$view"
}

@test "ps and free in 50 columns: a line the other columns already fill is cut at the edge, never wrapped" {
	command -v tmux >/dev/null || skip "tmux is not installed"
	# 49 columns before NAME in ps, 50 in free: NAME has no room for "x…" in either.
	# A narrower table (ps --pid 888) leaves NAME 9 columns: cut by display width.
	three_processes 'proc gpu=0 pid=888 used=1048576 list=compute'
	fake_process 888 0 /usr/bin/x训练模型训练模型
	tmux_pane 50 24 "'$HMN' ps --pid 4242,777,1500 2>/dev/null; '$HMN' free 2>/dev/null; '$HMN' free -l 2>/dev/null; \
		 '$HMN' ps --pid 888 2>/dev/null; echo DONE; sleep 30"
	tmux_view_until_done
	sed 's/^/# /' <<<"$view" >&3
	# One screen line a row (5 + 3 + 3 + 2, and DONE), none over 50 columns.
	[ "$(grep -c . <<<"$view")" -eq 14 ]
	sed 's/…/./g; s/训/../g; s/练/../g; s/模/../g; s/型/../g' <<<"$view" | awk 'length($0) > 50 { exit 1 }'
	grep -qx ' PID  USER    TYPE    VRAM  SHARED     RAM  GPU  …' <<<"$view"
	grep -qx ' 777  nobody  C     512MiB       -  812MiB    0  …' <<<"$view"
	grep -qx 'GPU     USED     FREE    TOTAL  RESERVED  SOURCE …' <<<"$view"
	grep -qx '  0  19.4GiB  59.8GiB  79.6GiB    479MiB  nvml   …' <<<"$view"
	# -l: wider still; the columns past the edge are cut, the figures before it whole.
	grep -qx '  0  19.4GiB  59.8GiB  79.6GiB    479MiB     -   …' <<<"$view"
	# Display columns, not bytes or code points: "x", three wide characters (the fourth would
	# straddle the column of the "…") and the "…": 49 columns.
	grep -qx '888  root  C     1MiB       -    -    0  x训练模…' <<<"$view"
}

@test "command: the argument vector in JSON, the line a shell would take in CSV and ps -l, last; null and ? where none" {
	three_processes
	run_split "$HMN" ps --json
	[ "$status" -eq 0 ]
	[ "$(jq -c '[.[] | [.pid, .command]] | unique' <<<"$output")" = '[[777,null],[1500,["/usr/lib/xorg/Xorg",":0","-nolisten","tcp"]],[4242,["python3.11","train.py","--epochs","3"]]]' ]
	# The last key of each row.
	[ "$(jq -c '[.[] | keys_unsorted | last] | unique' <<<"$output")" = '["command"]' ]
	run_split "$HMN" ps --format csv
	[ "$status" -eq 0 ]
	csv=$(tr -d '\r' <<<"$output")
	[ "$(head -1 <<<"$csv")" = "pid,name,used_bytes,shared_used_bytes,device_index,device_name,device_uuid,type,user,uid,path,protected,source,ns_pid,container,mps,ram_bytes,pod_uid,command" ]
	[ "$(sed -n 2p <<<"$csv")" = "4242,python3.11,2147483648,,0,NVIDIA H100 80GB HBM3,GPU-aaaaaaaa-1111-2222-3333-444444444444,compute+graphics,root,0,/usr/bin/python3.11,false,nvml,,,false,3758096384,,python3.11 train.py --epochs 3" ]
	[ "$(sed -n 3p <<<"$csv")" = "777,a-trainer-with-a-very-long-name,1073741824,,1,NVIDIA L40S,GPU-bbbbbbbb-1111-2222-3333-444444444444,compute,nobody,65534,/opt/train/a-trainer-with-a-very-long-name,false,nvml,,,false,851443712,," ]
	[ "$(sed -n 5p <<<"$csv")" = "1500,Xorg,,,1,NVIDIA L40S,GPU-bbbbbbbb-1111-2222-3333-444444444444,graphics,root,0,/usr/lib/xorg/Xorg,false,nvml,,,false,,,/usr/lib/xorg/Xorg :0 -nolisten tcp" ]
	run_split "$HMN" ps -l
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = " PID  USER    TYPE    VRAM  SHARED     RAM  GPU  NAME                             COMMAND" ]
	[ "${lines[1]}" = "4242  root    C+G   2.0GiB       -  3.5GiB    0  python3.11                       python3.11 train.py --epochs 3" ]
	[ "${lines[2]}" = " 777  nobody  C     1.0GiB       -  812MiB    1  a-trainer-with-a-very-long-name  ?" ]
	[ "${lines[4]}" = "1500  root    G          -       -       -    1  Xorg                             /usr/lib/xorg/Xorg :0 -nolisten tcp" ]
	[ "$stderr" = "hmn: 3 GPU processes found (3.5GiB total)." ]
	# Without -l, the table as it was.
	run_split "$HMN" ps
	[ "${lines[0]}" = " PID  USER    TYPE    VRAM  SHARED     RAM  GPU  NAME" ]
}

@test "command: hostile argv (escapes, newline, invalid UTF-8, 100 KB) bounded to 4 KiB, terminal-safe, escaped in JSON" {
	two_gpus 'proc gpu=0 pid=5001 used=1048576' 'proc gpu=0 pid=5002 used=1048576' 'proc gpu=0 pid=5003 used=1048576' \
		'proc gpu=0 pid=5004 used=1048576' 'proc gpu=0 pid=5005 used=1048576' 'proc gpu=0 pid=5006 used=1048576'
	for pid in 5001 5002 5003 5004 5005 5006; do fake_process "$pid" 0 /usr/bin/python3; done
	fake_cmdline 5001 $'evil\e[31m\e]0;title\a' $'two\nlines' $'bad\xff\xfeutf8' "it's" "" 'a,"b"'
	# 100 KB: the words that fit whole in 4 KiB, then what fits of the next.
	fake_cmdline 5002 python3 -c $(seq 1 20000)
	# One word of 50,000 two-byte characters: cut at 4 KiB, never inside a character.
	fake_cmdline 5003 python3 -c "$(printf 'é%.0s' $(seq 1 50000))"
	# An argv rewritten in place (setproctitle), NUL-padded as postgres pads it: one word.
	printf 'postgres: writer\0\0\0\0\0\0\0\0\0\0\0\0' >"$HMN_PROCFS/5004/cmdline"
	# A kernel thread's cmdline is empty; 5006 has none at all.
	: >"$HMN_PROCFS/5005/cmdline"

	run_split "$HMN" ps --json --sort pid
	[ "$status" -eq 0 ]
	[[ "$output" == *'"command":["evil\u001b[31m\u001b]0;title\u0007","two\nlines","bad'$'\xef\xbf\xbd\xef\xbf\xbd''utf8","it'"'"'s","","a,\"b\""]'* ]]
	[ "$(jq -r '.[] | select(.pid == 5002) | .command | join(" ")' <<<"$output")" = "$(head -c 4096 "$HMN_PROCFS/5002/cmdline" | tr '\0' ' ' | sed 's/ $//')" ]
	[ "$(jq -r '.[] | select(.pid == 5002) | .command | map(length + 1) | add' <<<"$output")" -le 4097 ]
	[ "$(jq -r '.[] | select(.pid == 5003) | .command[2] | length' <<<"$output")" -eq 2042 ]
	[[ "$output" != *'\ufffd'* && "$(jq -r '.[] | select(.pid == 5003) | .command[2]' <<<"$output")" != *$'\xef\xbf\xbd'* ]]
	[ "$(jq -c '[.[] | select(.pid >= 5004) | .command]' <<<"$output")" = '[["postgres: writer"],null,null]' ]

	run_split "$HMN" ps -l --sort pid
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 7 ]
	[[ "${lines[1]}" == *"  python3  'evil?[31m?]0;title?' 'two?lines' 'bad??utf8' 'it'\\''s' '' 'a,\"b\"'" ]]
	! grep -q $'\e' <<<"$output" || false
	[[ "${lines[2]}" == *"  python3  python3 -c 1 2 3 "* ]]
	[[ "${lines[4]}" == *"  python3  'postgres: writer'" ]]
	[[ "${lines[5]}" == *"  python3  ?" && "${lines[6]}" == *"  python3  ?" ]]

	run_split "$HMN" ps --format csv --sort pid
	[ "$status" -eq 0 ]
	csv=$(tr -d '\r' <<<"$output")
	[ "$(wc -l <<<"$csv")" -eq 7 ]
	[ "$(sed -n 2p <<<"$csv" | sed 's/^.*,,,//')" = "\"'evil?[31m?]0;title?' 'two?lines' 'bad??utf8' 'it'\\''s' '' 'a,\"\"b\"\"'\"" ]
	[ "$(sed -n 5p <<<"$csv" | sed 's/^.*,,,//')" = "'postgres: writer'" ]
	[[ "$(sed -n 6p <<<"$csv")" == *,,, ]]
	! grep -q $'\e' <<<"$output" || false
}

@test "command: null where the cmdline cannot be read (another user's, hidepid)" {
	two_owners cmdline
	fake_cmdline 4242 secret --token=hunter2
	fake_cmdline 555 open file
	chmod 600 "$HMN_PROCFS/4242/cmdline"
	if [ "$(id -u)" -eq 0 ]; then
		as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	else
		as_user=()
		chmod 000 "$HMN_PROCFS/4242/cmdline"
	fi
	run_split "${as_user[@]}" "$HMN" ps --json --sort pid
	rm -rf "$dir"
	[ "$status" -eq 0 ]
	[ "$(jq -c '[.[] | [.pid, .name, .command]]' <<<"$output")" = '[[555,"open",["open","file"]],[4242,"secret",null]]' ]
}

@test "ps -l on a narrow terminal: COMMAND, last, cut with … at the window's edge; NAME whole" {
	command -v tmux >/dev/null || skip "tmux is not installed"
	three_processes
	# 82 columns before COMMAND: 17 of it, and the "…", in 100.
	tmux_pane 100 10 "'$HMN' ps -l 2>/dev/null; echo DONE; sleep 30"
	tmux_view_until_done
	sed 's/^/# /' <<<"$view" >&3
	[ "$(grep -c . <<<"$view")" -eq 6 ]
	while IFS= read -r line; do [ "${#line}" -le 100 ]; done <<<"$view"
	grep -qx ' PID  USER    TYPE    VRAM  SHARED     RAM  GPU  NAME                             COMMAND' <<<"$view"
	grep -qx '4242  root    C+G   2.0GiB       -  3.5GiB    0  python3.11                       python3.11 train.…' <<<"$view"
	grep -qx '1500  root    G          -       -       -    1  Xorg                             /usr/lib/xorg/Xor…' <<<"$view"
	grep -qx ' 777  nobody  C     1.0GiB       -  812MiB    1  a-trainer-with-a-very-long-name  ?' <<<"$view"
}
