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

teardown() {
	for pid in ${started_pids:-}; do
		kill "$pid" 2>/dev/null || true
	done
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

@test "options as getopt_long takes them, before and after the command: mingw-w64's getopt, started afresh each pass" {
	export HMN_NVML_LIBRARY="$stub"
	cd "$BATS_TEST_TMPDIR"
	run --separate-stderr "${wine[@]}" "$HMN" ps --backend=nvml -q --js
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[ "$(tr -d '\r' <<<"$output" | jq -c '[.[].pid]')" = '[4,999999]' ]
	run --separate-stderr "${wine[@]}" "$HMN" --backend nvml -q free -lofree.json --dev 0 --json
	[ "$status" -eq 0 ]
	[ "$(jq -c '[.[].index]' free.json)" = '[0]' ]
	run --separate-stderr "${wine[@]}" "$HMN" --backend nvml fit -l
	[ "$status" -eq 2 ]
	[ "$(tr -d '\r' <<<"$stderr")" = $'hmn: option \'-l\' is not valid for \'hmn fit\'\nTry \'hmn fit --help\'.' ]
	run --separate-stderr "${wine[@]}" "$HMN" watch --d 1
	[ "$status" -eq 2 ]
	[ "$(tr -d '\r' <<<"$stderr" | head -1)" = "hmn: option '--d' is ambiguous (--duration, --device)" ]
	run --separate-stderr "${wine[@]}" "$HMN" --backend nvml run --interval 0.5ms -- cmd
	[ "$status" -eq 125 ]
	[ "$(tr -d '\r' <<<"$stderr" | tail -1)" = "Try 'hmn run --help'." ]
}

@test "ps --json through NVML on Windows: valid JSON, PID 4 is [kernel], a gone pid keeps name null" {
	HMN_NVML_LIBRARY="$stub" run --separate-stderr "${wine[@]}" "$HMN" --backend nvml ps --json
	[ "$status" -eq 0 ]
	jq -e . <<<"$output" >/dev/null
	[ "$(jq -c '[.[] | [.pid, .name, .used_bytes, .type, .source]]' <<<"$output")" = '[[4,"[kernel]",null,"graphics","nvml"],[999999,null,null,"compute","nvml"]]' ]
	[ "$(tr -d '\r' <<<"$stderr")" = "hmn: 2 GPU processes found (0MiB total)." ]
}

@test "ps --json on Windows: ram_bytes is the working set (K32GetProcessMemoryInfo), null where the process is gone" {
	printf '%s\n' \
		'gpu name="NVIDIA GeForce RTX 4090" uuid=GPU-aaaaaaaa-1111-2222-3333-444444444444 pci=00000000:01:00.0 total=25757220864 reserved=346030080 used=1048576' \
		'proc gpu=0 pid=self used=1048576 list=compute' \
		'proc gpu=0 pid=999999 used=na list=compute' >"$HMN_STUB_SCENARIO"
	HMN_NVML_LIBRARY="$stub" run --separate-stderr "${wine[@]}" "$HMN" --backend nvml ps --json --sort pid
	[ "$status" -eq 0 ]
	# hmn.exe itself (the stand-in reports its caller): a working set of at least 1 MiB and under 1 GiB.
	[ "$(jq -c '[.[] | [.name, (.ram_bytes | if . == null then null else (. >= 1048576 and . < 1073741824) end)]]' <<<"$output")" = '[["hmn.exe",true],[null,null]]' ]
	HMN_NVML_LIBRARY="$stub" run --separate-stderr "${wine[@]}" "$HMN" --backend nvml ps --no-header --sort pid
	[ "$status" -eq 0 ]
	[[ "$(tr -d '\r' <<<"${lines[0]}")" =~ ^\ *[0-9]+\ +[^\ ]+\ +C\ +1MiB\ +-\ +[0-9]+MiB\ +0\ +hmn\.exe$ ]]
}

@test "ps on Windows: no command lines (none without reading a process's memory): null, and ? in -l's COMMAND" {
	printf '%s\n' \
		'gpu name="NVIDIA GeForce RTX 4090" uuid=GPU-aaaaaaaa-1111-2222-3333-444444444444 pci=00000000:01:00.0 total=25757220864 reserved=346030080 used=1048576' \
		'proc gpu=0 pid=self used=1048576 list=compute' >"$HMN_STUB_SCENARIO"
	HMN_NVML_LIBRARY="$stub" run --separate-stderr "${wine[@]}" "$HMN" --backend nvml ps --json
	[ "$status" -eq 0 ]
	[ "$(jq -c '[.[] | [.name, .command]]' <<<"$output")" = '[["hmn.exe",null]]' ]
	HMN_NVML_LIBRARY="$stub" run --separate-stderr "${wine[@]}" "$HMN" --backend nvml ps -l
	[ "$status" -eq 0 ]
	[[ "$(tr -d '\r' <<<"${lines[0]}")" == *"  NAME     COMMAND" ]]
	[[ "$(tr -d '\r' <<<"${lines[1]}")" == *"  hmn.exe  ?" ]]
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
	# A relative HMN_NVML_LIBRARY is refused before anything is loaded: a usage error naming it.
	HMN_NVML_LIBRARY=nvml.dll run --separate-stderr "${wine[@]}" "$HMN" --backend nvml free
	[ "$status" -eq 2 ]
	[[ "$(tr -d '\r' <<<"$stderr")" == "hmn: HMN_NVML_LIBRARY: 'nvml.dll' is not an absolute path (nothing is loaded or run from the current directory)"* ]]
	HMN_NVML_LIBRARY='.\nvml.dll' run --separate-stderr "${wine[@]}" "$HMN" --backend nvml free
	[ "$status" -eq 2 ]
	[[ "$(tr -d '\r' <<<"$stderr")" == "hmn: HMN_NVML_LIBRARY: '.\nvml.dll' is not an absolute path"* ]]
}

@test "an nvidia-smi.exe is run only by absolute path" {
	HMN_NVIDIA_SMI='nvidia-smi.exe' run --separate-stderr "${wine[@]}" "$HMN" --backend nvidia-smi free
	[ "$status" -eq 2 ]
	[[ "$(tr -d '\r' <<<"$stderr")" == "hmn: HMN_NVIDIA_SMI: 'nvidia-smi.exe' is not an absolute path"* ]]
	run --separate-stderr "${wine[@]}" "$HMN" --backend nvidia-smi free
	[ "$status" -eq 3 ]
	[[ "$(tr -d '\r' <<<"$stderr")" == *"nvidia-smi.exe not found in System32 or the NVSMI folder"* ]]
}

@test "an external program is started, read and ended: cmd.exe stands in for nvidia-smi" {
	# cmd.exe given nvidia-smi's arguments prints its banner, not CSV: what it printed was
	# read (its lines are counted), and it is a runtime failure, not a hang or a crash.
	HMN_NVIDIA_SMI='C:\windows\system32\cmd.exe' HMN_TIMEOUT=5 run --separate-stderr "${wine[@]}" "$HMN" --backend nvidia-smi -v free
	[ "$status" -eq 1 ]
	[[ "$(tr -d '\r' <<<"$stderr")" == *"nvidia-smi: C:\windows\system32\cmd.exe (driver unknown), 0 GPUs"* ]]
	[[ "$(tr -d '\r' <<<"$stderr")" == *"GPU lines could not be read"* ]]
}

@test "hmn.exe watch: JSON Lines through NVML on Windows, --count ends it" {
	HMN_NVML_LIBRARY="$stub" run --separate-stderr "${wine[@]}" "$HMN" --backend nvml watch --count 2 --interval 100ms --json
	[ "$status" -eq 0 ]
	[ "$(tr -d '\r' <<<"$output" | wc -l)" -eq 2 ]
	tr -d '\r' <<<"$output" | jq -e -s 'length == 2 and .[0].gpus[0].name == "NVIDIA GeForce RTX 4090" and .[1].elapsed_ms >= 90'
	[[ "$(tr -d '\r' <<<"$stderr")" == "hmn: 2 samples over "*"ms. Peaks:"* ]]
	# Appended tables: each sample's time in local time with its offset.
	HMN_NVML_LIBRARY="$stub" run --separate-stderr "${wine[@]}" "$HMN" --backend nvml watch --count 1
	[ "$status" -eq 0 ]
	[[ "$(tr -d '\r' <<<"${lines[0]}")" =~ ^#\ [0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}[+-][0-9]{2}:[0-9]{2}$ ]]
	[ "$(tr -d '\r' <<<"${lines[1]}")" = "GPU  USED     FREE    TOTAL  RESERVED  SOURCE  NAME" ]
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

@test "hmn.exe run: peak_ram_bytes of a job holding 64 MiB (Wine keeps no job memory figures: the working sets stand in)" {
	hold="Z:$(tr / '\\' <<<"$MEM_HOLD")"
	run --separate-stderr "${wine[@]}" "$HMN" run --json -- "$hold" 64 1500
	[ "$status" -eq 0 ]
	report=$(tr -d '\r' <<<"$stderr" | tail -1)
	echo "$report"
	# Windows' own job object answers PeakJobMemoryUsed ("commit"); Wine 8 answers it with zeros,
	# and the sum of the job's working sets ("rss") is taken instead.
	[ "$(jq -r '.ram_measure' <<<"$report")" = rss ]
	[ "$(jq '.peak_ram_bytes >= 67108864 and .peak_ram_bytes < 268435456' <<<"$report")" = true ]
	run --separate-stderr "${wine[@]}" "$HMN" run -- "$hold" 64 300
	[ "$status" -eq 0 ]
	[[ "$(tr -d '\r' <<<"$stderr" | tail -1)" =~ :\ no\ GPU\ found,\ no\ GPU\ memory\ measured\;\ peak\ [0-9]+MiB\ of\ RAM\ over\ [0-9.]+m?s\.$ ]]
}

@test "hmn.exe run --limit with no GPU (Wine has none): COMMAND never starts, 125 and one line why" {
	hold="Z:$(tr / '\\' <<<"$MEM_HOLD")"
	run --separate-stderr "${wine[@]}" "$HMN" run --limit 1GiB -- "$hold" 64 100
	[ "$status" -eq 125 ]
	[[ "$(tr -d '\r' <<<"$stderr")" == "hmn: --limit cannot be enforced: no GPU found (tried dxgi: "*"; not running the command" ]]
	[ "$(tr -d '\r' <<<"$stderr" | wc -l)" -eq 1 ]
}

@test "hmn.exe run: a command not found is 127, never looked for in the current directory" {
	cp "$HMN" "$BATS_TEST_TMPDIR/planted.exe"
	cd "$BATS_TEST_TMPDIR"
	run --separate-stderr "${wine[@]}" "$HMN" run -- planted.exe --version
	[ "$status" -eq 127 ]
	[ "$(tr -d '\r' <<<"$stderr" | tail -1)" = "hmn: planted.exe: command not found" ]
}

@test "hmn.exe run: an exit code no exit status holds is never 0 or a small number, and is said (NTSTATUS crashes named)" {
	dump="Z:$(tr / '\\' <<<"$ARGV_DUMP")"
	run --separate-stderr "${wine[@]}" "$HMN" run -- "$dump" exit 7
	[ "$status" -eq 7 ]
	[[ "$(tr -d '\r' <<<"$stderr")" != *"ended with"* ]]
	run --separate-stderr "${wine[@]}" "$HMN" run -- "$dump" exit 256
	[ "$status" -eq 1 ]
	[[ "$(tr -d '\r' <<<"$stderr")" == *"ended with an exit code above 255 (exit code 0x00000100): exit status 1"* ]]
	run --separate-stderr "${wine[@]}" "$HMN" run --json -- "$dump" exit 0xC0000005
	[ "$status" -eq 139 ]
	[[ "$(tr -d '\r' <<<"$stderr")" == *"ended with an access violation (exit code 0xC0000005): exit status 139"* ]]
	[ "$(tr -d '\r' <<<"$stderr" | tail -1 | jq -c '[.exit_code, .signal]')" = '[139,null]' ]
	run --separate-stderr "${wine[@]}" "$HMN" run -- "$dump" exit 0xC00000FD
	[ "$status" -eq 139 ]
	[[ "$(tr -d '\r' <<<"$stderr")" == *"ended with a stack overflow (exit code 0xC00000FD)"* ]]
	run --separate-stderr "${wine[@]}" "$HMN" run -- "$dump" exit 0xC0000409
	[ "$status" -eq 134 ]
	# A real one (Wine's debugger writes its dump on stderr first).
	run --separate-stderr "${wine[@]}" "$HMN" run -- "$dump" crash
	[ "$status" -eq 139 ]
	[[ "$(tr -d '\r' <<<"$stderr")" == *"ended with an access violation (exit code 0xC0000005): exit status 139"* ]]
}

@test "hmn.exe run: exit(-1) is 255 as on POSIX, not a crash; exit(-256) is 1, never 0; real crashes keep theirs" {
	dump="Z:$(tr / '\\' <<<"$ARGV_DUMP")"
	run --separate-stderr "${wine[@]}" "$HMN" run --json -- "$dump" c-exit -1
	[ "$status" -eq 255 ]
	[[ "$(tr -d '\r' <<<"$stderr")" == *"ended with a negative exit code (exit code 0xFFFFFFFF): exit status 255"* ]]
	[ "$(tr -d '\r' <<<"$stderr" | tail -1 | jq -c '[.exit_code, .signal]')" = '[255,null]' ]
	run --separate-stderr "${wine[@]}" "$HMN" run -- "$dump" c-exit -2
	[ "$status" -eq 254 ]
	run --separate-stderr "${wine[@]}" "$HMN" run -- "$dump" exit 0xFFFFFF00
	[ "$status" -eq 1 ]
	[[ "$(tr -d '\r' <<<"$stderr")" == *"(exit code 0xFFFFFF00): exit status 1"* ]]
	run --separate-stderr "${wine[@]}" "$HMN" run -- "$dump" exit 0xFFFFFEFF
	[ "$status" -eq 1 ]
	[[ "$(tr -d '\r' <<<"$stderr")" != *"crash"* ]]
	# What an unhandled RaiseException(0xFFFFFFFF) ends with (bit 28 cleared) is a crash still.
	run --separate-stderr "${wine[@]}" "$HMN" run -- "$dump" exit 0xEFFFFFFF
	[ "$status" -eq 134 ]
}

@test "hmn.exe run: non-ASCII arguments reach COMMAND intact (wmain, UTF-16 through)" {
	export LC_ALL=C.UTF-8
	dump="Z:$(tr / '\\' <<<"$ARGV_DUMP")"
	run --separate-stderr "${wine[@]}" "$HMN" run -- "$dump" 'Jérôme' '計算 ü' 'naïve "quoted"' '🚀'
	[ "$status" -eq 0 ]
	[ "$(tr -d '\r' <<<"$output")" = $'Jérôme\n計算 ü\nnaïve "quoted"\n🚀' ]
}

# A folder on PATH (WINEPATH) as Node's installer leaves one: npm (a shell
# script, which Windows cannot run) beside npm.cmd.
npm_folder() {
	mkdir -p "$BATS_TEST_TMPDIR/node"
	printf '#!/bin/sh\nexec node npm-cli.js "$@"\n' >"$BATS_TEST_TMPDIR/node/npm"
	printf '@echo off\r\necho npm.cmd [%%1] [%%2] [%%3]\r\nexit /b 5\r\n' >"$BATS_TEST_TMPDIR/node/npm.cmd"
	printf '@echo off\r\necho tool.bat [%%1]\r\n' >"$BATS_TEST_TMPDIR/node/tool.bat"
	export WINEPATH="Z:$(tr / '\\' <<<"$BATS_TEST_TMPDIR/node")"
}

@test "hmn.exe run: PATH is searched as cmd.exe does (PATHEXT), and a .cmd or .bat runs through cmd.exe" {
	npm_folder
	run --separate-stderr "${wine[@]}" "$HMN" run -- npm install left-pad
	[ "$status" -eq 5 ]
	[ "$(tr -d '\r' <<<"$output")" = "npm.cmd [install] [left-pad] []" ]
	run --separate-stderr "${wine[@]}" "$HMN" run -- tool
	[ "$status" -eq 0 ]
	[ "$(tr -d '\r' <<<"$output")" = "tool.bat []" ]
	run --separate-stderr "${wine[@]}" "$HMN" run -- NPM.CMD x
	[ "$status" -eq 5 ]
	# PATHEXT followed: without .CMD in it, npm.cmd is not a command name (Wine sets
	# PATHEXT from its registry, so cmd.exe sets it for hmn).
	self="Z:$(tr / '\\' <<<"$HMN")"
	run --separate-stderr "${wine[@]}" cmd /c "set PATHEXT=.COM;.EXE&& $self run -- npm"
	[ "$status" -eq 127 ]
	[ "$(tr -d '\r' <<<"$stderr" | tail -1)" = "hmn: npm: command not found" ]
	run --separate-stderr "${wine[@]}" cmd /c "set PATHEXT=.EXE;.CMD&& $self run -- npm"
	[ "$status" -eq 5 ]
}

@test "hmn.exe run: a batch file's arguments are quoted for cmd.exe: nothing in them is run or expanded" {
	npm_folder
	# (A %VAR% is made inert as Windows' cmd.exe reads it, which Wine's cmd.exe does
	# not do: the unit test checks that quoting.)
	run --separate-stderr "${wine[@]}" "$HMN" run -- npm 'a b' '&echo INJECTED' '"&echo INJECTED2'
	[ "$status" -eq 5 ]
	[ "$(tr -d '\r' <<<"$output")" = 'npm.cmd ["a b"] ["&echo INJECTED"] ["""&echo INJECTED2"]' ]
	run --separate-stderr "${wine[@]}" "$HMN" run -- npm $'two\nlines'
	[ "$status" -eq 126 ]
	[ -z "$output" ]
}

@test "hmn.exe run: a batch file by a name Windows trims (tool.bat., TOOL.BAT. .) runs through cmd.exe, its arguments quoted" {
	npm_folder
	# Windows drops a name's trailing dots and spaces and runs these as tool.bat
	# (CVE-2024-43402); Wine's CreateProcess would not run them at all.
	for name in 'tool.bat.' 'tool.bat  ' 'TOOL.BAT. .' 'tool.bat\x\..'; do
		run --separate-stderr "${wine[@]}" "$HMN" run -- "$WINEPATH\\$name" '&echo INJECTED'
		[ "$status" -eq 0 ]
		[ "$(tr -d '\r' <<<"$output")" = 'tool.bat ["&echo INJECTED"]' ]
	done
	# The default stream is the file itself: no name but the file's goes to cmd.exe.
	run --separate-stderr "${wine[@]}" "$HMN" run -- "$WINEPATH\\tool.bat::\$DATA" '&echo INJECTED'
	[ "$status" -eq 126 ]
	[ -z "$output" ]
}

@test "hmn.exe run: a command line past 32,767 characters is refused (125), never cut short" {
	npm_folder
	# 4,200 % signs: hmn's own command line is short, the batch file's (each % made inert) is 33,600.
	run --separate-stderr "${wine[@]}" "$HMN" run -- npm "$(printf '%%%.0s' $(seq 4200))"
	[ "$status" -eq 125 ]
	[ -z "$output" ]
	[ "$(tr -d '\r' <<<"$stderr" | tail -1)" = "hmn: npm: the command line is longer than Windows' 32,767 characters" ]
}

# -o FILE on Windows: paths through the wide (UTF-16) calls, devices written in
# place, links followed. Wine shows its files on the Linux side under their
# UTF-8 names, so what Windows named them is checked there.

@test "hmn.exe -o: a path with non-ASCII characters is the file's exact name, nothing left beside it" {
	export LC_ALL=C.UTF-8 HMN_NVML_LIBRARY="$stub"
	mkdir "$BATS_TEST_TMPDIR/Jérôme"
	cd "$BATS_TEST_TMPDIR"
	run --separate-stderr "${wine[@]}" "$HMN" --backend nvml free --json -o 'Jérôme\計算 ü.json'
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	[ "$(ls -A Jérôme)" = "計算 ü.json" ]
	jq -e '.[0].name == "NVIDIA GeForce RTX 4090"' "Jérôme/計算 ü.json"
	# Beyond the BMP (a surrogate pair in UTF-16), by an absolute Windows path, and run's report.
	dump="Z:$(tr / '\\' <<<"$ARGV_DUMP")"
	run --separate-stderr "${wine[@]}" "$HMN" --backend nvml run --json -o "Z:$(tr / '\\' <<<"$BATS_TEST_TMPDIR")\\Jérôme\\🚀.json" -- "$dump" hi
	[ "$status" -eq 0 ]
	[ "$(tr -d '\r' <<<"$output")" = "hi" ]
	jq -e '.exit_code == 0' "Jérôme/🚀.json"
	[ "$(ls -A Jérôme | sort | tr '\n' ' ')" = "計算 ü.json 🚀.json " ]
	# Windows' own view agrees: cmd.exe finds them by those names (its listing would print
	# them in the console's code page), and not a name that is not there.
	run "${wine[@]}" cmd /c dir /b 'Jérôme\計算 ü.json'
	[ "$status" -eq 0 ]
	run "${wine[@]}" cmd /c dir /b 'Jérôme\🚀.json'
	[ "$status" -eq 0 ]
	run "${wine[@]}" cmd /c dir /b 'Jérôme\計算 u.json'
	[ "$status" -eq 1 ]
}

@test "hmn.exe -o NUL (and nul.txt, \\\\.\\NUL): written in place, nothing created, exit 0; CON never becomes a file" {
	export HMN_NVML_LIBRARY="$stub"
	mkdir "$BATS_TEST_TMPDIR/empty" && cd "$BATS_TEST_TMPDIR/empty"
	for name in NUL nul nul.txt '\\.\NUL'; do
		run --separate-stderr "${wine[@]}" "$HMN" --backend nvml free --json -o "$name"
		[ "$status" -eq 0 ]
		[ -z "$output" ]
		[ -z "$stderr" ]
		[ -z "$(ls -A)" ]
	done
	# Under the test there is no console: CON cannot be opened (exit 1, said); never is a file made.
	run --separate-stderr "${wine[@]}" "$HMN" --backend nvml free --json -o CON
	[ "$status" -eq 0 ] || [ "$status" -eq 1 ]
	[ -z "$(ls -A)" ]
	# hmn run's report to NUL: COMMAND's status through, no report on stderr.
	dump="Z:$(tr / '\\' <<<"$ARGV_DUMP")"
	run --separate-stderr "${wine[@]}" "$HMN" run -o NUL -- "$dump" exit 3
	[ "$status" -eq 3 ]
	[[ "$(tr -d '\r' <<<"$stderr")" != *"peak"* ]]
	[ -z "$(ls -A)" ]
}

@test "hmn.exe -o over an existing file: the whole new document, hidden kept; a read-only file refused at once" {
	export HMN_NVML_LIBRARY="$stub"
	cd "$BATS_TEST_TMPDIR"
	mkdir out && printf 'old\r\n%.0s' $(seq 1000) >out/free.json
	"${wine[@]}" attrib +h 'out\free.json'
	run --separate-stderr "${wine[@]}" "$HMN" --backend nvml free --json -o 'out\free.json'
	[ "$status" -eq 0 ]
	[ "$(cat out/free.json)" = "$(HMN_NVML_LIBRARY="$stub" "${wine[@]}" "$HMN" --backend nvml free --json)" ]
	[ "$(ls -A out)" = "free.json" ]
	[[ "$("${wine[@]}" attrib 'out\free.json')" == *H*'free.json'* ]]
	# Windows would not replace a read-only file (MoveFileExW): said before the work, the file kept.
	echo old >out/ro.json
	"${wine[@]}" attrib +r 'out\ro.json'
	run --separate-stderr "${wine[@]}" "$HMN" --backend nvml free --json -o 'out\ro.json'
	[ "$status" -eq 1 ]
	[ "$(tr -d '\r' <<<"$stderr")" = 'hmn: cannot write out\ro.json: Permission denied' ]
	[ "$(cat out/ro.json)" = "old" ]
	[ "$(ls -A out | sort | tr '\n' ' ')" = "free.json ro.json " ]
	# A folder is no file to replace.
	run --separate-stderr "${wine[@]}" "$HMN" --backend nvml free --json -o out
	[ "$status" -eq 1 ]
	[ "$(tr -d '\r' <<<"$stderr")" = 'hmn: cannot write out: Is a directory' ]
	# watch -o: each sample replaces it whole.
	run --separate-stderr "${wine[@]}" "$HMN" --backend nvml watch --count 2 --interval 100ms --json -o 'out\free.json'
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	jq -e '.gpus[0].name == "NVIDIA GeForce RTX 4090"' out/free.json
	[ "$(wc -l <out/free.json)" -eq 1 ]
	[ "$(ls -A out | sort | tr '\n' ' ')" = "free.json ro.json " ]
}

@test "hmn.exe -o in a folder that does not exist: exit 1 at once; run: 125, COMMAND never started" {
	export HMN_NVML_LIBRARY="$stub"
	mkdir "$BATS_TEST_TMPDIR/empty" && cd "$BATS_TEST_TMPDIR/empty"
	run --separate-stderr "${wine[@]}" "$HMN" --backend nvml free --json -o 'no\such\dir\free.json'
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	[ "$(tr -d '\r' <<<"$stderr")" = 'hmn: cannot write no\such\dir\free.json: No such file or directory' ]
	dump="Z:$(tr / '\\' <<<"$ARGV_DUMP")"
	run --separate-stderr "${wine[@]}" "$HMN" run -o 'no\such\dir\peak.json' -- "$dump" ran
	[ "$status" -eq 125 ]
	[ -z "$output" ]
	[ "$(tr -d '\r' <<<"$stderr")" = 'hmn: cannot write no\such\dir\peak.json: No such file or directory' ]
	# watch says it before its first sample, not at its end.
	run --separate-stderr "${wine[@]}" "$HMN" --backend nvml watch --count 1000 --interval 1s -o 'no\such\dir\w.json'
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	[[ "$(tr -d '\r' <<<"$stderr")" == 'hmn: cannot write no\such\dir\w.json: No such file or directory'* ]]
	[ -z "$(ls -A)" ]
}

@test "hmn.exe -o through a symbolic link (Wine shows a Unix one): the file it names is replaced, in its own folder, the link stays" {
	# Wine 8 cannot make a Windows symbolic link (CreateSymbolicLinkW makes nothing);
	# a Unix one is what it has, followed by GetFinalPathNameByHandleW all the same.
	export HMN_NVML_LIBRARY="$stub"
	cd "$BATS_TEST_TMPDIR"
	mkdir data links
	echo old >data/hmn.json
	ln -s ../data/hmn.json links/hmn.json
	run --separate-stderr "${wine[@]}" "$HMN" --backend nvml free --json -o 'links\hmn.json'
	[ "$status" -eq 0 ]
	[ -L links/hmn.json ]
	[ "$(readlink links/hmn.json)" = "../data/hmn.json" ]
	jq -e '.[0].index == 0' data/hmn.json
	[ "$(ls -A data)" = "hmn.json" ]
	[ "$(ls -A links)" = "hmn.json" ]
}

@test "hmn.exe fit: a folder by a long (\\\\?\\) path, with and without its last backslash; a missing shard said of the path as typed" {
	models="Z:$(tr / '\\' <<<"$MODELS")"
	for folder in "\\\\?\\$models\\Meta-Llama-3-8B" "\\\\?\\$models\\Llama-3-8B-GGUF-split\\"; do
		run "${wine[@]}" "$HMN" fit --memory 80GiB "$folder" --json
		[ "$status" -eq 0 ]
		[ "$(jq -c '[.model.name, .model.parameters]' <<<"$output")" = '["Meta-Llama-3-8B",8030261248]' ]
	done
	# A shard's missing sibling, said of the path as typed.
	run "${wine[@]}" "$HMN" fit --memory 80GiB "$models\\hostile\\shard-gone\\model-00001-of-00003.safetensors"
	[ "$status" -eq 1 ]
	[[ "$(tr -d '\r' <<<"$output")" == *"shard-gone\\model-00001-of-00003.safetensors: model-00002-of-00003.safetensors, of its set of 3, is missing" ]]
}

# The README's Windows recipes, as a reader copies them. Wine's cmd.exe and
# taskkill.exe run the cmd.exe one against real Windows processes (mem-hold.exe)
# that the stand-in NVML says hold GPU memory; PowerShell does not run under Wine
# (its powershell.exe is a stub), so of its recipe only the JSON it reads is checked.

# readme_recipe LANG: the line in the README's ```LANG block under Recipes.
readme_recipe() {
	awk -v fence='```'"$1" '/^## Recipes/ { on = 1; next } on && /^## / { exit }
		on && $0 == fence { inside = 1; next } inside && /^```/ { exit } inside' "$TESTS_DIR/../README.md"
}

# hold NAME: a mem-hold.exe under Wine holding 8 MiB for a minute, in the background: its
# Windows process id in $NAME, Wine's (Linux's) in ${NAME}_lpid, once it holds the memory.
hold() {
	local file="$BATS_TEST_TMPDIR/$1.pid"
	MEM_HOLD_PID_FILE="Z:$(tr / '\\' <<<"$file")" "${wine[@]}" "$MEM_HOLD" 8 60000 >/dev/null 2>&1 3>&- &
	printf -v "${1}_lpid" %s "$!"
	started_pids+=" $!"
	for _ in $(seq 100); do [ -s "$file" ] && break; sleep 0.1; done
	printf -v "$1" %s "$(tr -d '\r\n' <"$file")"
	[ -n "${!1}" ]
}

# running PID: whether the Linux process PID runs (not gone, not a zombie).
running() {
	[ -e "/proc/$1/stat" ] && [ "$(sed 's/.*) //; s/ .*//' "/proc/$1/stat")" != Z ]
}

# ended PID: whether the Linux process PID ends within 10 seconds.
ended() {
	for _ in $(seq 100); do running "$1" || return 0; sleep 0.1; done
	return 1
}

@test "the README's cmd.exe recipe under Wine's cmd.exe and taskkill.exe: the processes on GPU 1 end, the others run on" {
	recipe=$(readme_recipe bat)
	echo "$recipe"
	[ "$(wc -l <<<"$recipe")" -eq 1 ]
	[[ "$recipe" == "for /f "*"taskkill "* ]]
	hold on_gpu1
	hold on_gpu0
	hold no_gpu
	gpus=('gpu name="NVIDIA GeForce RTX 4090" uuid=GPU-aaaaaaaa-1111-2222-3333-444444444444 pci=00000000:01:00.0 total=25757220864 reserved=346030080 used=4295229440'
		'gpu name="NVIDIA GeForce RTX 4090" uuid=GPU-bbbbbbbb-1111-2222-3333-444444444444 pci=00000000:02:00.0 total=25757220864 reserved=346030080 used=2148532224')
	printf '%s\n' "${gpus[@]}" "proc gpu=0 pid=$on_gpu0 used=4294967296 list=compute" \
		"proc gpu=1 pid=$on_gpu1 used=2147483648 list=compute" >"$HMN_STUB_SCENARIO"
	# hmn as the reader has it: on PATH, its sources as on Windows (here the stand-in NVML).
	export HMN_BACKENDS=nvml HMN_NVML_LIBRARY="$stub" WINEPATH="Z:$(dirname "$HMN" | tr / '\\')"
	cd "$BATS_TEST_TMPDIR"
	run "${wine[@]}" cmd /c "$recipe"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$(tr -d '\r' <<<"$output")" == *"PID $on_gpu1 "* ]]
	ended "$on_gpu1_lpid"
	running "$on_gpu0_lpid"
	running "$no_gpu_lpid"
	# In a .bat file, %%p for each %p, as the README says.
	hold in_batch
	printf '%s\n' "${gpus[@]}" "proc gpu=0 pid=$on_gpu0 used=4294967296 list=compute" \
		"proc gpu=1 pid=$in_batch used=2147483648 list=compute" >"$HMN_STUB_SCENARIO"
	printf '@echo off\r\n%s\r\n' "${recipe//%/%%}" >kill.bat
	run "${wine[@]}" cmd /c kill.bat
	echo "$output"
	[ "$status" -eq 0 ]
	ended "$in_batch_lpid"
	running "$on_gpu0_lpid"
	running "$no_gpu_lpid"
}

@test "what the README's PowerShell recipe reads: an array even of one process, its keys in each, no two alike but for case" {
	recipe=$(readme_recipe powershell)
	echo "$recipe"
	[ "$(wc -l <<<"$recipe")" -eq 1 ]
	# Windows PowerShell 5.1's ConvertFrom-Json hands a JSON array on as one object; in
	# parentheses it is handed on one process at a time.
	[[ "$recipe" =~ ^\((hmn ps [^|]*)\ \|\ ConvertFrom-Json\)\ \|\  ]]
	read -ra command <<<"${BASH_REMATCH[1]}"
	keys=$(grep -oE '\$_\.[a-z_]+' <<<"$recipe" | cut -c4- | sort -u | tr '\n' ' ')
	[ "$keys" = "pid used_bytes " ]
	gpu='gpu name="NVIDIA GeForce RTX 4090" uuid=GPU-aaaaaaaa-1111-2222-3333-444444444444 pci=00000000:01:00.0 total=25757220864 reserved=346030080 used=2148532224'
	printf '%s\n' "$gpu" 'proc gpu=0 pid=self used=2147483648 list=compute' >"$HMN_STUB_SCENARIO"
	HMN_BACKENDS=nvml HMN_NVML_LIBRARY="$stub" run --separate-stderr "${wine[@]}" "$HMN" "${command[@]:1}"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	json=$(tr -d '\r' <<<"$output")
	jq -e 'type == "array" and length == 1' <<<"$json"
	for key in $keys; do
		jq -e --arg key "$key" 'all(.[]; has($key))' <<<"$json"
	done
	jq -e 'all(.[]; (.pid | type) == "number" and .used_bytes == 2147483648)' <<<"$json"
	# PowerShell's objects take a key in any case: two that differ only so would be one.
	jq -e '[.. | objects | [keys[] | ascii_downcase] | length == (unique | length)] | all' <<<"$json"
	# A gone process's size is null (PowerShell: $null -gt 1GB is false); no process at all, [].
	printf '%s\n' "$gpu" 'proc gpu=0 pid=999999 used=na list=compute' >"$HMN_STUB_SCENARIO"
	HMN_BACKENDS=nvml HMN_NVML_LIBRARY="$stub" run --separate-stderr "${wine[@]}" "$HMN" "${command[@]:1}"
	[ "$status" -eq 0 ]
	[ "$(tr -d '\r' <<<"$output" | jq -c '[.[] | [.pid, .used_bytes]]')" = '[[999999,null]]' ]
	printf '%s\n' "$gpu" >"$HMN_STUB_SCENARIO"
	HMN_BACKENDS=nvml HMN_NVML_LIBRARY="$stub" run --separate-stderr "${wine[@]}" "$HMN" "${command[@]:1}"
	[ "$status" -eq 0 ]
	[ "$(tr -d '\r' <<<"$output")" = "[]" ]
}
