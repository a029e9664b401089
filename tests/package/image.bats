#!/usr/bin/env bats
# The container image (contrib/container/Containerfile) as far as a machine without a
# container engine can take it: its run stage's root file system is built from Debian's
# packages with mmdebstrap (minbase, with debian:12-slim's path exclusions) and the
# package its build stage made in another such root, by the Containerfile's own lines; then
# the DaemonSet's command runs in it as the DaemonSet runs it (user 0, no capability, a
# read-only root, the host's /proc, the toolkit's libnvidia-ml.so.1, here the stand-in)
# and promtool reads what it wrote. Not covered: the build stage inside an engine, the
# image's metadata as an engine writes it, pulling and pushing, and a real cluster
# (README.md, "The DaemonSet", says what to check there).
# Needs root, mmdebstrap and Debian's mirror; tests/run gives $PACKAGE_OUT, $STUB_MODERN, $TESTS_DIR.

load ../e2e/helpers
load package-helpers

containerfile="$root/contrib/container/Containerfile"
manifest="$root/contrib/kubernetes/hmn.yaml"
rootfs="$out/image-rootfs"

# stage_field FIELD: from the Containerfile's last stage: base, copy (its COPY's source and
# destination), user, entrypoint (one word a line).
stage_field() {
	python3 - "$containerfile" "$1" <<'PY'
import json, re, sys
text = re.sub(r"\\\n", " ", open(sys.argv[1]).read())
last = re.split(r"^FROM ", text, flags=re.M)[-1].splitlines()
lines = [l.strip() for l in last[1:] if l.strip() and not l.startswith("#")]
field = sys.argv[2]
if field == "base":
    print(last[0].split()[0])
elif field == "copy":
    print(*[l.split()[-2:] for l in lines if l.startswith("COPY ")][0])
elif field == "user":
    print(*[l.split()[1] for l in lines if l.startswith("USER ")])
elif field == "entrypoint":
    print("\n".join(json.loads([l for l in lines if l.startswith("ENTRYPOINT ")][0][len("ENTRYPOINT "):])))
PY
}

# stage_script N: the Containerfile's stage N (0, 1) as a bash script run outside the root,
# "$1" the root, "$2" the build context, "$3" the first stage's root: each ARG, WORKDIR, COPY and
# RUN in order (RUN by sh in the root, in the WORKDIR, with the ARGs and nothing else of ours);
# USER, ENTRYPOINT and LABEL are the image's metadata, checked apart. Anything else: exit 1.
stage_script() {
	python3 - "$containerfile" "$1" <<'PY'
import re, shlex, sys
text = re.sub(r"\\\n", " ", open(sys.argv[1]).read())
stage = re.split(r"^FROM ", text, flags=re.M)[1:][int(sys.argv[2])].splitlines()[1:]
env = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME": "/root"}
# A proxy to Debian's mirror, where one is set, as an engine passes it to RUN.
proxies = " ".join('${%s:+"%s=$%s"}' % (v, v, v) for v in ("http_proxy", "https_proxy", "no_proxy"))
workdir = "/"
print('set -e\nroot=$1 context=$2 build=$3')
for line in (l.strip() for l in stage):
    if not line or line.startswith("#"):
        continue
    op, _, rest = line.partition(" ")
    if op == "ARG":
        name, _, value = rest.partition("=")
        env[name] = value
    elif op == "WORKDIR":
        workdir = rest
        print('mkdir -p "$root"' + shlex.quote(workdir))
    elif op == "COPY":
        words = rest.split()
        source = '"$context"'
        if words[0].startswith("--from="):
            source, words = '"$build"', words[1:]
        *sources, dest = words
        into_dir = dest.endswith("/") or dest == "." or len(sources) > 1
        dest = dest if dest.startswith("/") else workdir.rstrip("/") + "/" + dest
        if into_dir:
            print('mkdir -p "$root"' + shlex.quote(dest))
        for s in sources:
            s = "/." if s == "." else "/" + s.lstrip("/")
            print("cp -a " + source + shlex.quote(s) + ' "$root"' + shlex.quote(dest.rstrip("/") + ("/" if into_dir else "")))
    elif op == "RUN":
        print('chroot "$root" env -i ' + proxies + " " + " ".join(shlex.quote(k + "=" + v) for k, v in env.items()) +
              " sh -c " + shlex.quote("cd " + shlex.quote(workdir) + " && " + rest))
    elif op not in ("USER", "ENTRYPOINT", "LABEL"):
        sys.exit("an instruction this test does not run: " + line)
PY
}

# debian:12-slim's dpkg path exclusions (debuerreotype's --slimify).
slim_excludes=(
	--dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/*/copyright'
	--dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/groff/*'
	--dpkgopt='path-exclude=/usr/share/info/*' --dpkgopt='path-exclude=/usr/share/lintian/*'
	--dpkgopt='path-exclude=/usr/share/linda/*' --dpkgopt='path-exclude=/usr/share/locale/*'
	--dpkgopt='path-include=/usr/share/locale/locale.alias'
)

build_root="$out/image-build-root"

# stage N ROOT MMDEBSTRAP-ARGS...: a Debian 12 minbase root and stage N's instructions run in
# it; its script and log in $out.
stage() {
	local n=$1 dir=$2
	shift 2
	stage_script "$n" >"$out/image-stage-$n.sh" || return 1
	# What the stage leaves in /tmp and apt's lists is its own to clean: mmdebstrap's cleaning is
	# skipped. The paths reach the hook through the environment (mmdebstrap passes it on).
	STAGE_SCRIPT="$out/image-stage-$n.sh" STAGE_CONTEXT="$out/context" STAGE_BUILD="$build_root" \
		mmdebstrap --variant=minbase --skip=cleanup/apt/lists --skip=cleanup/tmp "$@" \
		--customize-hook='bash "$STAGE_SCRIPT" "$1" "$STAGE_CONTEXT" "$STAGE_BUILD"' \
		bookworm "$dir" $(debian_sources) >"$out/image-$n.log" 2>&1
}

setup_file() {
	[ "$(id -u)" -eq 0 ] && command -v mmdebstrap >/dev/null && command -v python3 >/dev/null || return 0
	[ -e "$root/.git" ] && command -v git >/dev/null || return 0
	remove_root "$rootfs" "$build_root"
	rm -rf "$out/context"
	mkdir -p "$out"
	rm -f "$out"/image-*.log
	copy_tree "$out/context"
	# The build stage (debian:12: minbase), then the run stage (debian:12-slim) from its package.
	stage 0 "$build_root" || remove_root "$build_root"
	if [ -d "$build_root" ]; then
		stage 1 "$rootfs" "${slim_excludes[@]}" || remove_root "$rootfs"
	fi
	rm -rf "$out/context"
	return 0
}

# The two roots are some 600 MB: they go when the tests are done.
teardown_file() {
	remove_root "$rootfs" "$build_root"
}

needs_rootfs() {
	[ "$(id -u)" -eq 0 ] || skip "needs root (mmdebstrap, chroot and mounts)"
	command -v mmdebstrap >/dev/null || skip "mmdebstrap is not installed"
	command -v python3 >/dev/null || skip "python3 is not installed"
	needs_git
	[ -f "$build_root/out/hmn.deb" ] || { tail -30 "$out/image-0.log"; false; }
	[ -x "$rootfs/usr/bin/hmn" ] || { tail -30 "$out/image-1.log"; false; }
}

@test "image: the Containerfile builds the package in debian:12, then installs it with apt in debian:12-slim" {
	[ "$(grep -c '^FROM ' "$containerfile")" -eq 2 ]
	grep -qx 'FROM docker.io/library/debian:12 AS build' "$containerfile"
	[ "$(stage_field base)" = docker.io/library/debian:12-slim ]
	[ "$(stage_field copy)" = "/out/hmn.deb /tmp/hmn.deb" ]
	grep -q 'apt-get build-dep -y --no-install-recommends --build-profiles=nocheck ./' "$containerfile"
	grep -q 'DEB_BUILD_OPTIONS=nocheck dpkg-buildpackage -us -uc -b --build-profiles=nocheck' "$containerfile"
	# The README's build without the tests is the build stage's.
	grep -qx 'apt-get update && apt-get build-dep -y --no-install-recommends --build-profiles=nocheck ./ && DEB_BUILD_OPTIONS=nocheck dpkg-buildpackage -us -uc -b --build-profiles=nocheck' "$root/README.md"
	[ "$(stage_field user)" = 65534:65534 ]
	[ "$(stage_field entrypoint)" = hmn ]
	# What a build context leaves out: build trees, never the sources.
	grep -qx 'build\*/' "$root/.dockerignore"
	run grep -Eqx '(lib|src|debian|man|completions|tests)/?' "$root/.dockerignore"
	[ "$status" -eq 1 ]
	# Every instruction is one this test runs (or image metadata it checks).
	stage_script 0 >/dev/null
	stage_script 1 >/dev/null
}

@test "image: the build stage, its lines run in a clean Debian 12 root, makes the package, without its tests" {
	needs_rootfs
	local version
	version=$(upstream_version)
	[ "$(dpkg-deb -f "$build_root/out/hmn.deb" Package Version Architecture | tr '\n' ' ')" = \
		"Package: hmn Version: $version-1 Architecture: $(dpkg --print-architecture) " ]
	# nocheck: the test suite neither built nor run; the build dependencies are the nocheck ones.
	! grep -q 'meson test' "$out/image-0.log" || false
	grep -q -- '-Dtests=false' "$out/image-0.log"
	[ -z "$(chroot "$build_root" sh -c 'command -v bats' || true)" ]
}

@test "image: the run stage's root file system holds hmn and libcjson1 from apt, nothing to build with, no apt lists" {
	needs_rootfs
	chroot "$rootfs" dpkg-query -W -f '${Status}\n' hmn libcjson1 | grep -cx 'install ok installed' | grep -qx 2
	# (perl-base is in the base image: Debian's own scripts need it.)
	[ -z "$(chroot "$rootfs" sh -c 'for tool in cc gcc make python3 ld git; do command -v $tool; done' || true)" ]
	[ -z "$(ls -A "$rootfs/var/lib/apt/lists" | grep -v '^lock$\|^partial$' || true)" ]
	[ ! -e "$rootfs/tmp/hmn.deb" ]
	# Slim: no man pages, the copyright kept.
	[ ! -e "$rootfs/usr/share/man/man1/hmn.1.gz" ]
	[ -f "$rootfs/usr/share/doc/hmn/copyright" ]
}

@test "image: its entrypoint as its user: hmn answers, and with no driver says so (exit 3)" {
	needs_rootfs
	mapfile -t entrypoint < <(stage_field entrypoint)
	run chroot --userspec="$(stage_field user)" "$rootfs" env -i PATH=/usr/bin:/bin "${entrypoint[@]}" --version
	[ "$status" -eq 0 ]
	[ "$output" = "hmn $(upstream_version)" ]
	run chroot --userspec="$(stage_field user)" "$rootfs" env -i PATH=/usr/bin:/bin "${entrypoint[@]}"
	[ "$status" -eq 3 ]
}

@test "image: the DaemonSet's command as the DaemonSet runs it writes a textfile promtool accepts, pods labelled" {
	needs_rootfs
	command -v unshare >/dev/null && command -v python3 >/dev/null || skip "needs unshare and python3"
	python3 -c 'import yaml' 2>/dev/null || skip "python3's yaml module (Debian's python3-yaml) is not installed"
	command -v promtool >/dev/null || skip "promtool (Debian's prometheus) is not installed"
	unshare --mount true 2>/dev/null || skip "no mount namespace here"
	common_setup
	two_gpus 'proc gpu=0 pid=41001 used=4294967296 list=compute' 'proc gpu=1 pid=41007 used=268435456 list=graphics'
	fake_process 41001 4201 /usr/bin/python3
	in_container 41001 "0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1b2c3d4e_5f60_4a7b_8c9d_0e1f2a3b4c5d.slice/cri-containerd-9f8e7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a39281706f5e4d3c2b1a0.scope
"
	fake_process 41007 0 /usr/lib/xorg/Xorg
	# The container as the manifest makes it: the image's entrypoint with the manifest's args
	# (no command of its own), its environment, and /textfile from the host.
	local c
	c=$(python3 -c 'import json, sys, yaml; print(json.dumps(list(yaml.safe_load_all(open(sys.argv[1])))[1]["spec"]["template"]["spec"]["containers"][0]))' "$manifest")
	[ "$(jq -r '.command // empty' <<<"$c")" = "" ]
	mapfile -t command < <(stage_field entrypoint; jq -r '.args[]' <<<"$c")
	mapfile -t environment < <(jq -r '.env[] | "\(.name)=\(.value)"' <<<"$c")
	[ "$(jq -r '.volumeMounts[0].mountPath' <<<"$c")" = /textfile ]
	[ "$(jq -r '.securityContext.runAsUser' <<<"$c")" = 0 ]
	local textfile="$BATS_TEST_TMPDIR/textfile"
	mkdir -p "$textfile" "$rootfs/textfile"
	# Where the toolkit puts the driver's library: the root's own multiarch folder.
	local nvml
	nvml=/usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH)/libnvidia-ml.so.1
	touch "$rootfs$nvml" "$rootfs/run/stub-scenario"
	run_split unshare --mount --propagation private -- bash -c '
		set -e
		r=$1 textfile=$2 stub=$3 scenario=$4 proc=$5 nvml=$6
		shift 6
		mount --bind "$r" "$r"
		# What the runtime and the toolkit put in: the host'"'"'s /proc (hostPID), the volume, NVML.
		mount --bind "$proc" "$r/proc"
		mount --bind "$textfile" "$r/textfile"
		mount --bind "$stub" "$r$nvml"
		mount --bind "$scenario" "$r/run/stub-scenario"
		mount -o remount,bind,ro "$r"
		# The root is read-only indeed.
		if chroot "$r" touch /probe 2>/dev/null; then echo "the root is writable" >&2; exit 99; fi
		# User 0 with every capability dropped, no new privileges.
		chroot "$r" setpriv --bounding-set=-all --inh-caps=-all --no-new-privs \
			env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
			HMN_STUB_SCENARIO=/run/stub-scenario "$@" &
		pid=$!
		for _ in $(seq 300); do [ -s "$textfile/hmn.prom" ] && break; sleep 0.1; done
		kill -TERM "$pid"
		wait "$pid"
	' _ "$rootfs" "$textfile" "$STUB_MODERN" "$HMN_STUB_SCENARIO" "$HMN_PROCFS" "$nvml" \
		env "${environment[@]}" "${command[@]}"
	echo "# exit $status: $stderr"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	promtool check metrics <"$textfile/hmn.prom"
	grep -q '^hmn_gpu_memory_used_bytes{.*} 20780679168$' "$textfile/hmn.prom"
	grep -q '^hmn_process_gpu_memory_bytes{pid="41001",.*pod_uid="1b2c3d4e-5f60-4a7b-8c9d-0e1f2a3b4c5d"} 4294967296$' "$textfile/hmn.prom"
	grep -q '^hmn_process_gpu_memory_bytes{pid="41007",.*pod_uid=""} 268435456$' "$textfile/hmn.prom"
	# Nothing but the file itself in the volume: the atomic replacement's temporary is gone.
	[ "$(ls -A "$textfile")" = hmn.prom ]
}
