#!/usr/bin/env bats
# Kubernetes: pod_uid from the kubelet's cgroup paths in every format, the
# recording rules (promtool test rules), and the DaemonSet manifest (python3's
# yaml module) whose command line is run against the stand-in NVML.

load helpers

root="$TESTS_DIR/.."
manifest="$root/contrib/kubernetes/hmn.yaml"
readme="$root/README.md"

pod_a=1b2c3d4e-5f60-4a7b-8c9d-0e1f2a3b4c5d
pod_a_=1b2c3d4e_5f60_4a7b_8c9d_0e1f2a3b4c5d # the systemd driver's spelling
pod_b=99aa88bb-7766-4c55-9d44-33ee22ff1100
cid=9f8e7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a39281706f5e4d3c2b1a0

setup() {
	common_setup
}

# v1_lines PATH: every hierarchy of a cgroup v1 node, as runc joins a container to them.
v1_lines() {
	local n=12 c
	for c in pids hugetlb net_cls,net_prio memory cpu,cpuacct devices freezer blkio cpuset perf_event; do
		printf '%s:%s:%s\n' $((n--)) "$c" "$1"
	done
	printf '2:rdma:/\n1:name=systemd:%s\n0::/\n' "$1"
}

# A GPU node: two pods' processes in the cgroup path forms of both drivers, a
# hostile one, and processes outside Kubernetes.
gpu_node() {
	two_gpus \
		'proc gpu=0 pid=41001 used=4294967296 list=compute' \
		'proc gpu=1 pid=41002 used=3221225472 list=compute' \
		'proc gpu=0 pid=41003 used=2147483648 list=compute' \
		'proc gpu=0 pid=41004 used=536870912 list=compute' \
		'proc gpu=1 pid=41005 used=67108864 list=compute' \
		'proc gpu=1 pid=41006 used=134217728 list=compute' \
		'proc gpu=1 pid=41007 used=268435456 list=graphics' \
		'proc gpu=1 pid=41008 used=33554432 list=compute'
	for pid in 41001 41002 41003 41004 41005 41006 41008; do
		fake_process $pid 4201 /usr/bin/python3
	done
	fake_process 41007 0 /usr/lib/xorg/Xorg
	# Pod A: the systemd driver on cgroup v2 (containerd, burstable) ...
	in_container 41001 "0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod$pod_a_.slice/cri-containerd-$cid.scope
"
	# ... and seen from a pod's cgroup namespace, as the DaemonSet sees it.
	in_container 41002 "0::/../../kubepods-burstable-pod$pod_a_.slice/cri-containerd-$cid.scope
"
	# Pod B: the cgroupfs driver on cgroup v1 (CRI-O, best effort), every hierarchy.
	in_container 41003 "$(v1_lines "/kubepods/besteffort/pod$pod_b/crio-$cid")
"
	# In pod B, a process that named a cgroup below its own after pod A.
	in_container 41004 "0::/kubepods/besteffort/pod$pod_b/crio-$cid/kubepods/pod$pod_a/x
"
	# A static pod: its cgroup has the manifest's hash, not a UID the API knows.
	in_container 41005 "0::/kubepods/burstable/pod6b1c1e0ad4a23a4bd0e4d3a7c3a9c2f1/$cid
"
	# Docker outside Kubernetes; Xorg on the host; v1 hierarchies naming two pods.
	in_container 41006 "0::/system.slice/docker-$cid.scope
"
	printf 'NSpid:\t41007\n' >>"$HMN_PROCFS/41007/status"
	echo '0::/system.slice/display-manager.service' >"$HMN_PROCFS/41007/cgroup"
	in_container 41008 "12:memory:/kubepods/pod$pod_a/$cid
1:name=systemd:/kubepods/pod$pod_b/$cid
"
}

pods_wanted="[[41001,\"$pod_a\"],[41002,\"$pod_a\"],[41003,\"$pod_b\"],[41004,\"$pod_b\"],[41005,null],[41006,null],[41007,null],[41008,null]]"

@test "ps --json: pod_uid from both drivers, v1 and v2, through a cgroup namespace; hostile paths refused" {
	gpu_node
	run_split "$HMN" ps --json --sort pid
	[ "$status" -eq 0 ]
	[ "$(jq -c '[.[] | [.pid, .pod_uid]]' <<<"$output")" = "$pods_wanted" ]
	# After mps (the contract puts ram_bytes between them), before command (added after it).
	jq -e '.[0] | keys_unsorted | .[-2] == "pod_uid" and .[-1] == "command" and index("mps") < index("pod_uid")' <<<"$output"
	# container is read from the same file.
	[ "$(jq -c '[.[] | .container]' <<<"$output")" = \
		'["kubernetes:9f8e7d6c5b4a","kubernetes:9f8e7d6c5b4a","kubernetes:9f8e7d6c5b4a","kubernetes:9f8e7d6c5b4a","kubernetes:9f8e7d6c5b4a","docker:9f8e7d6c5b4a",null,"kubernetes:9f8e7d6c5b4a"]' ]
	# The table stays as it is: no POD column.
	run_split "$HMN" ps --sort pid
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == *" GPU  NAME" && "$output" != *POD* && "$output" != *"$pod_a"* ]]
}

@test "ps --format csv: pod_uid in the header, before command (added after it); empty outside Kubernetes" {
	gpu_node
	run_split "$HMN" ps --format csv --sort pid
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == *",container,mps,"*"pod_uid,command" ]]
	[[ "${lines[1]}" == "41001,"*",$pod_a," ]]
	[[ "${lines[3]}" == "41003,"*",$pod_b," ]]
	[[ "${lines[6]}" == "41006,"*",false,,," ]]
	# LF line ends, as every Unix tool writes them.
	[[ "$output" != *$'\r'* ]]
}

@test "ps --format prometheus: a pod_uid label on both process families, promtool passes" {
	command -v promtool >/dev/null || skip "promtool (Debian's prometheus) is not installed"
	gpu_node
	"$HMN" ps --format prometheus >"$BATS_TEST_TMPDIR/ps.prom" 2>/dev/null
	promtool check metrics <"$BATS_TEST_TMPDIR/ps.prom"
	grep -qx "hmn_process_gpu_memory_bytes{pid=\"41001\",name=\"python3\",user=\"4201\",gpu=\"0\",uuid=\"GPU-aaaaaaaa-1111-2222-3333-444444444444\",type=\"compute\",container=\"kubernetes:9f8e7d6c5b4a\",pod_uid=\"$pod_a\"} 4294967296" "$BATS_TEST_TMPDIR/ps.prom"
	grep -qx 'hmn_process_gpu_memory_bytes{pid="41007",name="Xorg",user="root",gpu="1",uuid="GPU-bbbbbbbb-1111-2222-3333-444444444444",type="graphics",container="",pod_uid=""} 268435456' "$BATS_TEST_TMPDIR/ps.prom"
	[ "$(grep -c "pod_uid=\"$pod_a\"" "$BATS_TEST_TMPDIR/ps.prom")" -eq 2 ]
	[ "$(grep -c "pod_uid=\"$pod_b\"" "$BATS_TEST_TMPDIR/ps.prom")" -eq 2 ]
	[ "$(grep -c '^hmn_process_gpu_memory_bytes{.*,pod_uid=""}' "$BATS_TEST_TMPDIR/ps.prom")" -eq 4 ]
}

@test "watch --json: each sample's processes carry pod_uid" {
	gpu_node
	run_split "$HMN" watch --json --count 2 --interval 10ms
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 2 ]
	for line in "${lines[@]}"; do
		[ "$(jq -c '.processes | sort_by(.pid) | [.[] | [.pid, .pod_uid]]' <<<"$line")" = "$pods_wanted" ]
	done
}

@test "recording rules: promtool checks them and their tests pass (two pods on a GPU, a pod on two GPUs, a process outside Kubernetes)" {
	command -v promtool >/dev/null || skip "promtool (Debian's prometheus) is not installed"
	cd "$root"
	# The README's commands, as it gives them.
	grep -qxF 'promtool check rules contrib/prometheus/hmn.rules.yml' "$readme"
	grep -qxF 'promtool test rules tests/e2e/kubernetes-rules.yml' "$readme"
	promtool check rules contrib/prometheus/hmn.rules.yml
	promtool test rules tests/e2e/kubernetes-rules.yml
}

@test "the README's PromQL queries are the ones the rule tests evaluate" {
	python3 -c 'import yaml' 2>/dev/null || skip "python3's yaml module (Debian's python3-yaml) is not installed"
	python3 - "$readme" "$TESTS_DIR/e2e/kubernetes-rules.yml" <<'PY'
import re, sys, yaml
readme = open(sys.argv[1], encoding="utf-8").read()
section = readme.split("\n## Kubernetes\n", 1)[1].split("\n## ", 1)[0]
queries = re.findall(r"```promql\n(.*?)```", section, re.S)
queries = [q.strip() for block in queries for q in block.splitlines() if q.strip() and not q.startswith("#")]
tested = {t["expr"].strip() for test in yaml.safe_load(open(sys.argv[2]))["tests"] for t in test["promql_expr_test"]}
assert queries, "no promql block in the README's Kubernetes section"
for q in queries:
    assert q in tested, "untested query in the README: " + q
PY
}

# The manifest's documents, as JSON, through python3's yaml module.
manifest_json() {
	python3 -c 'import json, sys, yaml; print(json.dumps(list(yaml.safe_load_all(open(sys.argv[1])))))' "$manifest"
}

# comment_above LINE: the comment lines right above LINE in the manifest, joined.
comment_above() {
	awk -v key="$1" '$0 == key { print text; exit } /^ *#/ { sub(/^ *# ?/, ""); text = text " " $0; next } { text = "" }' "$manifest"
}

@test "DaemonSet manifest: kinds, hostPID, read-only root, no privilege, resources, volumes, GPU nodes" {
	python3 -c 'import yaml' 2>/dev/null || skip "python3's yaml module (Debian's python3-yaml) is not installed"
	json=$(manifest_json)
	[ "$(jq -c '[.[] | [.apiVersion, .kind]]' <<<"$json")" = '[["v1","Namespace"],["apps/v1","DaemonSet"]]' ]
	ns=$(jq -c '.[0]' <<<"$json")
	ds=$(jq -c '.[1]' <<<"$json")
	[ "$(jq -r '.metadata.name' <<<"$ns")" = "$(jq -r '.metadata.namespace' <<<"$ds")" ]
	# hostPID and hostPath need Pod Security's privileged level in that namespace.
	[ "$(jq -r '.metadata.labels["pod-security.kubernetes.io/enforce"]' <<<"$ns")" = privileged ]
	# The selector picks the template's pods.
	jq -e '.spec.selector.matchLabels as $m | .spec.template.metadata.labels | contains($m)' <<<"$ds"
	pod=$(jq -c '.spec.template.spec' <<<"$ds")
	jq -e '.hostPID == true and (.hostNetwork // false) == false and (.hostIPC // false) == false' <<<"$pod"
	jq -e '.automountServiceAccountToken == false and .runtimeClassName == "nvidia"' <<<"$pod"
	jq -e '.nodeSelector == {"nvidia.com/gpu.present": "true"}' <<<"$pod"
	jq -e '.tolerations == [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]' <<<"$pod"
	[ "$(jq '.containers | length' <<<"$pod")" -eq 1 ]
	[ "$(jq '.initContainers // [] | length' <<<"$pod")" -eq 0 ]
	c=$(jq -c '.containers[0]' <<<"$pod")
	# No privilege beyond what NVML needs: the device nodes the toolkit adds.
	jq -e '.securityContext | .privileged == false and .allowPrivilegeEscalation == false and
		.readOnlyRootFilesystem == true and .capabilities == {"drop": ["ALL"]} and
		.seccompProfile.type == "RuntimeDefault"' <<<"$c"
	jq -e '[.env[] | {(.name): .value}] | add == {"NVIDIA_VISIBLE_DEVICES": "all", "NVIDIA_DRIVER_CAPABILITIES": "utility"}' <<<"$c"
	jq -e '.resources == {"requests": {"cpu": "10m", "memory": "32Mi"}, "limits": {"memory": "64Mi"}}' <<<"$c"
	# One volume: the host's textfile directory, mounted where -o writes, writable.
	jq -e '.volumes == [{"name": "textfile", "hostPath": {"path": "/var/lib/node_exporter/textfile_collector", "type": "DirectoryOrCreate"}}]' <<<"$pod"
	jq -e '.volumeMounts == [{"name": "textfile", "mountPath": "/textfile"}]' <<<"$c"
	output_path=$(jq -r '.args as $a | $a[($a | index("-o")) + 1]' <<<"$c")
	[ "$(dirname "$output_path")" = /textfile ]
	# The image's entrypoint (hmn) runs: no command, the image the Containerfile makes at this version.
	[ "$(jq -r '.command // "none"' <<<"$c")" = none ]
	[ "$(jq -r '.image' <<<"$c")" = "registry.example.com/hmn:$(sed -n "s/^\tversion: '\(.*\)',$/\1/p" "$root/meson.build")" ]
	grep -qx 'ENTRYPOINT \["hmn"\]' "$root/contrib/container/Containerfile"
	# The node selector, the toleration and the runtime class say why, in comments.
	[[ "$(comment_above '      nodeSelector:')" == *"nvidia.com/gpu.present=true is the label NVIDIA's GPU Feature Discovery"* ]]
	[[ "$(comment_above '      tolerations:')" == *"nvidia.com/gpu is the usual key"* ]]
	[[ "$(comment_above '      runtimeClassName: nvidia')" == *"NVIDIA container toolkit"*"where there is none and nvidia is the node's default runtime, remove this line"* ]]
}

@test "DaemonSet manifest: its hmn command line uses only options hmn's --help lists, and the README gives the same" {
	python3 -c 'import yaml' 2>/dev/null || skip "python3's yaml module (Debian's python3-yaml) is not installed"
	args=$(manifest_json | jq -r '.[1].spec.template.spec.containers[0].args | join(" ")')
	[ "$args" = "watch --format prometheus -o /textfile/hmn.prom --interval 15s" ]
	help=$("$HMN" --help; "$HMN" watch --help)
	for word in $args; do
		case "$word" in
		--*) [[ "$help" == *"  $word "* ]] ;;
		-?) [[ "$help" == *"  $word, --"* ]] ;;
		esac
	done
	grep -qF "hmn $args" "$readme"
}

@test "DaemonSet: the manifest's own command writes a textfile promtool accepts, with pod_uid labels" {
	command -v promtool >/dev/null || skip "promtool (Debian's prometheus) is not installed"
	python3 -c 'import yaml' 2>/dev/null || skip "python3's yaml module (Debian's python3-yaml) is not installed"
	gpu_node
	textfile="$BATS_TEST_TMPDIR/textfile/hmn.prom"
	mkdir -p "$(dirname "$textfile")"
	mapfile -t args < <(manifest_json | jq -r '.[1].spec.template.spec.containers[0].args[]')
	for i in "${!args[@]}"; do
		[ "${args[$i]}" != /textfile/hmn.prom ] || args[$i]=$textfile
	done
	run_split timeout 60 "$HMN" "${args[@]}" --count 1
	echo "# exit $status: $stderr"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	promtool check metrics <"$textfile"
	grep -q '^hmn_gpu_memory_used_bytes{' "$textfile"
	[ "$(grep -c "^hmn_process_gpu_memory_bytes{.*,pod_uid=\"$pod_a\"}" "$textfile")" -eq 2 ]
	[ "$(grep -c "^hmn_process_gpu_memory_bytes{.*,pod_uid=\"$pod_b\"}" "$textfile")" -eq 2 ]
}
