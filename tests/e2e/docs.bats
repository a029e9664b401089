#!/usr/bin/env bats
# The man page and the shell completions say what the tool does.

load helpers

completions="$TESTS_DIR/../completions"
man_source="$TESTS_DIR/../man/hmn.1.scd"
readme="$TESTS_DIR/../README.md"

words() { tr -s ' \n' '\n' | sed '/^$/d' | sort -u | tr '\n' ' '; }

bash_complete() {
	bash -c '
		source /usr/share/bash-completion/bash_completion 2>/dev/null || exit 77
		source "$1"
		read -ra COMP_WORDS <<<"$2"
		[[ "$2" == *" " ]] && COMP_WORDS+=("")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		COMP_LINE=$2 COMP_POINT=${#2}
		_hmn
		printf "%s\n" "${COMPREPLY[@]}"' _ "$completions/bash/hmn" "$1"
}

# The long options hmn [COMMAND] --help lists: made from the tables the parser itself uses.
help_options() {
	"$HMN" ${1:-} --help | grep -oE '^  (-[a-zA-Z], |    )--[a-z-]+' | grep -oE -- '--[a-z-]+' | words
}

@test "the help is made from the parser's tables: every option it lists is taken, every line fits 80 columns" {
	for command in "" free ps watch run fit; do
		"$HMN" $command --help >"$BATS_TEST_TMPDIR/help"
		! awk 'length($0) > 80' "$BATS_TEST_TMPDIR/help" | grep . || false
		for opt in $(help_options "$command"); do
			# Taken: not "unknown option" nor "not valid for" (a missing value, or none, is fine).
			run_split "$HMN" $command "$opt"
			[[ "$stderr" != *"unknown option"* && "$stderr" != *"not valid for"* ]]
		done
	done
	# What was missing from hmn watch --help once: --sort, --no-header, --bytes.
	[[ " $(help_options watch)" == *" --bytes "*" --no-header "*" --sort "* ]]
	[ "$(help_options run)" = "--backend --device --format --help --hold --interval --json --kill-after --limit --need --output --pick --quiet --verbose --version " ]
}

@test "bash completes the commands and every option the parser takes" {
	[ -f /usr/share/bash-completion/bash_completion ] || skip "bash-completion is not installed"
	[ "$(bash_complete 'hmn ' | words)" = "fit free help ps run watch " ]
	# hmn help COMMAND: the commands after help, and nothing after one of them.
	[ "$(bash_complete 'hmn help ' | words)" = "fit free ps run watch " ]
	[ "$(bash_complete 'hmn --json help w' | words)" = "watch " ]
	[ -z "$(bash_complete 'hmn help ps ' | words)" ]
	for command in free ps watch fit; do
		[ "$(bash_complete "hmn $command --" | words)" = "$(help_options $command)" ]
	done
	[ "$(bash_complete 'hmn run --' | words)" = "-- $(help_options run)" ]
	[ "$(bash_complete 'hmn --' | words)" = "$(help_options free)" ]
	[ "$(bash_complete 'hmn ps --sort ' | words)" = "device name pid vram " ]
	[ "$(bash_complete 'hmn free --format ' | words)" = "csv json prometheus table " ]
	[ "$(bash_complete 'hmn watch --format ' | words)" = "csv json prometheus table " ]
	[ "$(bash_complete 'hmn watch --rows ' | words)" = "gpus processes " ]
	[ "$(bash_complete 'hmn run --format ' | words)" = "json table " ]
	[ "$(bash_complete 'hmn fit --format ' | words)" = "json table " ]
	[ "$(bash_complete 'hmn fit --attention ' | words)" = "eager fused " ]
	# --kv-dtype offers the cache types hmn takes for a GGUF (the list its refusal names), and fp8 (safetensors).
	run_split "$HMN" fit "$MODELS/llama-2-7b.Q4_0.gguf" --memory 80GiB --kv-dtype q4_k
	[ "$status" -eq 2 ]
	[ "$(bash_complete 'hmn fit --kv-dtype ' | words)" = "$(sed 's/.*takes //; s/, / /g; s/ or / /' <<<"${stderr%%$'\n'*}" | words | sed 's/^/fp8 /' | words)" ]
	# The type lists are written in each shell's file: fish's and zsh's are bash's.
	completions="$TESTS_DIR/../completions"
	for list in dtypes kv_dtypes; do
		want=$(sed -n "s/^\tlocal $list=\"\(.*\)\"$/\1/p" "$completions/bash/hmn")
		[ -n "$want" ]
		[ "$(sed -n "s/^set -l $list '\(.*\)'$/\1/p" "$completions/fish/hmn.fish")" = "$want" ]
		[ "$(sed -n "s/^\t\tlocal $list='(\(.*\))'$/\1/p" "$completions/zsh/_hmn")" = "$want" ]
	done
	# After "run --", the command's own words: commands first.
	[[ " $(bash_complete 'hmn run -- ech' | words)" == *" echo "* ]]
}

@test "zsh completes the commands and every option the parser takes" {
	command -v zsh >/dev/null || skip "zsh is not installed"
	run timeout 30 zsh "$TESTS_DIR/e2e/zsh-complete.zsh" "$completions/zsh" "hmn "
	[ "$status" -eq 0 ]
	[ "$(words <<<"$output")" = "fit free help ps run watch " ]
	run timeout 30 zsh "$TESTS_DIR/e2e/zsh-complete.zsh" "$completions/zsh" "hmn help "
	[ "$status" -eq 0 ]
	[ "$(words <<<"$output")" = "fit free ps run watch " ]
	for command in free ps watch run fit; do
		run timeout 30 zsh "$TESTS_DIR/e2e/zsh-complete.zsh" "$completions/zsh" "hmn $command --"
		[ "$status" -eq 0 ]
		[ "$(grep -x -- '--[a-z-]*' <<<"$output" | words)" = "$(help_options $command)" ]
	done
}

@test "fish completes the commands and every option the parser takes" {
	command -v fish >/dev/null || skip "fish is not installed"
	run fish --no-config -c "source '$completions/fish/hmn.fish'; complete -C 'hmn '"
	[ "$(cut -f1 <<<"$output" | words)" = "fit free help ps run watch " ]
	run fish --no-config -c "source '$completions/fish/hmn.fish'; complete -C 'hmn help '"
	[ "$(cut -f1 <<<"$output" | words)" = "fit free ps run watch " ]
	for command in free ps watch run fit; do
		run fish --no-config -c "source '$completions/fish/hmn.fish'; complete -C 'hmn $command --'"
		[ "$(cut -f1 <<<"$output" | words)" = "$(help_options $command)" ]
	done
	run fish --no-config -c "source '$completions/fish/hmn.fish'; complete -C 'hmn free --format '"
	[ "$(cut -f1 <<<"$output" | words)" = "csv json prometheus table " ]
	run fish --no-config -c "source '$completions/fish/hmn.fish'; complete -C 'hmn watch --format '"
	[ "$(cut -f1 <<<"$output" | words)" = "csv json prometheus table " ]
	run fish --no-config -c "source '$completions/fish/hmn.fish'; complete -C 'hmn watch --rows '"
	[ "$(cut -f1 <<<"$output" | words)" = "gpus processes " ]
}

@test "the man page documents every command, option, column, JSON key, exit code and variable" {
	missing=()
	for word in free ps watch run fit help $(help_options) $(help_options free) $(help_options ps) $(help_options watch) \
		$(help_options run) $(help_options fit) -q -l -o -v -h -V \
		PART FITS MAX_CONTEXT MAX_BATCH LAYERS weights vision vision_bytes kv_cache activations optimizer runtime margin model format \
		architecture parameters dtype layers context_length context batch kv_dtype weights_dtype train \
		gpus_split parts weights_bytes kv_cache_bytes activations_bytes optimizer_bytes runtime_bytes \
		margin_bytes per_gpu_bytes gpus fits max_context max_batch gpu_layers planned warning \
		UTIL TEMP POWER COMMAND command exit_code signal duration_ms samples interval_ms measure \
		peak_bytes peak_shared_bytes devices processes spill process_peaks left_running peak_ram_bytes ram_measure limit_bytes limit_exceeded limit_exceeded_ms limit_exceeded_bytes mps unified_memory \
		hmn_gpu_memory_free_bytes hmn_process_gpu_memory_bytes \
		GPU NAME USED FREE TOTAL RESERVED SOURCE PID USER TYPE VRAM \
		SHARED index name uuid vendor pci_bus_id total_bytes free_bytes used_bytes \
		reserved_bytes driver_version source pid shared_used_bytes device_index device_name \
		device_uuid type user uid path protected ns_pid container mig RAM ram_bytes gpu_instance_id compute_instance_id parent_index HMN_NVML_LIBRARY HMN_NVIDIA_SMI HMN_PROCFS \
		HMN_SYSFS HMN_BACKENDS HMN_TIMEOUT HMN_PCI_IDS NO_COLOR nvml nvidia-smi drm dxgi pdh metal \
		nvml/unified shared_total_bytes picked hmn_up hmn_driver_info HMN_PICK_LOCK; do
		grep -q -- "\*$word\*" "$man_source" || missing+=("$word")
	done
	for code in 0 1 2 3 4 124 125 126 127; do
		grep -q "^\*$code\*$" "$man_source" || missing+=("exit $code")
	done
	echo "missing: ${missing[*]}"
	[ "${#missing[@]}" -eq 0 ]
}

@test "the man page's sections come in the order a reader meets them" {
	[ "$(grep '^# ' "$man_source" | tr '\n' '|')" = "# NAME|# SYNOPSIS|# TYPICAL USE|# DESCRIPTION|# COMMANDS|# GLOBAL OPTIONS|# OPTIONS FOR FREE|# OPTIONS FOR PS|# OPTIONS FOR WATCH|# OPTIONS FOR RUN|# OPTIONS FOR FIT|# SIZE AND DURATION|# TABLES|# SUMMARY LINE|# JSON OUTPUT|# PROMETHEUS|# EXIT STATUS|# ENVIRONMENT|# EXAMPLES|# SOURCES|# BUGS|# SEE ALSO|" ]
}

@test "the rendered man page keeps each example, and each sample, on lines of its own" {
	command -v scdoc >/dev/null || skip "scdoc is not installed"
	command -v man >/dev/null || skip "man (man-db) is not installed"
	scdoc <"$man_source" >"$BATS_TEST_TMPDIR/hmn.1"
	MANWIDTH=80 LC_ALL=C.UTF-8 man -l "$BATS_TEST_TMPDIR/hmn.1" 2>/dev/null | col -bx | sed 's/^[[:space:]]*//' >"$BATS_TEST_TMPDIR/page"
	# Every line of every code block of the source: a line of the page as it is, never run together.
	blocks=$(awk '/^[\t ]*```/ { inside = !inside; next } inside { sub(/^[\t ]+/, ""); gsub(/\\\\/, "\\"); print }' "$man_source") # scdoc's \\ is one \
	[ "$(wc -l <<<"$blocks")" -gt 20 ]
	while IFS= read -r line; do
		grep -qxF -- "$line" "$BATS_TEST_TMPDIR/page" || { echo "not a line of its own: $line"; false; }
	done <<<"$blocks"
	# Each example a block of its own, one command a line: the estimate beside the truth ran three on one.
	examples=$(sed -n '/^# EXAMPLES/,/^# SOURCES/p' "$man_source" | awk '/^```/ { inside = !inside; next } inside')
	[ "$(wc -l <<<"$examples")" -gt 15 ]
	[ -z "$(joined_commands <<<"$examples")" ]
	# The README's commands too.
	[ -z "$(awk '/^```/ { inside = !inside; next } inside && /^hmn /' "$readme" | joined_commands)" ]
	grep -qxF "hmn run -- python3 train.py" "$BATS_TEST_TMPDIR/page"
}

# joined_commands: the lines read that run two commands or more (";" or "&&" outside quotes).
joined_commands() {
	sed -E "s/'[^']*'//g; s/\"[^\"]*\"//g" | grep -E ';|&&' || true
}

@test "the help says where hmn run's report goes, --json too" {
	[[ "$("$HMN" --help)" == *"run    runs COMMAND; its peak GPU memory on stderr (--json too) or -o FILE"* ]]
	[[ "$("$HMN" run --help)" == *"--json                 the report in JSON, on stderr (or in FILE)"* ]]
}

@test "every key hmn really prints is in the man page" {
	export HMN_BACKENDS=drm HMN_SYSFS="$TESTS_DIR/fixtures/drm/sys" HMN_PROCFS="$TESTS_DIR/fixtures/drm/proc"
	keys=$({ "$HMN" free --json; "$HMN" ps --json 2>/dev/null; } | jq -r '.[] | keys[]' | sort -u)
	[ -n "$keys" ]
	missing=()
	for key in $keys; do
		grep -q -- "\*$key\*" "$man_source" || missing+=("$key")
	done
	echo "missing: ${missing[*]}"
	[ "${#missing[@]}" -eq 0 ]
}

# What the README's examples run against: the stand-in's two GPUs, a training
# job and Xorg; and an hmn on PATH, a kill that only says what it was asked
# to kill, a train.py and a Makefile, in a directory of their own.
readme_setup() {
	common_setup
	two_gpus 'proc gpu=0 pid=4242 used=20266876928 list=compute' 'proc gpu=1 pid=777 used=268435456 list=graphics'
	fake_process 4242 0 /usr/bin/python3.11 "" 3250586
	fake_process 777 0 /usr/lib/xorg/Xorg "" 217088
	fake_cmdline 4242 python3.11 train.py --epochs 3
	work="$BATS_TEST_TMPDIR/work"
	mkdir -p "$work/bin"
	# hmn watch runs until told to stop: here, two samples.
	printf '#!/bin/bash\n[ "$1" = watch ] && set -- "$@" --count 2 --interval 10ms\nexec "%s" "$@"\n' "$HMN" >"$work/bin/hmn"
	printf '#!/bin/sh\necho "$@" >>"%s/killed"\n' "$work" >"$work/bin/kill"
	chmod +x "$work/bin/hmn" "$work/bin/kill"
	printf 'import time\ntime.sleep(0.2)\n' >"$work/train.py"
	printf 'test:\n\ttrue\n' >"$work/Makefile"
}

@test "the README's first block is hmn's real output against the stand-in" {
	readme_setup
	want=$(awk '/^```/ { n++; next } n == 1' "$readme")
	got=$(awk '/^```/ { n++; next } n == 1 && /^\$ / { print substr($0, 3) }' "$readme" | while IFS= read -r command; do
		printf '$ %s\n' "$command"
		(cd "$work" && PATH="$work/bin:$PATH" bash -c "$command" 2>&1)
		echo
	done)
	diff <(printf '%s\n' "$want") <(printf '%s\n' "${got%$'\n'}") | sed 's/^/# /' >&3 || true
	[ "$got" = "$want"$'\n' ] || [ "${got%$'\n'}" = "$want" ]
}

@test "the README's recipes run, and do what they say" {
	command -v make >/dev/null || skip "make is not installed"
	readme_setup
	recipes=$(awk '/^## Recipes/ { on = 1 } on && /^```sh/ { inside = 1; next } inside && /^```/ { exit } inside && !/^#/ && NF' "$readme")
	[ "$(wc -l <<<"$recipes")" -ge 9 ]
	while IFS= read -r recipe; do
		run_split bash -c "cd '$work' && PATH='$work/bin':\$PATH && set -o pipefail && $recipe"
		sed 's/^/# /' <<<"$recipe: $status: $output" >&3
		[ "$status" -eq 0 ]
		case "$recipe" in
		*xargs\ -r\ kill*) [ "$(cat "$work/killed")" = "4242" ] ;;
		*"group_by(.user)"* | *"sum[\$2]"*) [[ "$output" == *"root 20535312384"* ]] ;;
		*"--pick 1 --"*) [[ "$stderr" == *"; picked GPU-aaaaaaaa-1111-2222-3333-444444444444." ]] ;;
		*"--pick 2"*) [ -z "$stderr" ] ;;
		"hmn watch --format csv"*)
			# A header and two samples of two GPUs (the stand-in hmn takes two).
			[ "$(wc -l <"$work/gpu-log.csv")" -eq 5 ]
			[[ "$(head -1 "$work/gpu-log.csv")" == time,index,name,* ]]
			;;
		"hmn watch"*) [ "${#lines[@]}" -eq 2 ] ;;
		*"--limit 8GiB"*) [[ "$stderr" == *": peak 0B of GPU memory"* && "$stderr" != *"stopped by --limit"* ]] ;;
		esac
	done <<<"$recipes"
}

@test "one naming convention for files: lowercase with hyphens, but where a tool names them" {
	cd "$TESTS_DIR/.."
	# zsh's completion functions are _NAME; Meson's options file and the cross files' target triplets are theirs;
	# podman and buildah look for a Containerfile; README.md, LICENSE and CODING_STYLE.md are the
	# names a reader looks for (systemd's, among others); debhelper builds in obj-TRIPLET.
	bad=$(find lib src man completions cross contrib debian tests -path tests/fixtures -prune -o \
		-path 'debian/.*' -prune -o -path debian/tmp -prune -o -path debian/hmn -prune -o -type f -print |
		grep -Ev '/[a-z0-9.-]+$' |
		grep -vxE 'completions/zsh/_hmn|cross/x86_64-w64-mingw32\.txt|contrib/container/Containerfile' || true)
	echo "$bad"
	[ -z "$bad" ]
	[ -z "$(ls | grep -vxE '[a-z0-9.-]+|README\.md|LICENSE|CODING_STYLE\.md|meson_options\.txt|build[a-z0-9-]*|obj-[a-z0-9_-]+' || true)" ]
}

# includes DIR: the lib/ paths that DIR's files include, one a line ("gpu/source.h", "hmn.h").
includes() {
	grep -rhoE '^#include "[^"]+"' "$TESTS_DIR/../lib/$1" | sed -E 's/^#include "(.*)"$/\1/' | sort -u
}

@test "lib's layers (CODING_STYLE.md): no folder includes one above it; no header past 350 lines" {
	# util/ the C library alone; os/ util/; model/ util/ and os/; gpu/ never run/ nor model/.
	bad=$(includes util | grep -vE '^(util/|hmn-common\.h$)' || true)
	bad+=$(includes os | grep -vE '^(os/|util/|hmn-common\.h$)' || true)
	bad+=$(includes model | grep -vE '^(model/|util/|os/os\.h$|hmn-model\.h$|hmn-common\.h$)' || true)
	bad+=$(includes gpu | grep -E '^(run/|model/|hmn-run\.h$|hmn-model\.h$)' || true)
	bad+=$(includes run | grep -E '^(model/|gpu/context\.h$|gpu/source\.h$|hmn-model\.h$)' || true)
	echo "$bad"
	[ -z "$bad" ]
	# struct hmn_context is gpu/'s own.
	[ -z "$(grep -rl 'gpu/context\.h' "$TESTS_DIR/../lib" | grep -v '/lib/gpu/' || true)" ]
	# An OS folder's own headers stay in os/, but for the two users each names.
	os_private=$(cd "$TESTS_DIR/.." && grep -rlE '#include "os/(linux|posix|windows|darwin)/' lib src |
		grep -vE '^lib/os/|^lib/gpu/drm/drm(-proc)?\.c$|^src/sys-windows(-file)?\.c$' || true)
	echo "$os_private"
	[ -z "$os_private" ]
	# The tool's OS differences are its seam's alone (sys.h, sys-*.c).
	ifdefs=$(cd "$TESTS_DIR/.." && grep -lE '^#if.*_WIN32' src/*.c src/*.h | grep -vE '^src/sys(-[a-z-]+\.c|\.h)$' || true)
	echo "$ifdefs"
	[ -z "$ifdefs" ]
	long=$(find "$TESTS_DIR/../lib" -name '*.h' -exec awk 'END { if (NR > 350) print FILENAME ": " NR }' {} \;)
	echo "$long"
	[ -z "$long" ]
}

@test "the vendor ABIs hmn declares: only what it uses, every struct's size pinned, no vendor header copied in" {
	cd "$TESTS_DIR/.."
	# NVIDIA's nvml.h is never copied in; nothing of ours is named so either.
	[ -z "$(find lib src tests -name nvml.h)" ]
	bad=""
	for abi in lib/gpu/nvml/nvml-abi.h lib/gpu/metal/metal-abi.h; do
		# Each struct, typedef'd or tagged, has a size assertion.
		for type in $(grep -oE '^\} *[A-Za-z0-9_]+_t;' "$abi" | grep -oE '[A-Za-z0-9_]+_t') \
			$(grep -oE '^struct [a-z_]+ \{' "$abi" | awk '{ print "struct " $2 }' | tr ' ' '~'); do
			grep -q "sizeof(${type//\~/ })" "$abi" || bad+=" $abi: no size check for ${type//\~/ };"
		done
	done
	# Each NVML name it declares is used by the reader, the stand-in or the baseline bench.
	for name in $(grep -oE '\b(NVML_[A-Z0-9_]+|nvml[A-Za-z0-9]+_t|nvml_[a-z_]+_fn)\b' lib/gpu/nvml/nvml-abi.h | sort -u); do
		grep -qw "$name" lib/gpu/nvml/nvml.c tests/stub/nvml-stub.c tests/bench/baseline.c ||
			[ "$(grep -cw "$name" lib/gpu/nvml/nvml-abi.h)" -gt 1 ] || bad+=" $name: declared, unused;"
	done
	echo "$bad"
	[ -z "$bad" ]
}

@test "the README's list of hmn run --json's keys is the keys hmn writes, in order" {
	export HMN_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1
	run_split "$HMN" run --json -- true
	[ "$status" -eq 0 ]
	got=$(tail -1 <<<"$stderr" | jq -c 'keys_unsorted')
	# The README's `hmn run --json` one report, `{"command", ...}`, joined across its lines.
	want=$(tr '\n' ' ' <"$readme" | grep -o 'hmn run --json` one report, `{[^}]*}' | grep -o '{.*}' | jq -c -R 'sub("^{"; "[") | sub("}$"; "]") | fromjson')
	echo "README: $want"
	echo "hmn:    $got"
	[ "$want" = "$got" ]
}

@test "one version, meson.build's: hmn --version, debian/changelog, the image's tag and the README's commands" {
	cd "$TESTS_DIR/.."
	version=$(sed -n "s/^\tversion: '\(.*\)',$/\1/p" meson.build)
	[ -n "$version" ]
	[ "$("$HMN" --version)" = "hmn $version" ]
	# Debian's revision after it.
	[ "$(sed -n '1s/^hmn (\(.*\)-[0-9]*) .*/\1/p' debian/changelog)" = "$version" ]
	# Every version written beside hmn's name (a package file, an image tag) is that one.
	written=$(grep -ohE '(hmn[_:-]|image\.version=")[0-9]+\.[0-9]+\.[0-9]+' README.md contrib/kubernetes/hmn.yaml \
		contrib/container/Containerfile | sed 's/^.*[_:"-]//' | sort -u)
	[ "$written" = "$version" ]
	grep -q "image.version=\"$version\"" contrib/container/Containerfile
}

@test "the examples' sizes are binary: --memory 80GB plans a GPU of 74.5 GiB, not the 80 GiB card it means" {
	# The man page's "hmn fit Meta-Llama-3-70B/ --dtype fp8 --gpus 2 --memory 80GB" planned 74.5 GiB GPUs.
	docs="$TESTS_DIR/.."
	run grep -nE -- '--(memory|need)[ =][0-9.]+[kKMGT]B\b' "$docs/man/hmn.1.scd" "$docs/README.md"
	[ "$status" -eq 1 ]
	grep -q -- '--memory 80GiB' "$docs/man/hmn.1.scd"
}

@test "the man page says which towers model.parameters leaves out: those hmn cannot derive, warned" {
	# It said model.parameters counts the whole model, as its card does, while a tower hmn cannot derive from
	# config.json (Gemma 3n's before it priced MobileNet-V5) is left out and warned: the exception is written
	# where the rule is, and holds.
	man="$TESTS_DIR/../man/hmn.1.scd"
	grep -q "a tower \*hmn\* cannot derive from its _config.json_" "$man"
	jq '.vision_config.architecture = "mobilenetv4_conv_small"' "$TESTS_DIR/fixtures/fit/gemma-3n-E2B-it/config.json" \
		>"$BATS_TEST_TMPDIR/config.json"
	run_split "$HMN" fit "$BATS_TEST_TMPDIR/config.json" --memory 80GiB --json
	[ "$status" -eq 0 ]
	echo "$output" | jq -e '.model.warning == "its vision_config (mobilenetv4_conv_small) is not one hmn prices: the image tower is left out"
		and .model.parameters < 5436718272'
}
