#!/usr/bin/env bats
# The release tarball: `meson dist` from a clone, then the README's build command in the
# unpacked tarball, with cJSON from Debian's libcjson-dev (pkg-config) and no network.
# tests/run runs this file; $PACKAGE_OUT is where the tarball is left.

load package-helpers

setup_file() {
	[ -e "$root/.git" ] && command -v git >/dev/null || return 0
	rm -rf "$out/dist"
	mkdir -p "$out/dist"
	# A clone of what is committed: meson dist packs HEAD, never what is only in the work tree.
	git clone --quiet "$root" "$out/dist/clone" &&
		(cd "$out/dist/clone" && meson setup ../build -Dtests=false && meson dist -C ../build --no-tests --formats xztar) \
			>"$out/dist/dist.log" 2>&1 || true
	rm -rf "$out/dist/clone"
}

tarball() {
	echo "$out/dist/build/meson-dist/hmn-$(upstream_version).tar.xz"
}

@test "dist: meson dist packs hmn-VERSION.tar.xz (meson.build's version) with its checksum, sources and no build output" {
	needs_git
	[ -f "$(tarball)" ] || { tail -20 "$out/dist/dist.log"; false; }
	(cd "$(dirname "$(tarball)")" && sha256sum -c "$(basename "$(tarball)").sha256sum")
	tar -tJf "$(tarball)" >"$BATS_TEST_TMPDIR/list"
	# One folder, named for the version; what a build needs, the package's recipe and the tests.
	[ "$(cut -d/ -f1 "$BATS_TEST_TMPDIR/list" | sort -u)" = "hmn-$(upstream_version)" ]
	for path in meson.build meson_options.txt README.md LICENSE src/main.c lib/hmn.h man/hmn.1.scd \
		completions/bash/hmn debian/control debian/rules contrib/container/Containerfile tests/run; do
		grep -qx "hmn-$(upstream_version)/$path" "$BATS_TEST_TMPDIR/list"
	done
	# Nothing fetched nor built: no cJSON sources, no node packages, no build folder.
	[ -z "$(grep -E '/(subprojects/cjson|tools/[a-z]+/node_modules|build[^/]*|obj-[^/]*)/' "$BATS_TEST_TMPDIR/list" || true)" ]
}

@test "dist: the README's build command works in the unpacked tarball, cJSON from pkg-config, no network" {
	[ -f "$(tarball)" ] || skip "no tarball (the test above says why)"
	pkg-config --exists libcjson || skip "libcjson-dev is not installed"
	tar -xJf "$(tarball)" -C "$BATS_TEST_TMPDIR"
	cd "$BATS_TEST_TMPDIR/hmn-$(upstream_version)"
	# The README's command, less its apt-get (tests/run installed those packages).
	local command
	command=$(grep -m1 '^apt-get update && apt-get install .* && meson setup build' README.md)
	command=${command#*&& meson setup build}
	command="meson setup build$command"
	# No network: in a namespace with none where one can be made (as root), else as it is.
	if unshare --net true 2>/dev/null; then
		run unshare --net bash -c "$command"
	else
		run bash -c "$command"
	fi
	echo "$output" | tail -20
	# hmn ran: with no GPU here it says so and exits 3 (the README says as much).
	[ -x build/src/hmn ]
	[ "$status" -eq 0 ] || [ "$status" -eq 3 ]
	[ "$(build/src/hmn --version)" = "hmn $(upstream_version)" ]
	grep -q 'Run-time dependency libcjson found: YES' build/meson-logs/meson-log.txt
	[ ! -e subprojects/cjson ]
}
