# Shared by the bats suites: a stand-in NVML with a scenario, and fake /proc trees.
# $HMN, $STUB_MODERN, $STUB_PRE_R510, $STUB_LEGACY and $TESTS_DIR come from meson.

common_setup() {
	# The stand-in nvidia-smi fails as on a machine with no driver unless a
	# test gives it answers: so no test depends on a real one being there.
	export HMN_FAKE_SMI_DIR="$BATS_TEST_TMPDIR/smi"
	export HMN_NVIDIA_SMI="$TESTS_DIR/stub/nvidia-smi"
	mkdir -p "$HMN_FAKE_SMI_DIR"
	echo nodriver >"$HMN_FAKE_SMI_DIR/mode"
	export HMN_NVML_LIBRARY="$STUB_MODERN"
	export HMN_STUB_SCENARIO="$BATS_TEST_TMPDIR/scenario"
	export HMN_PROCFS="$BATS_TEST_TMPDIR/proc"
	# An empty sysfs: no AMD or Intel GPU unless a test lays one out.
	export HMN_SYSFS="$BATS_TEST_TMPDIR/sys"
	export HMN_PCI_IDS="$TESTS_DIR/fixtures/drm/pci.ids"
	# --pick's lock: the test's own, never the machine's.
	export HMN_PICK_LOCK="$BATS_TEST_TMPDIR/pick.lock"
	unset HMN_BACKENDS HMN_STUB_TRACE HMN_TIMEOUT
	mkdir -p "$HMN_PROCFS" "$HMN_SYSFS"
	: >"$HMN_STUB_SCENARIO"
}

# scenario LINE... : writes the stand-in's scenario file.
scenario() {
	printf '%s\n' "$@" >"$HMN_STUB_SCENARIO"
}

# Two GPUs as an H100 and an L40S report them (figures from real recordings).
two_gpus() {
	scenario \
		'driver 550.54.15' \
		'gpu name="NVIDIA H100 80GB HBM3" uuid=GPU-aaaaaaaa-1111-2222-3333-444444444444 pci=00000000:1B:00.0 total=85520809984 reserved=502267904 used=20780679168' \
		'gpu name="NVIDIA L40S" uuid=GPU-bbbbbbbb-1111-2222-3333-444444444444 pci=00000000:3B:00.0 total=48305799168 reserved=0 used=1048576' \
		"$@"
}

# fake_process PID UID EXE [NAME-IN-STATUS [VMRSS-KB]]: a /proc/PID entry in the fake
# tree ("" for NAME: the EXE's); with VMRSS-KB its status has a VmRSS line, as a process's
# (not a kernel thread's) has, below Groups and the VmPeak lines, as the kernel orders them.
fake_process() {
	local dir="$HMN_PROCFS/$1"
	mkdir -p "$dir"
	printf 'Name:\t%s\nUmask:\t0022\nState:\tS (sleeping)\nPid:\t%s\nUid:\t%s\t%s\t%s\t%s\n' \
		"${4:-$(basename "$3")}" "$1" "$2" "$2" "$2" "$2" >"$dir/status"
	if [ -n "${5:-}" ]; then
		printf 'Groups:\t4 24 27 30\nVmPeak:\t%s kB\nVmSize:\t%s kB\nVmHWM:\t%s kB\nVmRSS:\t%8s kB\nRssAnon:\t%s kB\n' \
			"$5" "$5" "$5" "$5" "$5" >>"$dir/status"
	fi
	printf '%s\n' "${4:-$(basename "$3" | cut -c1-15)}" >"$dir/comm"
	ln -s "$3" "$dir/exe"
}

# fake_cmdline PID WORD...: PID's argument vector, as /proc/PID/cmdline has it (each word NUL-terminated).
fake_cmdline() {
	local pid=$1
	shift
	printf '%s\0' "$@" >"$HMN_PROCFS/$pid/cmdline"
}

# in_container PID CGROUP-TEXT: PID is in a nested PID namespace (pid 1 inside), with that cgroup file.
in_container() {
	printf 'NSpid:\t%s\t1\n' "$1" >>"$HMN_PROCFS/$1/status"
	printf '%s' "$2" >"$HMN_PROCFS/$1/cgroup"
}

# run_split CMD...: like bats' run, with stdout in $output and stderr in $stderr.
bats_require_minimum_version 1.5.0
run_split() {
	run --separate-stderr "$@"
}

# smi_answers GPUS-CSV [APPS-CSV] [MODE]: what the stand-in nvidia-smi replays.
smi_answers() {
	printf '%s\n' "$1" >"$HMN_FAKE_SMI_DIR/gpus.csv"
	if [ -n "${2:-}" ]; then printf '%s\n' "$2" >"$HMN_FAKE_SMI_DIR/apps.csv"; fi
	printf '%s\n' "${3:-}" >"$HMN_FAKE_SMI_DIR/mode"
}

no_driver_message="NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running. (exit 9)"

# wait_for_exec PID PATH: until the background child PID has exec'd PATH (5 s at most).
wait_for_exec() {
	for _ in $(seq 100); do
		[ "$(readlink "/proc/$1/exe" 2>/dev/null)" = "$2" ] && return 0
		sleep 0.05
	done
	return 1
}

# tmux_pane COLUMNS ROWS LINE: a shell LINE in a detached tmux pane of that size, which stays
# once LINE ends; $tmux_socket names the server (teardown kills it).
tmux_pane() {
	tmux_socket="hmn-$$-$BATS_TEST_NUMBER"
	printf 'set -g remain-on-exit on\nset -g default-shell /bin/sh\n' >"$BATS_TEST_TMPDIR/tmux.conf"
	tmux -L "$tmux_socket" -f "$BATS_TEST_TMPDIR/tmux.conf" new-session -d -x "$1" -y "$2" -s w "$3"
}

# tmux_view_until_done: the pane's text in $view once a line DONE shows (10 s at most).
tmux_view_until_done() {
	for _ in $(seq 100); do
		view=$(tmux -L "$tmux_socket" capture-pane -p -t w)
		grep -q '^DONE$' <<<"$view" && return 0
		sleep 0.1
	done
}
