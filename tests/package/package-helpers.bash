# Shared by tests/package/*.bats.

root="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
out="${PACKAGE_OUT:-$BATS_RUN_TMPDIR/package}"

# meson.build's version: the one every other place must give.
upstream_version() {
	sed -n "s/^\tversion: '\(.*\)',$/\1/p" "$root/meson.build"
}

# copy_tree DIR: the files a clone has (tracked, and new ones Git does not ignore), as they are now:
# what a build (a package's, an image's context) is given.
copy_tree() {
	mkdir -p "$1"
	(cd "$root" && git ls-files -co --exclude-standard -z | tar --null --no-recursion -cf - -T -) |
		tar -xf - -C "$1"
}

# needs_git: these steps take the files a clone has from Git. Outside a clone they skip,
# but not in CI, where a missing clone would turn every step green unseen.
needs_git() {
	[ -e "$root/.git" ] && command -v git >/dev/null && return 0
	if [ "${CI:-}" = true ]; then
		echo "# CI=true: these steps need git and a Git clone" >&2
		return 1
	fi
	skip "not a Git clone, or no git: nothing says which files a clone has"
}

# debian_sources: a file of the host's own Debian sources (deb822, binary packages only) for
# mmdebstrap, so that its roots use the mirror the host can reach; nothing (mmdebstrap's
# default, deb.debian.org) where the host has none.
debian_sources() {
	local file=/etc/apt/sources.list.d/debian.sources
	[ -f "$file" ] || return 0
	mkdir -p "$out"
	sed 's/^Types:.*/Types: deb/' "$file" >"$out/debian.sources"
	echo "$out/debian.sources"
}

# remove_root DIR: an mmdebstrap root, never crossing into what may still be mounted there
# (/proc, /sys, /dev/pts of a run that was killed).
remove_root() {
	rm -rf --one-file-system "$@"
}

# proxy_env: http_proxy, https_proxy and no_proxy as NAME=VALUE words, those that are set.
proxy_env() {
	local name
	for name in http_proxy https_proxy no_proxy; do
		[ -z "${!name:-}" ] || printf '%s=%s\n' "$name" "${!name}"
	done
}
