#!/usr/bin/env bats
# The Debian package (debian/), built as the README's "Install" says: dpkg-buildpackage
# in a copy of the tree as a fresh clone has it (Git's files, none it ignores), then
# checked with lintian and by what it installs. The arm64 package is cross-built the
# same way (as tests/run's aarch64 suite is) and checked alike, its hmn run under
# qemu-user. tests/run runs this file; $PACKAGE_OUT is where the packages are left.

load package-helpers

# build ARCH ARGS...: the package for ARCH, its log in $out/ARCH.log; dpkg-buildpackage leaves
# the .deb beside the tree.
build() {
	local arch=$1
	shift
	rm -rf "$out/$arch"
	copy_tree "$out/$arch/hmn"
	(cd "$out/$arch/hmn" && dpkg-buildpackage -us -uc -b "$@") >"$out/$arch.log" 2>&1
	local built=$?
	# The packages stay; the tree and its build go.
	rm -rf "$out/$arch/hmn"
	return $built
}

# clean_build: the README's install command, run as a user would, in a clean Debian 12 root
# (minbase, made by mmdebstrap from Debian's mirror) holding a copy of the tree at /src/hmn.
# The root stays in $out/clean-root until the tests are done; the packages go to $out/ARCH.
clean_build() {
	local command
	remove_root "$out/clean-root"
	rm -rf "$out/src" "$out/$native"
	mkdir -p "$out/src"
	echo "the README's install command was not found" >"$out/$native.log"
	command=$(grep -m1 '^apt-get update && apt-get build-dep -y --no-install-recommends ./ && dpkg-buildpackage -us -uc -b && ' "$root/README.md") || return 1
	copy_tree "$out/src/hmn"
	(cd "$out/src/hmn" && find . ! -type d | sort) >"$out/tree-files"
	printf 'set -e\ncd /src/hmn\n%s\n' "$command" >"$out/readme-install.sh"
	# man-db as a Debian system has it (minbase has none). The command runs with root's login
	# environment alone (mmdebstrap's hooks would pass ours on), and a proxy where one is set.
	mmdebstrap --variant=minbase --include=man-db \
		--customize-hook='mkdir "$1/src"' --customize-hook="sync-in $(printf %q "$out/src") /src" \
		--customize-hook="upload $(printf %q "$out/readme-install.sh") /tmp/readme-install.sh" \
		--customize-hook="chroot \"\$1\" env -i $(proxy_env | while read -r word; do printf '%q ' "$word"; done)HOME=/root TERM=dumb PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin sh /tmp/readme-install.sh" \
		bookworm "$out/clean-root" $(debian_sources) >"$out/$native.log" 2>&1 || return 1
	rm -rf "$out/src"
	mkdir -p "$out/$native"
	cp "$out/clean-root/src"/hmn*.deb "$out/$native/"
	# What the command left in the clone: nothing, as git status would say.
	(cd "$out/clean-root/src/hmn" && find . ! -type d | sort) | comm -13 "$out/tree-files" - >"$out/leftovers"
	# The build inside is done with.
	rm -rf "$out/clean-root/src"
}

setup_file() {
	command -v dpkg-buildpackage >/dev/null && command -v git >/dev/null && [ -e "$root/.git" ] || return 0
	mkdir -p "$out"
	native=$(dpkg --print-architecture)
	export native
	if [ "$(id -u)" -eq 0 ] && command -v mmdebstrap >/dev/null; then
		clean_build || true
	else
		build "$native" || true
	fi
	# arm64: cross, without the tests (they run in tests/run's aarch64 suite), where the
	# build dependencies of that architecture are installed (tests/run --install does it).
	# The README's command, less its installing (tests/run --install has done that).
	if [ "$native" != arm64 ] && (cd "$root" && dpkg-checkbuilddeps -a arm64 -P cross,nocheck) >/dev/null 2>&1; then
		local cross
		cross=$(grep -m1 '^dpkg --add-architecture arm64 && .* && DEB_BUILD_OPTIONS=nocheck dpkg-buildpackage ' "$root/README.md")
		[ "${cross##*&& }" = "DEB_BUILD_OPTIONS=nocheck dpkg-buildpackage -us -uc -b -a arm64 --build-profiles=cross,nocheck" ] &&
			DEB_BUILD_OPTIONS=nocheck build arm64 -a arm64 --build-profiles=cross,nocheck || true
	fi
}

teardown_file() {
	remove_root "$out/clean-root"
}

needs_build_tools() {
	command -v dpkg-buildpackage >/dev/null || skip "dpkg-buildpackage (Debian's dpkg-dev) is not installed"
	needs_git
}

# deb ARCH: the binary package built for ARCH.
deb() {
	ls "$out/$1"/hmn_*_"$1".deb 2>/dev/null | head -1
}

# The files a package of hmn holds, whatever the architecture.
package_files='./usr/bin/hmn
./usr/share/bash-completion/completions/hmn
./usr/share/doc/hmn/changelog.Debian.gz
./usr/share/doc/hmn/copyright
./usr/share/fish/vendor_completions.d/hmn.fish
./usr/share/lintian/overrides/hmn
./usr/share/man/man1/hmn.1.gz
./usr/share/zsh/vendor-completions/_hmn'

# check_package DEB: its files, its dependencies, and lintian.
check_package() {
	local listing
	listing=$(dpkg-deb -c "$1")
	[ "$(awk '!/^d/ { print $6 }' <<<"$listing" | sort)" = "$package_files" ]
	# The binary, executable; everything else plain, readable files.
	[ "$(awk '!/^d/ && $1 != "-rw-r--r--" { print $1, $2, $6 }' <<<"$listing")" = "-rwxr-xr-x root/root ./usr/bin/hmn" ]
	# libc and cJSON, nothing else: NVML is loaded at run time, said in the description.
	[ "$(dpkg-deb -f "$1" Depends | tr -d ' ' | sed 's/([^)]*)//g')" = "libc6,libcjson1" ]
	[ "$(dpkg-deb -f "$1" Recommends)" = pci.ids ]
	dpkg-deb -f "$1" Description | tr '\n' ' ' | grep -q 'loads at run time.*not a dependency'
	command -v lintian >/dev/null || skip "lintian is not installed"
	# No error, no warning, and the pedantic ones too; overrides say why in debian/.
	TMPDIR=$BATS_TEST_TMPDIR lintian --fail-on error,warning,pedantic --pedantic "$1"
}

@test "deb: the README's install command in a clean Debian 12 builds it (its tests run) and installs it; version from meson.build" {
	needs_build_tools
	local d
	d=$(deb "$native")
	[ -n "$d" ] || { tail -40 "$out/$native.log"; false; }
	# dh_auto_test ran the suite, less the slow part.
	grep -q 'meson test --no-suite slow' "$out/$native.log"
	grep -qE '^Ok: +[1-9]' "$out/$native.log"
	grep -qE '^Fail: +0 *$' "$out/$native.log"
	# One version: meson.build's, in the changelog (Debian's revision after it) and in hmn --version.
	[ -n "$(upstream_version)" ]
	[ "$(dpkg-deb -f "$d" Version)" = "$(upstream_version)-1" ]
	dpkg-deb -x "$d" "$BATS_TEST_TMPDIR/x"
	[ "$("$BATS_TEST_TMPDIR/x/usr/bin/hmn" --version)" = "hmn $(upstream_version)" ]
	[ -d "$out/clean-root" ] || skip "built here, not in a clean root (that needs root and mmdebstrap)"
	# The clone as it was: debian/rules clean took the build away (and .gitignore has the rest).
	cat "$out/leftovers"
	[ ! -s "$out/leftovers" ]
	# Installed there by apt, with what it depends on: hmn runs, says there is no GPU (3).
	chroot "$out/clean-root" dpkg-query -W -f '${Status} ${Version}\n' hmn | grep -qx "install ok installed $(upstream_version)-1"
	[ "$(chroot "$out/clean-root" hmn --version)" = "hmn $(upstream_version)" ]
	run chroot "$out/clean-root" hmn
	[ "$status" -eq 3 ]
	for f in /usr/share/man/man1/hmn.1.gz /usr/share/bash-completion/completions/hmn \
		/usr/share/zsh/vendor-completions/_hmn /usr/share/fish/vendor_completions.d/hmn.fish; do
		[ -f "$out/clean-root$f" ]
	done
	# man hmn, as a user would type it.
	chroot "$out/clean-root" env -i PATH=/usr/bin:/bin MANPAGER=cat MANWIDTH=80 man hmn >"$BATS_TEST_TMPDIR/man"
	grep -q '^NAME' "$BATS_TEST_TMPDIR/man"
	grep -q 'hmn - ' "$BATS_TEST_TMPDIR/man"
}

@test "deb: the binary, the man page and three completions where Debian's tools look; libc6 and libcjson1 alone; lintian clean" {
	needs_build_tools
	[ -n "$(deb "$native")" ] || skip "no package was built (the test above says why)"
	check_package "$(deb "$native")"
	# The completions' folders are the ones the shells' own packages name, where they are here.
	if pkg-config --exists bash-completion 2>/dev/null; then
		[ "$(pkg-config --variable=completionsdir bash-completion)" = /usr/share/bash-completion/completions ]
	fi
	if command -v zsh >/dev/null; then
		zsh -fc 'print -l $fpath' | grep -qx /usr/share/zsh/vendor-completions
	fi
	if command -v fish >/dev/null; then
		HOME=$BATS_TEST_TMPDIR fish -c 'string join \n $fish_complete_path' | grep -qx /usr/share/fish/vendor_completions.d
	fi
	# The man page reads as one.
	if command -v man >/dev/null; then
		dpkg-deb -x "$(deb "$native")" "$BATS_TEST_TMPDIR/x"
		MANWIDTH=80 man -l "$BATS_TEST_TMPDIR/x/usr/share/man/man1/hmn.1.gz" 2>&1 | col -bx | grep -q '^NAME'
	fi
}

@test "deb for arm64: cross-built, the same files and dependencies, lintian clean, its hmn runs under qemu-user" {
	needs_build_tools
	[ "$native" != arm64 ] || skip "this machine is arm64: the package above is that one"
	(cd "$root" && dpkg-checkbuilddeps -a arm64 -P cross,nocheck) >/dev/null 2>&1 ||
		skip "arm64's build dependencies are not installed (tests/run --install installs them)"
	local d
	d=$(deb arm64)
	[ -n "$d" ] || { tail -40 "$out/arm64.log"; false; }
	[ "$(dpkg-deb -f "$d" Architecture)" = arm64 ]
	check_package "$d"
	dpkg-deb -x "$d" "$BATS_TEST_TMPDIR/arm64"
	file "$BATS_TEST_TMPDIR/arm64/usr/bin/hmn" | grep -q 'ARM aarch64'
	command -v qemu-aarch64 >/dev/null || skip "qemu-user is not installed"
	# Debian's multiarch arm64 libraries (the cross build's libcjson-dev:arm64 brought them), the
	# loader among them: all of one build, as on an arm64 machine.
	run qemu-aarch64 -L / "$BATS_TEST_TMPDIR/arm64/usr/bin/hmn" --version
	[ "$status" -eq 0 ]
	[ "$output" = "hmn $(upstream_version)" ]
}
