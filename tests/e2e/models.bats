#!/usr/bin/env bats
# hmn fit's test models are made per test, where it runs (tests/with-models), and never in
# the build directory: sparse files, 1.1 TB to a tool that reads them whole, made a copy of
# build/ (cp, tar, rsync without -S, a CI cache) a terabyte (issue 25).

setup() {
	# with-models beside a stand-in make-models that writes a MANIFEST and one sparse GiB at once.
	bin="$BATS_TEST_TMPDIR/bin"
	mkdir -p "$bin" "$BATS_TEST_TMPDIR/tmp"
	cp "$TESTS_DIR/with-models" "$bin/"
	cat >"$bin/make-models" <<-'PY'
		import os, sys
		if os.environ.get("MAKE_MODELS_FAILS"):
		    sys.exit("make-models: failed as asked")
		with open(os.path.join(sys.argv[1], "MANIFEST"), "w") as f:
		    f.write("sparse.gguf\n")
		with open(os.path.join(sys.argv[1], "sparse.gguf"), "wb") as f:
		    f.truncate(1 << 30)
	PY
	export TMPDIR="$BATS_TEST_TMPDIR/tmp"
	dir_file="$BATS_TEST_TMPDIR/models-dir"
}

teardown() {
	# The command a failed test may have left running (with-models did not pass the signal on).
	if [ -s "$dir_file.pid" ]; then
		kill "$(cat "$dir_file.pid")" 2>/dev/null || true
	fi
}

# with_models_in_background ARGS...: the copy of with-models in the background, in a session
# of its own as meson starts a test (a signal to its process group reaches it and its command
# alone); its pid, the group's, in $pid, once its command has written $MODELS to $dir_file.
with_models_in_background() {
	setsid "$bin/with-models" "$@" 3>&- &
	pid=$!
	# make-models takes seconds on a loaded machine: 30 s at most.
	for _ in $(seq 300); do
		[ -s "$dir_file" ] && return 0
		sleep 0.1
	done
	return 1
}

# gone: $TMPDIR empty, within 30 seconds (the guard's removal is not waited for; a loaded machine is slow).
gone() {
	for _ in $(seq 300); do
		[ -z "$(ls -A "$TMPDIR")" ] && return 0
		sleep 0.1
	done
	ls -lA "$TMPDIR"
	return 1
}

@test "the build makes no file over 10 MB: no test model in the build directory" {
	[ -d "$BUILD_ROOT/src" ]
	# find's -size is the apparent size, which cp and tar read: a sparse file counts whole.
	run find "$BUILD_ROOT" -size +10M
	[ "$status" -eq 0 ]
	[ "$output" = "" ]
	[ ! -e "$BUILD_ROOT/tests/models" ]
}

@test "with-models: MODELS names a folder of models under TMPDIR while the test runs, gone after it; the test's status is its" {
	run "$bin/with-models" sh -c 'echo "$MODELS"; cat "$MODELS/MANIFEST"; exit 3'
	[ "$status" -eq 3 ]
	[[ "${lines[0]}" == "$TMPDIR/hmn-models."* ]]
	[ "${lines[1]}" = "sparse.gguf" ]
	gone
	run "$bin/with-models" true
	[ "$status" -eq 0 ]
	gone
}

@test "with-models: tests side by side get a folder each" {
	"$bin/with-models" sh -c 'echo "$MODELS" >"$1.1"; sleep 1' _ "$dir_file" &
	"$bin/with-models" sh -c 'echo "$MODELS" >"$1.2"; sleep 1' _ "$dir_file" &
	wait
	[ "$(cat "$dir_file.1")" != "$(cat "$dir_file.2")" ]
	gone
}

@test "with-models: meson's timeout (SIGTERM to the test's process group) leaves no models; the test dies of SIGTERM" {
	with_models_in_background sh -c 'echo "$MODELS" >"$1"; exec sleep 60' _ "$dir_file"
	[ -d "$(cat "$dir_file")" ]
	kill -TERM -- "-$pid"
	status=0
	wait "$pid" || status=$?
	[ "$status" -eq 143 ]
	gone
}

@test "with-models: SIGKILL to the test's process group (meson's second try) leaves no models" {
	with_models_in_background sh -c 'echo "$MODELS" >"$1"; exec sleep 60' _ "$dir_file"
	[ -d "$(cat "$dir_file")" ]
	kill -KILL -- "-$pid"
	status=0
	wait "$pid" || status=$?
	[ "$status" -eq 137 ]
	gone
}

@test "with-models: SIGTERM to with-models alone is passed on: the test ends, then its models go" {
	with_models_in_background sh -c 'echo $$ >"$1.pid"; echo "$MODELS" >"$1"; exec sleep 60' _ "$dir_file"
	kill -TERM "$pid"
	status=0
	wait "$pid" || status=$?
	[ "$status" -eq 143 ]
	! kill -0 "$(cat "$dir_file.pid")" 2>/dev/null || false
	gone
}

@test "with-models under meson test's timeout: SIGTERM, and SIGKILL after it for a test that ignores SIGTERM, leave no models" {
	command -v meson >/dev/null || skip "meson is not installed"
	project="$BATS_TEST_TMPDIR/project"
	mkdir -p "$project"
	cp "$bin/with-models" "$bin/make-models" "$project/"
	cat >"$project/meson.build" <<-'MESON'
		project('timeouts')
		with_models = find_program('with-models')
		test('ends', with_models, args: ['sh', '-c', 'echo "$MODELS" >"$1.1"; exec sleep 60', '_', get_option('dir_file')],
			timeout: 3)
		test('ignores-sigterm', with_models, args: ['sh', '-c', 'trap "" TERM; echo "$MODELS" >"$1.2"; sleep 60',
			'_', get_option('dir_file')], timeout: 3)
	MESON
	echo "option('dir_file', type: 'string')" >"$project/meson_options.txt"
	meson setup "$project/build" "$project" -Ddir_file="$dir_file" >/dev/null
	run meson test -C "$project/build" --num-processes 2
	[[ "$output" == *"ends"*"TIMEOUT"* ]]
	[[ "$output" == *"ignores-sigterm"*"TIMEOUT"* ]]
	[ -s "$dir_file.1" ] && [ -s "$dir_file.2" ]
	gone
}

@test "with-models: a test killed by a signal is reported killed by it" {
	run "$bin/with-models" sh -c 'kill -SEGV $$'
	[ "$status" -eq 139 ]
	gone
}

@test "with-models: make-models failing fails the test, and leaves nothing" {
	MAKE_MODELS_FAILS=1 run "$bin/with-models" sh -c 'echo ran'
	[ "$status" -eq 1 ]
	[[ "$output" == *"make-models: failed as asked"* ]]
	[[ "$output" != *ran* ]]
	gone
}

@test "with-models --exe-wrapper: the command runs through meson's MESON_EXE_WRAPPER (Wine, qemu), and as it is without one" {
	MESON_EXE_WRAPPER="env 'WRAPPED=by the wrapper'" run "$bin/with-models" --exe-wrapper sh -c 'echo "$WRAPPED"'
	[ "$output" = "by the wrapper" ]
	MESON_EXE_WRAPPER= run "$bin/with-models" --exe-wrapper sh -c 'echo "[$WRAPPED]"'
	[ "$output" = "[]" ]
	run "$bin/with-models"
	[ "$status" -eq 1 ]
	[ "$output" = "usage: with-models [--exe-wrapper] COMMAND [ARG...]" ]
	gone
}
