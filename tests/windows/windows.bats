#!/usr/bin/env bats
# hmn.exe under Wine: the same commands, exit codes and JSON as on Linux.
# Wine has no GPU: DXGI fails and the PDH GPU counters are missing, so the
# default sources find none; --backend nvml with a Windows build of the
# stand-in NVML (by absolute path, as HMN_NVML_LIBRARY must be) lists GPUs.

bats_require_minimum_version 1.5.0

setup() {
	export WINEDEBUG=-all
	wine=(/usr/lib/wine/wine64)
	unset HMN_BACKENDS HMN_NVML_LIBRARY HMN_NVIDIA_SMI
	export HMN_STUB_SCENARIO="$BATS_TEST_TMPDIR/scenario"
	printf '%s\n' \
		'gpu name="NVIDIA GeForce RTX 4090" uuid=GPU-aaaaaaaa-1111-2222-3333-444444444444 pci=00000000:01:00.0 total=25757220864 reserved=346030080 used=1048576' \
		'proc gpu=0 pid=4 used=na list=graphics' \
		'proc gpu=0 pid=999999 used=na list=compute' >"$HMN_STUB_SCENARIO"
	stub="Z:$(tr / '\\' <<<"$NVML_STUB_DLL")"
}

@test "hmn.exe --version and --help" {
	run "${wine[@]}" "$HMN" --version
	[ "$status" -eq 0 ]
	[ "$(tr -d '\r' <<<"$output")" = "hmn 0.1.0" ]
	run "${wine[@]}" "$HMN" --help
	[ "$status" -eq 0 ]
	[[ "$output" == "Usage: hmn [GLOBAL OPTIONS] [COMMAND] [OPTIONS]"* ]]
}

@test "no GPU (Wine has none): free and ps exit 3 and say what was tried" {
	run --separate-stderr "${wine[@]}" "$HMN" free
	[ "$status" -eq 3 ]
	[ "$output" = "" ]
	[ "$(tr -d '\r' <<<"$stderr")" = "hmn: no GPU found (tried dxgi: CreateDXGIFactory1 failed (0x887a0004); pdh: the GPU Adapter Memory counters are missing (Windows before 10 1709?))" ]
	run --separate-stderr "${wine[@]}" "$HMN" ps --json
	[ "$status" -eq 3 ]
	[ "$output" = "" ]
}

@test "a bad option exits 2 with one line and the hint" {
	run --separate-stderr "${wine[@]}" "$HMN" --bogus
	[ "$status" -eq 2 ]
	[ "$(tr -d '\r' <<<"$stderr")" = $'hmn: unknown option \'--bogus\'\nTry \'hmn --help\'.' ]
}

@test "ps --json through NVML on Windows: valid JSON, PID 4 is [kernel], a gone pid keeps name null" {
	HMN_NVML_LIBRARY="$stub" run --separate-stderr "${wine[@]}" "$HMN" --backend nvml ps --json
	[ "$status" -eq 0 ]
	jq -e . <<<"$output" >/dev/null
	[ "$(jq -c '[.[] | [.pid, .name, .used_bytes, .type, .source]]' <<<"$output")" = '[[4,"[kernel]",null,"graphics","nvml"],[999999,null,null,"compute","nvml"]]' ]
	[ "$(tr -d '\r' <<<"$stderr")" = "hmn: 2 GPU processes found (0 MiB total)." ]
}

@test "free --json through NVML on Windows: the same keys as on Linux" {
	HMN_NVML_LIBRARY="$stub" run --separate-stderr "${wine[@]}" "$HMN" --backend nvml free --json
	[ "$status" -eq 0 ]
	[ "$output" = '[{"index":0,"name":"NVIDIA GeForce RTX 4090","uuid":"GPU-aaaaaaaa-1111-2222-3333-444444444444","vendor":"nvidia","pci_bus_id":"0000:01:00.0","total_bytes":25757220864,"free_bytes":25410142208,"used_bytes":1048576,"reserved_bytes":346030080,"shared_total_bytes":null,"shared_used_bytes":null,"driver_version":"550.54.15","source":"nvml","mig":null,"unified_memory":false,"utilization_percent":null,"memory_utilization_percent":null,"temperature_celsius":null,"power_milliwatts":null,"power_limit_milliwatts":null,"compute_capability":null}]' ]
}

@test "an nvml.dll planted in the working directory is never loaded" {
	mkdir -p "$BATS_TEST_TMPDIR/planted"
	cp "$NVML_STUB_DLL" "$BATS_TEST_TMPDIR/planted/nvml.dll"
	cd "$BATS_TEST_TMPDIR/planted"
	run --separate-stderr "${wine[@]}" "$HMN" --backend nvml free
	[ "$status" -eq 3 ]
	[ "$(tr -d '\r' <<<"$stderr")" = "hmn: no GPU found (tried nvml: nvml.dll not found in System32 or the NVSMI folder)" ]
	HMN_NVML_LIBRARY=nvml.dll run --separate-stderr "${wine[@]}" "$HMN" --backend nvml free
	[ "$status" -eq 3 ]
	HMN_NVML_LIBRARY='.\nvml.dll' run --separate-stderr "${wine[@]}" "$HMN" --backend nvml free
	[ "$status" -eq 3 ]
	[[ "$(tr -d '\r' <<<"$stderr")" == *'.\nvml.dll: not an absolute path, refused'* ]]
}

@test "an nvidia-smi.exe is run only by absolute path" {
	HMN_NVIDIA_SMI='nvidia-smi.exe' run --separate-stderr "${wine[@]}" "$HMN" --backend nvidia-smi free
	[ "$status" -eq 3 ]
	[[ "$(tr -d '\r' <<<"$stderr")" == *"HMN_NVIDIA_SMI=nvidia-smi.exe: not an absolute path, refused"* ]]
	run --separate-stderr "${wine[@]}" "$HMN" --backend nvidia-smi free
	[ "$status" -eq 3 ]
	[[ "$(tr -d '\r' <<<"$stderr")" == *"nvidia-smi.exe not found in System32 or the NVSMI folder"* ]]
}

@test "an external program is started, read and ended: cmd.exe stands in for nvidia-smi" {
	# cmd.exe given nvidia-smi's arguments prints its banner, not CSV: what it printed was
	# read (its lines are counted), and it is a runtime failure, not a hang or a crash.
	HMN_NVIDIA_SMI='C:\windows\system32\cmd.exe' HMN_TIMEOUT=5 run --separate-stderr "${wine[@]}" "$HMN" --backend nvidia-smi -v free
	[ "$status" -eq 1 ]
	[[ "$(tr -d '\r' <<<"$stderr")" == *"nvidia-smi: ran C:\windows\system32\cmd.exe: 0 GPUs"* ]]
	[[ "$(tr -d '\r' <<<"$stderr")" == *"GPU lines could not be read"* ]]
}

@test "hmn.exe watch: JSON Lines through NVML on Windows, --count ends it" {
	HMN_NVML_LIBRARY="$stub" run --separate-stderr "${wine[@]}" "$HMN" --backend nvml watch --count 2 --interval 100ms --json
	[ "$status" -eq 0 ]
	[ "$(tr -d '\r' <<<"$output" | wc -l)" -eq 2 ]
	tr -d '\r' <<<"$output" | jq -e -s 'length == 2 and .[0].gpus[0].name == "NVIDIA GeForce RTX 4090" and .[1].elapsed_ms >= 90'
	[[ "$(tr -d '\r' <<<"$stderr")" == "hmn: 2 samples over "* ]]
}

@test "hmn.exe run: COMMAND in a job object, its exit code, its output through, the report with spill" {
	# hmn.exe itself is the command (cmd.exe /c has quoting rules of its own).
	self="Z:$(tr / '\\' <<<"$HMN")"
	HMN_NVML_LIBRARY="$stub" run --separate-stderr "${wine[@]}" "$HMN" --backend nvml run --json -- "$self" --version
	[ "$status" -eq 0 ]
	[ "$(tr -d '\r' <<<"$output")" = "hmn 0.1.0" ]
	report=$(tr -d '\r' <<<"$stderr" | tail -1)
	# Windows measures spill: nothing shared grew here, so no episode.
	[ "$(jq -c '[.command[1], .exit_code, .signal, .measure, .spill.episodes]' <<<"$report")" = '["--version",0,null,"per-process",0]' ]
	HMN_NVML_LIBRARY="$stub" run --separate-stderr "${wine[@]}" "$HMN" --backend nvml run -- "$self" --bogus
	[ "$status" -eq 2 ]
	[[ "$(tr -d '\r' <<<"$stderr")" == "hmn: unknown option '--bogus'"* ]]
}

@test "hmn.exe run: a command not found is 127, never looked for in the current directory" {
	cp "$HMN" "$BATS_TEST_TMPDIR/planted.exe"
	cd "$BATS_TEST_TMPDIR"
	run --separate-stderr "${wine[@]}" "$HMN" run -- planted.exe --version
	[ "$status" -eq 127 ]
	[ "$(tr -d '\r' <<<"$stderr" | tail -1)" = "hmn: planted.exe: command not found" ]
}
