#!/usr/bin/env bats
# The man page and the shell completions say what the tool does.

load helpers

completions="$TESTS_DIR/../completions"
man_source="$TESTS_DIR/../man/hmn.1.scd"

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

@test "bash completes the commands and ps's options" {
	[ -f /usr/share/bash-completion/bash_completion ] || skip "bash-completion is not installed"
	[ "$(bash_complete 'hmn ' | words)" = "free ps run watch " ]
	[ "$(bash_complete 'hmn ps --' | words)" = "--backend --bytes --device --format --help --json --no-header --output --pid --sort --verbose --version " ]
	[ "$(bash_complete 'hmn free --' | words)" = "--backend --bytes --device --format --help --json --long --need --no-header --output --verbose --version " ]
	[ "$(bash_complete 'hmn ps --sort ' | words)" = "device name pid vram " ]
	[ "$(bash_complete 'hmn watch --' | words)" = "--backend --bytes --count --device --duration --format --help --interval --json --long --no-header --output --pid --sort --verbose --version " ]
	[ "$(bash_complete 'hmn run --' | words)" = "-- --backend --device --format --help --interval --json --output --verbose --version " ]
	[ "$(bash_complete 'hmn free --format ' | words)" = "csv json prometheus table " ]
	[ "$(bash_complete 'hmn watch --format ' | words)" = "json table " ]
	# After "run --", the command's own words: commands first.
	[[ " $(bash_complete 'hmn run -- ech' | words)" == *" echo "* ]]
}

@test "zsh completes the commands and ps's options" {
	command -v zsh >/dev/null || skip "zsh is not installed"
	run timeout 30 zsh "$TESTS_DIR/e2e/zsh-complete.zsh" "$completions/zsh" "hmn "
	[ "$status" -eq 0 ]
	[ "$(words <<<"$output")" = "free ps run watch " ]
	run timeout 30 zsh "$TESTS_DIR/e2e/zsh-complete.zsh" "$completions/zsh" "hmn ps --"
	[ "$status" -eq 0 ]
	[ "$(words <<<"$output")" = "--backend --bytes --device --format --help --json --no-header --output --pid --sort --verbose --version " ]
	run timeout 30 zsh "$TESTS_DIR/e2e/zsh-complete.zsh" "$completions/zsh" "hmn watch --"
	[ "$status" -eq 0 ]
	[ "$(words <<<"$output")" = "--backend --bytes --count --device --duration --format --help --interval --json --long --no-header --output --pid --sort --verbose --version " ]
}

@test "fish completes the commands and ps's options" {
	command -v fish >/dev/null || skip "fish is not installed"
	run fish --no-config -c "source '$completions/fish/hmn.fish'; complete -C 'hmn '"
	[ "$(cut -f1 <<<"$output" | words)" = "free ps run watch " ]
	run fish --no-config -c "source '$completions/fish/hmn.fish'; complete -C 'hmn ps --'"
	[ "$(cut -f1 <<<"$output" | words)" = "--backend --bytes --device --format --help --json --no-header --output --pid --sort --verbose --version " ]
	run fish --no-config -c "source '$completions/fish/hmn.fish'; complete -C 'hmn free --'"
	[[ "$output" != *"--pid"* ]]
	[ "$(cut -f1 <<<"$output" | words)" = "--backend --bytes --device --format --help --json --long --need --no-header --output --verbose --version " ]
	run fish --no-config -c "source '$completions/fish/hmn.fish'; complete -C 'hmn watch --'"
	[ "$(cut -f1 <<<"$output" | words)" = "--backend --bytes --count --device --duration --format --help --interval --json --long --no-header --output --pid --sort --verbose --version " ]
	run fish --no-config -c "source '$completions/fish/hmn.fish'; complete -C 'hmn free --format '"
	[ "$(cut -f1 <<<"$output" | words)" = "csv json prometheus table " ]
}

@test "the man page documents every command, option, column, JSON key, exit code and variable" {
	missing=()
	for word in free ps watch run --format --output --need --long --interval --count --duration \
		UTIL TEMP POWER command exit_code signal duration_ms samples interval_ms measure \
		peak_bytes peak_shared_bytes devices processes spill process_peaks mps unified_memory \
		hmn_gpu_memory_free_bytes hmn_process_gpu_memory_bytes \
		free ps --json --backend --verbose --help --version --device --no-header \
		--bytes --pid --sort GPU NAME USED FREE TOTAL RESERVED SOURCE PID USER TYPE VRAM \
		SHARED index name uuid vendor pci_bus_id total_bytes free_bytes used_bytes \
		reserved_bytes driver_version source pid shared_used_bytes device_index device_name \
		device_uuid type user uid path protected ns_pid container mig gpu_instance_id compute_instance_id parent_index HMN_NVML_LIBRARY HMN_NVIDIA_SMI HMN_PROCFS \
		HMN_SYSFS HMN_BACKENDS HMN_TIMEOUT HMN_PCI_IDS NO_COLOR nvml nvidia-smi drm dxgi pdh metal \
		shared_total_bytes; do
		grep -q -- "\*$word\*" "$man_source" || missing+=("$word")
	done
	for code in 0 1 2 3 4 125 126 127; do
		grep -q "^\*$code\*$" "$man_source" || missing+=("exit $code")
	done
	echo "missing: ${missing[*]}"
	[ "${#missing[@]}" -eq 0 ]
}

@test "the help names every option the parser accepts" {
	run "$HMN" --help
	for opt in --json --backend --verbose --help --version; do
		[[ "$output" == *"$opt"* ]]
	done
	run "$HMN" ps --help
	for opt in --pid --device --sort --no-header --bytes --json --format --output; do
		[[ "$output" == *"$opt"* ]]
	done
	run "$HMN" free --help
	for opt in --device --need --long --no-header --bytes --json --format --output; do
		[[ "$output" == *"$opt"* ]]
	done
	run "$HMN" watch --help
	for opt in --interval --count --duration --pid --device --long --json; do
		[[ "$output" == *"$opt"* ]]
	done
	run "$HMN" run --help
	for opt in --interval --device --json --output; do
		[[ "$output" == *"$opt"* ]]
	done
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
