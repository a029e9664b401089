#!/usr/bin/env bats
# --pick N: which GPUs a job should use. hmn free --need SIZE --pick N prints them;
# hmn run --need SIZE --pick N -- COMMAND starts COMMAND on them, under a lock every
# launch on the machine shares ($HMN_PICK_LOCK here, so that no test touches the real one).

load helpers

H100=GPU-aaaaaaaa-1111-2222-3333-444444444444
L40S=GPU-bbbbbbbb-1111-2222-3333-444444444444

setup() {
	common_setup
	export HMN_PICK_LOCK="$BATS_TEST_TMPDIR/pick.lock"
	# hmn run measures real trees: the real /proc, and the stand-in reads its scenario again as it changes.
	export HMN_STUB_WATCH=1 HMN_PROCFS=/proc
	hold="$TESTS_DIR/e2e/gpu-hold"
	# The H100 has 59.8GiB free, the L40S 45.0GiB.
	two_gpus
	started_pids=
}

teardown() {
	for pid in $started_pids; do
		kill "$pid" 2>/dev/null || true
	done
	wait 2>/dev/null || true
}

# holds: the lock file's GPUs, one a line.
holds() {
	cut -d' ' -f1 "$HMN_PICK_LOCK" 2>/dev/null || true
}

@test "free --need SIZE --pick N: one line of UUIDs, most free first; exit 4 and nothing on stdout when too few have room" {
	run_split "$HMN" free --need 40GiB --pick 2
	[ "$status" -eq 0 ]
	[ "$output" = "$H100,$L40S" ]
	[ -z "$stderr" ]
	run_split "$HMN" free --need 40GiB --pick 1
	[ "$output" = "$H100" ]
	# N% is of each GPU's own total: 90% of the L40S is free, not of the H100.
	run_split "$HMN" free --need 90% --pick 1
	[ "$output" = "$L40S" ]
	run_split "$HMN" free --need 50GiB --pick 2
	[ "$status" -eq 4 ]
	[ -z "$output" ]
	[ "$stderr" = "hmn: --pick 2: only 1 GPU has 50.0GiB free (most of the rest: GPU 1, 45.0GiB)" ]
	run_split "$HMN" free --need 70GiB --pick 1
	[ "$status" -eq 4 ]
	[ "$stderr" = "hmn: --pick 1: no GPU has 70.0GiB free (most of the rest: GPU 0, 59.8GiB)" ]
	run_split "$HMN" free --need 70GiB --pick 1 -q
	[ "$status" -eq 4 ] && [ -z "$output" ] && [ -z "$stderr" ]
	# --device chooses among the GPUs; the habit it is for:
	run_split "$HMN" free --need 1GiB --pick 1 --device 1
	[ "$output" = "$L40S" ]
	run_split bash -c 'CUDA_VISIBLE_DEVICES=$("$HMN" free --need 40GiB --pick 1) && echo "$CUDA_VISIBLE_DEVICES"'
	[ "$output" = "$H100" ]
	# -o FILE gets the line, atomically.
	run_split "$HMN" free --need 1GiB --pick 2 -o "$BATS_TEST_TMPDIR/picked"
	[ "$status" -eq 0 ] && [ -z "$output" ]
	[ "$(cat "$BATS_TEST_TMPDIR/picked")" = "$H100,$L40S" ]
}

@test "--pick: usage errors" {
	run_split "$HMN" free --pick 1
	[ "$status" -eq 2 ]
	[ "${stderr%%$'\n'*}" = "hmn: --pick N needs --need SIZE: the free memory each picked GPU must have" ]
	run_split "$HMN" free --need 1GiB --pick 0
	[ "$status" -eq 2 ]
	run_split "$HMN" free --need 1GiB --pick 1 --json
	[ "$status" -eq 2 ]
	run_split "$HMN" run --need 1GiB -- true
	[ "$status" -eq 125 ]
	[ "${stderr%%$'\n'*}" = "hmn: --need on hmn run goes with --pick N: the GPUs COMMAND is started on" ]
	run_split "$HMN" run --hold 5s -- true
	[ "$status" -eq 125 ]
	run_split "$HMN" run --need 1GiB --pick 1 --hold 2h -- true
	[ "$status" -eq 125 ]
	run_split "$HMN" run --need 1GiB --pick 1 --device 7 -- touch "$BATS_TEST_TMPDIR/ran"
	[ "$status" -eq 125 ]
	[ ! -e "$BATS_TEST_TMPDIR/ran" ]
	# The lock's variable names one file for every launch: never one relative to where each runs.
	HMN_PICK_LOCK=pick.lock run_split "$HMN" free --need 1GiB --pick 1
	[ "$status" -eq 2 ]
	[ "${stderr%%$'\n'*}" = "hmn: HMN_PICK_LOCK: 'pick.lock' is not an absolute path (launches elsewhere would not share it)" ]
	HMN_PICK_LOCK=pick.lock run_split "$HMN" run --need 1GiB --pick 1 -- touch "$BATS_TEST_TMPDIR/ran"
	[ "$status" -eq 125 ]
	[ ! -e "$BATS_TEST_TMPDIR/ran" ]
}

@test "run --pick: COMMAND gets CUDA_VISIBLE_DEVICES, the report names the picks; exit 4 means COMMAND never started" {
	run_split "$HMN" run --need 40GiB --pick 2 --json -- sh -c 'echo "$CUDA_VISIBLE_DEVICES"'
	[ "$status" -eq 0 ]
	[ "$output" = "$H100,$L40S" ]
	[ "$(jq -c .picked <<<"$stderr")" = "[\"$H100\",\"$L40S\"]" ]
	# Measured on the picks alone.
	run_split "$HMN" run --need 50GiB --pick 1 --json -- sh -c 'echo "$CUDA_VISIBLE_DEVICES"'
	[ "$output" = "$H100" ]
	[ "$(jq -c '[.devices[].uuid]' <<<"$stderr")" = "[\"$H100\"]" ]
	run_split "$HMN" run --need 50GiB --pick 1 -- true
	[[ "$stderr" == *"; picked $H100." ]]
	# One NVML initialisation; the GPUs read twice (the sources opened before the lock, then again
	# under it), and that second reading is the run's baseline: never a third.
	export HMN_STUB_TRACE="$BATS_TEST_TMPDIR/trace"
	run_split "$HMN" run -q --need 50GiB --pick 1 -- true
	[ "$(grep -c '^nvmlInit' "$HMN_STUB_TRACE")" -eq 1 ]
	[ "$(sed -n 's/^calls nvmlDeviceGetMemoryInfo_v2 //p' "$HMN_STUB_TRACE")" -eq 4 ]
	unset HMN_STUB_TRACE
	# Without --pick the variable is COMMAND's own.
	run_split "$HMN" run --json -- sh -c 'echo "${CUDA_VISIBLE_DEVICES-unset}"'
	[ "$output" = unset ]
	[ "$(jq -c .picked <<<"$stderr")" = null ]
	# Too few: 4, COMMAND never ran, no report.
	run_split "$HMN" run --need 50GiB --pick 2 --json -- touch "$BATS_TEST_TMPDIR/ran"
	[ "$status" -eq 4 ]
	[ ! -e "$BATS_TEST_TMPDIR/ran" ]
	[ "$stderr" = "hmn: --pick 2: only 1 GPU has 50.0GiB free (most of the rest: GPU 1, 45.0GiB)" ]
	# No GPU at all: 4 as well.
	export HMN_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1
	run_split "$HMN" run --need 1GiB --pick 1 -- touch "$BATS_TEST_TMPDIR/ran"
	[ "$status" -eq 4 ]
	[ ! -e "$BATS_TEST_TMPDIR/ran" ]
	[[ "$stderr" == "hmn: no GPU found (tried nvml: "* ]]
	# Nothing held is left behind.
	[ -z "$(holds)" ]
}

@test "run --pick: a dozen launches at once on two free GPUs: two start, on different GPUs; the rest exit 4 unstarted" {
	# Each COMMAND that starts runs until the test says go: however slow the machine, the winners
	# still hold their GPUs while the last launch picks.
	for i in $(seq 12); do
		"$HMN" run --need 40GiB --pick 1 -- sh -c 'echo "$CUDA_VISIBLE_DEVICES" >"$0"
			while [ ! -e "$1" ]; do sleep 0.05; done' "$BATS_TEST_TMPDIR/started.$i" "$BATS_TEST_TMPDIR/go" \
			2>"$BATS_TEST_TMPDIR/err.$i" &
		pids[i]=$!
	done
	started_pids="${pids[*]}"
	for _ in $(seq 600); do
		alive=0
		for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive=$((alive + 1)); done
		[ "$alive" -le 2 ] && break
		sleep 0.05
	done
	touch "$BATS_TEST_TMPDIR/go"
	ok=0 refused=0
	for i in $(seq 12); do
		s=0
		wait "${pids[i]}" || s=$?
		case $s in
		0) ok=$((ok + 1)) ;;
		4) refused=$((refused + 1)); [ ! -e "$BATS_TEST_TMPDIR/started.$i" ] ;;
		*) echo "# launch $i: $s $(cat "$BATS_TEST_TMPDIR/err.$i")"; false ;;
		esac
	done
	[ "$ok" -eq 2 ] && [ "$refused" -eq 10 ]
	[ "$(cat "$BATS_TEST_TMPDIR"/started.* | sort | tr '\n' ' ')" = "$H100 $L40S " ]
	# The refused said why: both GPUs held for other launches.
	grep -qx "hmn: --pick 1: the 2 GPUs with 40.0GiB free are held for another launch" "$BATS_TEST_TMPDIR"/err.*
	# Each hold ended with its run.
	[ -z "$(holds)" ]
}

@test "run --pick: the hold ends when the tree holds --need on the GPU, or after --hold; hmn free --pick passes over held GPUs" {
	# The first launch's tree starts as a job does: a CUDA context first (1 GiB here), its weights later.
	go="$BATS_TEST_TMPDIR/go" loaded="$BATS_TEST_TMPDIR/loaded"
	"$HMN" run --need 40GiB --pick 1 --interval 50ms -q -- sh -c "while [ ! -e '$go' ]; do sleep 0.05; done
		'$hold' 1073741824 8 & while [ ! -e '$loaded' ]; do sleep 0.05; done; '$hold' 42949672960 3; wait" &
	started_pids=$!
	for _ in $(seq 40); do [ "$(holds)" = "$H100" ] && break; sleep 0.05; done
	[ "$(holds)" = "$H100" ]
	# Held: hmn free --pick passes over it.
	run_split "$HMN" free --need 40GiB --pick 1
	[ "$output" = "$L40S" ]
	run_split "$HMN" free --need 50GiB --pick 1
	[ "$status" -eq 4 ]
	[ "$stderr" = "hmn: --pick 1: the 1 GPU with 50.0GiB free is held for another launch (most of the rest: GPU 1, 45.0GiB)" ]
	# Its context alone is not what it asked for: the GPU would look as free as before, and stays held.
	touch "$go"
	sleep 0.6
	[ "$(holds)" = "$H100" ]
	run_split "$HMN" run --need 40GiB --pick 1 -- sh -c 'echo "$CUDA_VISIBLE_DEVICES"'
	[ "$output" = "$L40S" ]
	# Once the tree holds --need there, its free memory says so: the hold is let go of, the run goes on.
	touch "$loaded"
	for _ in $(seq 100); do [ -z "$(holds)" ] && break; sleep 0.05; done
	[ -z "$(holds)" ]
	kill -0 "$started_pids"
	# --hold: a tree that takes no memory holds its GPU that long, then not.
	"$HMN" run --need 40GiB --pick 1 --hold 1500ms -q -- sleep 10 &
	second=$!
	started_pids+=" $second"
	for _ in $(seq 40); do [ -n "$(holds)" ] && break; sleep 0.05; done
	start=$(date +%s%N)
	run_split "$HMN" free --need 59GiB --pick 1
	[ "$status" -eq 4 ]
	for _ in $(seq 100); do
		run_split "$HMN" free --need 59GiB --pick 1
		[ "$status" -eq 0 ] && break
		sleep 0.05
	done
	[ "$status" -eq 0 ] && [ "$output" = "$H100" ]
	# Not before the hold was up, and while its run still ran.
	[ $((($(date +%s%N) - start) / 1000000)) -ge 1000 ]
	kill -0 "$second"
}

@test "the lock file: another user holding it delays a launch a bounded time, never wedges it; no link, hard link or FIFO is written through" {
	[ "$(id -u)" -eq 0 ] || skip "needs root to act as another user"
	command -v flock >/dev/null || skip "no flock(1)"
	# A folder another user can reach, as /run/lock is.
	dir=$(mktemp -d)
	chmod 1777 "$dir"
	export HMN_PICK_LOCK="$dir/hmn-pick"
	# A hold of a live launch's (this shell's) on the H100, then the lock held by another user.
	printf '%s %s %s\n' "$H100" $$ $(($(date +%s%N) / 1000000 + 60000)) >"$HMN_PICK_LOCK"
	chmod 666 "$HMN_PICK_LOCK"
	setpriv --reuid=65534 --regid=65534 --clear-groups flock "$HMN_PICK_LOCK" sleep 30 &
	started_pids=$!
	sleep 0.3
	start=$(date +%s%N)
	run_split "$HMN" run --need 40GiB --pick 1 -- sh -c 'echo "$CUDA_VISIBLE_DEVICES"'
	took=$((($(date +%s%N) - start) / 1000000))
	# Not wedged: the bounded wait (10s), said, and the holds it could read still honoured.
	[ "$status" -eq 0 ]
	[ "$output" = "$L40S" ]
	[[ "$stderr" == "hmn: cannot lock $HMN_PICK_LOCK (held by another process past the wait): picking without it"* ]]
	[ "$took" -ge 9900 ] && [ "$took" -lt 16000 ]
	kill "$started_pids"
	wait "$started_pids" 2>/dev/null || true
	# Another user's link to a file of root's: never followed, the file untouched.
	victim="$BATS_TEST_TMPDIR/victim"
	echo precious >"$victim"
	rm "$HMN_PICK_LOCK"
	ln -s "$victim" "$HMN_PICK_LOCK"
	run_split "$HMN" run --need 40GiB --pick 1 -- true
	[ "$status" -eq 0 ]
	[[ "$stderr" == "hmn: cannot lock $HMN_PICK_LOCK (not a plain file of its own): picking without it"* ]]
	[ "$(cat "$victim")" = precious ]
	# A hard link to it: the same.
	rm "$HMN_PICK_LOCK"
	ln "$victim" "$HMN_PICK_LOCK"
	run_split "$HMN" run --need 40GiB --pick 1 -- true
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"(not a plain file of its own)"* ]]
	[ "$(cat "$victim")" = precious ]
	# A FIFO: refused at once, not waited on.
	rm "$HMN_PICK_LOCK"
	mkfifo "$HMN_PICK_LOCK"
	run_split timeout 5 "$HMN" free --need 40GiB --pick 1
	[ "$status" -eq 0 ] && [ "$output" = "$H100" ]
	# A new file is every user's, whatever the umask.
	rm "$HMN_PICK_LOCK"
	(umask 077 && "$HMN" free --need 1GiB --pick 1 >/dev/null)
	[ "$(stat -c %a "$HMN_PICK_LOCK")" = 666 ]
	rm -rf "$dir"
}

@test "the lock file's holds: garbage, a hold past the longest --hold, and a dead run's hold are not believed" {
	now=$(($(date +%s%N) / 1000000))
	dead=$(sh -c 'echo $$')
	{
		printf '%s %s %s\n' "$H100" "$dead" $((now + 20000))    # its run is gone
		printf '%s %s %s\n' "$L40S" $$ $((now + 7200000))       # two hours: more than --hold allows
		printf '%s 1 %s extra\n' "$H100" $((now + 20000))       # a word too many
		printf '\x1b[2J %s %s\n' $$ $((now + 20000))            # not a key
		printf '%s %s %s' "$L40S" 99999999999 $((now + 20000))  # no such pid can be
		head -c 3000 /dev/urandom
	} >"$HMN_PICK_LOCK"
	run_split "$HMN" free --need 40GiB --pick 2
	[ "$status" -eq 0 ]
	[ "$output" = "$H100,$L40S" ]
	# A live hold of this shell's pid, which is there, keeps its GPU.
	printf '%s %s %s\n' "$L40S" $$ $((now + 20000)) >"$HMN_PICK_LOCK"
	run_split "$HMN" free --need 40GiB --pick 2
	[ "$status" -eq 4 ]
	# A file full of holds (another user's, on no GPU here, of pid 1, which is always there)
	# never keeps COMMAND from starting; they are dropped, as no GPU of this machine's.
	for i in $(seq 300); do printf 'junk%s 1 %s\n' "$i" $((now + 3000000)); done >"$HMN_PICK_LOCK"
	run_split "$HMN" run --need 40GiB --pick 2 -- true
	[ "$status" -eq 0 ]
	[ "$(holds)" = "" ]
	printf '%s %s %s\n' "$L40S" $$ $((now + 20000)) >"$HMN_PICK_LOCK"
	# A run writes back only what it believes, and its own hold.
	run_split "$HMN" run --need 40GiB --pick 1 -- sh -c 'cat "$HMN_PICK_LOCK"'
	[ "$(cut -d' ' -f1 <<<"$output" | sort | tr '\n' ' ')" = "$H100 $L40S " ]
	[ "$(holds)" = "$L40S" ]
}

@test "--pick on MIG picks instances (MIG- UUIDs), never the GPU they divide; AMD's GPUs by index in ROCR_VISIBLE_DEVICES" {
	scenario 'driver 590.48.01' \
		'gpu name="NVIDIA H100 80GB HBM3" uuid=GPU-00000000-0000-0000-0000-000000000000 pci=00000000:00:09.0 total=85520809984 used=11665408000' \
		'mig gpu=0 gi=2 ci=0 name="3g.40gb" uuid=MIG-00000000-0000-0000-0000-000000000000 total=42412802048 used=11629756416' \
		'mig gpu=0 gi=3 ci=0 name="2g.20gb" uuid=MIG-00000001-0000-0000-0000-000000000001 total=21072183296 used=17825792'
	run_split "$HMN" free --need 15GiB --pick 2
	[ "$output" = "MIG-00000000-0000-0000-0000-000000000000,MIG-00000001-0000-0000-0000-000000000001" ]
	run_split "$HMN" free --need 25GiB --pick 1
	[ "$output" = "MIG-00000000-0000-0000-0000-000000000000" ]
	run_split "$HMN" free --need 40GiB --pick 1
	[ "$status" -eq 4 ]
	# The DRM machine: two AMD GPUs (24GiB and an APU's 512MiB), and Intel's, which are not picked.
	cp -a "$TESTS_DIR/fixtures/drm/sys" "$TESTS_DIR/fixtures/drm/proc" "$BATS_TEST_TMPDIR/"
	export HMN_SYSFS="$BATS_TEST_TMPDIR/sys" HMN_PROCFS="$BATS_TEST_TMPDIR/proc" HMN_BACKENDS=drm
	run_split "$HMN" free --need 10MiB --pick 2
	[ "$status" -eq 0 ]
	[ "$output" = "0,1" ]
	run_split "$HMN" run --need 1GiB --pick 1 -- sh -c 'echo "${ROCR_VISIBLE_DEVICES}/${CUDA_VISIBLE_DEVICES-unset}"'
	[ "$status" -eq 0 ]
	[ "$output" = "0/unset" ]
	run_split "$HMN" free --need 10MiB --pick 3
	[ "$status" -eq 4 ]
}
