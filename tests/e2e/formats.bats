#!/usr/bin/env bats
# For scripts and fleets: --need for CI gates, telemetry, --format csv and
# prometheus (checked by parsing the CSV back and by promtool), and atomic
# --output.

load helpers

setup() {
	common_setup
	scenario \
		'driver 580.159.04' \
		'gpu name="NVIDIA H100 80GB HBM3" uuid=GPU-aaaaaaaa-1111-2222-3333-444444444444 pci=00000000:1B:00.0 total=85520809984 reserved=502267904 used=20780679168 util=37 memutil=12 temp=41 power=71234 powerlimit=700000 cc=9.0' \
		'gpu name="NVIDIA L40S" uuid=GPU-bbbbbbbb-1111-2222-3333-444444444444 pci=00000000:3B:00.0 total=48305799168 reserved=0 used=33554432000 temp=30' \
		'proc gpu=0 pid=4242 used=2147483648 list=compute' \
		'proc gpu=0 pid=4242 used=2147483648 list=graphics' \
		'proc gpu=1 pid=777 used=1073741824 list=compute' \
		'proc gpu=1 pid=1500 used=na list=graphics'
	fake_process 4242 0 /usr/bin/python3.11 "" 3670016
	fake_process 777 65534 "/opt/we\"ird\\na"$'\n'"me"$'\xff' 'weird'
	fake_cmdline 4242 python3.11 train.py "--note=it's"
	fake_cmdline 777 $'we"ird,\n\xff' '' 'a b'
}

@test "free --need: 0 when a GPU has it, 4 with the contract's line when none has" {
	run_split "$HMN" free --need 40GiB
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[ "${lines[0]}" = "GPU     USED     FREE    TOTAL  RESERVED  SOURCE  NAME" ]
	run_split "$HMN" free --need 60GiB
	[ "$status" -eq 4 ]
	[ "$stderr" = "hmn: no GPU has 60.0GiB free (most: GPU 0, 59.8GiB)" ]
	[ "${#lines[@]}" -eq 3 ] # the table is printed as usual
	run_split "$HMN" free --need 40GiB --device 1
	[ "$status" -eq 4 ]
	[ "$stderr" = "hmn: no GPU has 40.0GiB free (most: GPU 1, 13.7GiB)" ]
	run_split "$HMN" free --json --need 1b
	[ "$status" -eq 0 ]
	jq -e 'length == 2' <<<"$output"
	# The message's sizes are one word, TiB past 1024 GiB (it said "16384.0 GiB").
	run_split "$HMN" free --need 15.99999T
	[ "$status" -eq 4 ]
	[ "$stderr" = "hmn: no GPU has 16.0TiB (17592175049300 bytes) free (most: GPU 0, 59.8GiB)" ]
	# Where the one-word form rounds, the exact figure follows: never "59.8GiB" needed, "59.8GiB" had.
	run_split "$HMN" free --need 59.84GiB
	[ "$stderr" = "hmn: no GPU has 59.8GiB (64252710748 bytes) free (most: GPU 0, 59.8GiB)" ]
	# 2^64-1 is "unknown" inside hmn: out of range, never "no GPU has - free".
	run_split "$HMN" free --need 18446744073709551615
	[ "$status" -eq 2 ]
	[[ "$stderr" == "hmn: invalid SIZE '18446744073709551615' for --need"* ]]
}

@test "free --need N%: the share as typed (never 5e+01%), and most is the GPU with the largest share free" {
	# A: 32 GiB free of 80 (40%); B: 7.5 GiB free of 16 (46.9%): B is closer to 50%.
	scenario 'gpu name=A uuid=GPU-a pci=00000000:01:00.0 total=85899345920 reserved=0 used=51539607552' \
		'gpu name=B uuid=GPU-b pci=00000000:02:00.0 total=17179869184 reserved=0 used=9126805504'
	run_split "$HMN" free --need 50%
	[ "$status" -eq 4 ]
	[ "$stderr" = "hmn: no GPU has 50% of its memory free (most: GPU 1, 7.5GiB)" ]
	run_split "$HMN" free --need 99.999%
	[ "$stderr" = "hmn: no GPU has 99.999% of its memory free (most: GPU 1, 7.5GiB)" ]
	# A SIZE: the most bytes free.
	run_split "$HMN" free --need 40GiB
	[ "$stderr" = "hmn: no GPU has 40.0GiB free (most: GPU 0, 32.0GiB)" ]
}

@test "free --need N%: a share of each GPU's own total" {
	run_split "$HMN" free --need 75%
	[ "$status" -eq 0 ]
	run_split "$HMN" free --need 76%
	[ "$status" -eq 4 ]
	[ "$stderr" = "hmn: no GPU has 76% of its memory free (most: GPU 0, 59.8GiB)" ]
	run_split "$HMN" free --need 28% --device 1
	[ "$status" -eq 0 ]
	# The percent as given, never rounded up to "100%".
	run_split "$HMN" free --need 99.99999999% --device 1
	[ "$status" -eq 4 ]
	[ "$stderr" = "hmn: no GPU has 99.99999999% of its memory free (most: GPU 1, 13.7GiB)" ]
}

@test "SIZE: units, decimals, any case, 0 and 0%; hostile values are usage errors, never a wrap-around" {
	for ok in 1 1b 512M 512m 512MiB 512MIB 0.5G 1.5GiB 1.5gIb 59GB 59gb 1T 1tb 100% 0.5% 0 0% 0.0%; do
		run_split "$HMN" free --need "$ok"
		[ "$status" -eq 0 ] || [ "$status" -eq 4 ]
	done
	run_split "$HMN" free --need 0%
	[ "$status" -eq 0 ]
	for bad in 99999999TiB 1e999 1e9 -1 abc 10x '' 101% % G 1..5G '1 G' 18446744073709551616 nan inf -0%; do
		run_split "$HMN" free --need "$bad"
		[ "$status" -eq 2 ]
		[ "$(sed -n 2p <<<"$stderr")" = "Try 'hmn free --help'." ]
	done
}

@test "free -l: UTIL TEMP POWER before SOURCE, - where unknown" {
	run_split "$HMN" free -l
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "GPU     USED     FREE    TOTAL  RESERVED  UTIL  TEMP  POWER  SOURCE  NAME" ]
	[ "${lines[1]}" = "  0  19.4GiB  59.8GiB  79.6GiB    479MiB   37%   41C    71W  nvml    NVIDIA H100 80GB HBM3" ]
	[ "${lines[2]}" = "  1  31.3GiB  13.7GiB  45.0GiB      0MiB     -   30C      -  nvml    NVIDIA L40S" ]
}

@test "awk reads every table: the same fields before NAME on every row, hostile names included" {
	# Names with spaces, a tab, a newline, ESC, invalid UTF-8, only spaces; a GPU's name the same; a user with no name.
	scenario \
		'driver 580.159.04' \
		'gpu name="NVIDIA H100 80GB HBM3" uuid=GPU-aaaaaaaa-1111-2222-3333-444444444444 pci=00000000:1B:00.0 total=85520809984 reserved=502267904 used=20780679168 util=37 temp=41 power=71234' \
		"gpu name=\"  spaced  $(printf '\t')out GPU$(printf '\033')[2J \" uuid=GPU-bbbbbbbb-1111-2222-3333-444444444444 pci=00000000:3B:00.0 total=48305799168 used=1048576" \
		'proc gpu=0 pid=4242 used=2147483648 list=compute' 'proc gpu=0 pid=4242 used=2147483648 list=graphics' \
		'proc gpu=1 pid=777 used=1073741824 list=compute' 'proc gpu=1 pid=1500 used=na list=graphics' \
		'proc gpu=0 pid=1600 used=1048576' 'proc gpu=1 pid=1700 used=1048576' 'proc gpu=0 pid=1800 used=1048576'
	fake_process 1500 4000 "/usr/bin/my  X  server" "my  X  server" 524288
	fake_process 1600 0 "/opt/two words" "two words"
	fake_process 1700 0 "/opt/   " "   "
	fake_process 1800 0 "/opt/tab$(printf '\t')and$(printf '\r')cr" "tab"
	size='^([0-9]+(\.[0-9])?[MGT]iB|[0-9]+|-)$'
	gpu='^[0-9]+(/[0-9]+\.[0-9]+)?$'
	for args in "free" "free --bytes" "free -l" "free -l --bytes --no-header"; do
		"$HMN" $args >"$BATS_TEST_TMPDIR/t"
		header=$(head -1 "$BATS_TEST_TMPDIR/t")
		[[ "$args" == *--no-header* ]] || [ "${header##* }" = "NAME" ]
		long=0
		[[ "$args" == *-l* ]] && long=3
		awk -v long=$long -v size="$size" -v gpu="$gpu" '
			NR == 1 && $1 == "GPU" { next }
			{ if ($1 !~ gpu || $2 !~ size || $3 !~ size || $4 !~ size || $5 !~ size) exit 1 }
			long && ($6 !~ /^([0-9]+%|-)$/ || $7 !~ /^([0-9]+C|-)$/ || $8 !~ /^([0-9]+W|-)$/) { exit 1 }
			{ if ($(6 + long) !~ /^[a-z-]+(\/unified)?$/ || NF < 7 + long) exit 1 }
			END { if (NR < 2) exit 1 }' "$BATS_TEST_TMPDIR/t"
	done
	[ "$(awk 'NR == 3 { $1 = $2 = $3 = $4 = $5 = $6 = ""; print }' <("$HMN" free) | sed 's/^ *//')" = "spaced ?out GPU?[2J" ]
	for args in "ps" "ps --bytes" "ps --no-header --sort name" "ps -l"; do
		"$HMN" $args >"$BATS_TEST_TMPDIR/t" 2>/dev/null
		awk -v size="$size" -v gpu="$gpu" '
			NR == 1 && $1 == "PID" { next }
			$1 !~ /^[0-9]+$/ || $3 !~ /^(C|G|C\+G|M\+C)$/ || $4 !~ size || $5 !~ size || $6 !~ size || $7 !~ gpu || NF < 7 { exit 1 }
			END { if (NR < 6) exit 1 }' "$BATS_TEST_TMPDIR/t"
	done
	# The user with no name shows its uid; the names stay whole after the seventh field.
	grep -q '^1500  4000    G  .*  my  X  server$' <("$HMN" ps 2>/dev/null)
	# With -l, COMMAND is last and NAME one word: the eighth field.
	[ "$("$HMN" ps -l --no-header --pid 1500 2>/dev/null | awk '{ print $8 }')" = "my__X__server" ]
	# watch's appended tables, the same.
	"$HMN" watch --count 1 --interval 1ms 2>/dev/null | awk -v size="$size" '
		$1 ~ /^[0-9]+$/ && NF >= 6 && $2 ~ size { gpus++ } END { if (gpus < 2) exit 1 }'
}

@test "free --json: the telemetry keys, null where unknown" {
	run_split "$HMN" free --json
	[ "$(jq -c '[.[] | [.utilization_percent, .memory_utilization_percent, .temperature_celsius, .power_milliwatts, .power_limit_milliwatts, .compute_capability]]' <<<"$output")" = \
		'[[37,12,41,71234,700000,"9.0"],[null,null,30,null,null,null]]' ]
}

@test "CSV: parsed back by python3's csv module, every cell equals the JSON" {
	for command in free ps; do
		"$HMN" $command --json >"$BATS_TEST_TMPDIR/$command.json" 2>/dev/null
		"$HMN" $command --format csv >"$BATS_TEST_TMPDIR/$command.csv" 2>/dev/null
		python3 - "$BATS_TEST_TMPDIR/$command.json" "$BATS_TEST_TMPDIR/$command.csv" <<'PY'
import csv, io, json, sys
rows = json.load(open(sys.argv[1]))
with open(sys.argv[2], newline="", encoding="utf-8") as f:
    raw = f.read()
assert raw.endswith("\n") and "\r" not in raw, "LF line ends, as every Unix tool's"
table = list(csv.reader(io.StringIO(raw, newline="")))
header, records = table[0], table[1:]
assert header == [k for k in rows[0] if not isinstance(rows[0][k], dict) and k != "mig"], header
assert len(records) == len(rows), (len(records), len(rows))
def shown(text):
    # What CSV shows of a text: each control character, and each invalid byte (U+FFFD in JSON), as ?.
    return "".join("?" if ord(c) < 0x20 or 0x7f <= ord(c) < 0xa0 or c == "\ufffd" else c for c in text)
def quoted(word):
    # A command's word as a POSIX shell would need it typed: as it is, or in single quotes.
    word = shown(word)
    if word and all(c.isascii() and (c.isalnum() or c in "%+,-./:=@_") for c in word):
        return word
    return "'" + word.replace("'", "'\\''") + "'"
def cell_of(value):
    if isinstance(value, list):
        return " ".join(quoted(word) for word in value)
    return "" if value is None else ("true" if value is True else "false" if value is False else shown(str(value)))
commands = 0
for row, record in zip(rows, records):
    for key, cell in zip(header, record):
        want = cell_of(row[key])
        commands += isinstance(row[key], list)
        assert cell == want, (key, cell, want)
assert sys.argv[2].endswith("free.csv") or commands == 2, commands
PY
	done
	# The hostile name: quoted, its quote doubled, its newline and its invalid byte shown as ?.
	grep -q '^777,"we""ird\\na?me?",' "$BATS_TEST_TMPDIR/ps.csv"
	# The hostile command the same, its words as a shell would need them typed.
	grep -qF ",\"'we\"\"ird,??' '' 'a b'\"" "$BATS_TEST_TMPDIR/ps.csv"
}

@test "CSV: LF line ends as nvidia-smi's and every Unix tool's, never a CR byte; awk reads the last cell as it is" {
	for command in free ps "free --no-header" "ps --no-header --sort pid"; do
		"$HMN" $command --format csv >"$BATS_TEST_TMPDIR/out.csv" 2>/dev/null
		[ -s "$BATS_TEST_TMPDIR/out.csv" ]
		[ "$(grep -c $'\r' "$BATS_TEST_TMPDIR/out.csv")" -eq 0 ]
		! od -An -c "$BATS_TEST_TMPDIR/out.csv" | grep -qF '\r' || false
		[ "$(tail -c 1 "$BATS_TEST_TMPDIR/out.csv" | od -An -c | tr -d ' ')" = '\n' ]
	done
	# The issue's line: the H100's compute capability, "9.0", not "9.0\r".
	[ "$("$HMN" free --format csv | awk -F, 'NR == 2 { print $NF }')" = "9.0" ]
	[ "$("$HMN" free --format csv | awk -F, 'NR == 1 { print $NF }')" = "compute_capability" ]
}

@test "CSV: a process name with a comma, a quote and a newline stays one RFC 4180 cell" {
	scenario 'gpu name="A, the first" uuid=GPU-a pci=00000000:01:00.0 total=1073741824 used=1048576' \
		'proc gpu=0 pid=4343 used=1048576 list=compute' 'proc gpu=0 pid=4444 used=2097152 list=compute'
	fake_process 4343 0 "/opt/a,b\"c"$'\n'"d,"
	fake_process 4444 0 /usr/bin/python3
	"$HMN" ps --format csv --sort pid >"$BATS_TEST_TMPDIR/ps.csv" 2>/dev/null
	"$HMN" free --format csv >"$BATS_TEST_TMPDIR/free.csv"
	# Quoted, the quote doubled, the newline shown as ? (a name never forges a line): one line a row.
	grep -q '^4343,"a,b""c?d,",1048576,' "$BATS_TEST_TMPDIR/ps.csv"
	[ "$(wc -l <"$BATS_TEST_TMPDIR/ps.csv")" -eq 3 ]
	[ "$(sed -n 2p "$BATS_TEST_TMPDIR/free.csv")" = '0,"A, the first",GPU-a,nvidia,0000:01:00.0,1073741824,1072693248,1048576,0,,,550.54.15,nvml,false,,,,,,' ]
	python3 - "$BATS_TEST_TMPDIR/ps.csv" "$BATS_TEST_TMPDIR/free.csv" <<'PY'
import csv, sys
ps = list(csv.DictReader(open(sys.argv[1], newline="")))
assert [r["name"] for r in ps] == ['a,b"c?d,', "python3"], ps
assert [r["used_bytes"] for r in ps] == ["1048576", "2097152"], ps
assert [r["path"] for r in ps] == ['/opt/a,b"c?d,', "/usr/bin/python3"], ps
free = list(csv.DictReader(open(sys.argv[2], newline="")))
assert [r["name"] for r in free] == ["A, the first"] and free[0]["uuid"] == "GPU-a", free
PY
}

@test "CSV and Prometheus: a name's control characters never reach the terminal" {
	scenario 'gpu name="A" uuid=GPU-a pci=00000000:01:00.0 total=1073741824 used=1048576' \
		'proc gpu=0 pid=4343 used=1048576 list=compute'
	fake_process 4343 0 $'/opt/x\033[2J\033]0;PWNED\ay' 'x'
	for format in csv prometheus; do
		run_split "$HMN" ps --format "$format"
		[ "$status" -eq 0 ]
		! grep -q $'[\x01-\x08\x0b\x0c\x0e-\x1f\x7f]' <<<"$output" || false
		[[ "$output" == *'x?[2J?]0;PWNED?y'* ]]
	done
}

@test "Prometheus: promtool check metrics passes, hostile labels escaped, unknowns left out" {
	command -v promtool >/dev/null || skip "promtool (Debian's prometheus) is not installed"
	"$HMN" free --format prometheus >"$BATS_TEST_TMPDIR/free.prom"
	"$HMN" ps --format prometheus >"$BATS_TEST_TMPDIR/ps.prom" 2>/dev/null
	promtool check metrics <"$BATS_TEST_TMPDIR/free.prom"
	promtool check metrics <"$BATS_TEST_TMPDIR/ps.prom"
	grep -qx 'hmn_gpu_memory_free_bytes{gpu="0",uuid="GPU-aaaaaaaa-1111-2222-3333-444444444444",name="NVIDIA H100 80GB HBM3",vendor="nvidia",source="nvml"} 64237862912' "$BATS_TEST_TMPDIR/free.prom"
	grep -qx 'hmn_gpu_utilization_ratio{gpu="0",uuid="GPU-aaaaaaaa-1111-2222-3333-444444444444",name="NVIDIA H100 80GB HBM3",vendor="nvidia",source="nvml"} 0.37' "$BATS_TEST_TMPDIR/free.prom"
	grep -qx 'hmn_gpu_power_watts{gpu="0",uuid="GPU-aaaaaaaa-1111-2222-3333-444444444444",name="NVIDIA H100 80GB HBM3",vendor="nvidia",source="nvml"} 71.234' "$BATS_TEST_TMPDIR/free.prom"
	# The L40S has no utilisation: no sample of it, never a 0.
	! grep -q 'hmn_gpu_utilization_ratio{gpu="1"' "$BATS_TEST_TMPDIR/free.prom" || false
	grep -q 'hmn_gpu_temperature_celsius{gpu="1",.*} 30$' "$BATS_TEST_TMPDIR/free.prom"
	# The quote and backslash escaped; the newline and the invalid byte shown as ?.
	grep -qF 'hmn_process_gpu_memory_bytes{pid="777",name="we\"ird\\na?me?",user="nobody",gpu="1",uuid="GPU-bbbbbbbb-1111-2222-3333-444444444444",type="compute",container="",pod_uid=""} 1073741824' "$BATS_TEST_TMPDIR/ps.prom"
	# Unknown VRAM (pid 1500): left out.
	! grep -q 'pid="1500"' "$BATS_TEST_TMPDIR/ps.prom" || false
	# total, used, free, reserved, utilisation, memory utilisation, temperature, power, limit; no GTT on
	# NVIDIA; hmn_up and hmn_driver_info
	[ "$(grep -c '^# TYPE .* gauge$' "$BATS_TEST_TMPDIR/free.prom")" -eq 11 ]
}

# prom_health FILE: FILE's hmn_up and hmn_driver_info samples, on one line.
prom_health() {
	grep -E '^hmn_(up|driver_info)' "$1" | tr '\n' ' '
}

@test "Prometheus: every document says hmn_up and hmn_driver_info; promtool passes" {
	command -v promtool >/dev/null || skip "promtool (Debian's prometheus) is not installed"
	for command in free ps; do
		run_split "$HMN" $command --format prometheus
		[ "$status" -eq 0 ]
		promtool check metrics <<<"$output"
		[ "$(prom_health <(echo "$output"))" = "hmn_up{command=\"$command\"} 1 hmn_driver_info{command=\"$command\",source=\"nvml\",driver_version=\"580.159.04\"} 1 " ]
	done
	# hmn free's and hmn ps's textfiles side by side, as the README sets them up: node_exporter
	# refuses a series two files both hold, so no series is in both.
	"$HMN" free --format prometheus >"$BATS_TEST_TMPDIR/a.prom"
	"$HMN" ps --format prometheus >"$BATS_TEST_TMPDIR/b.prom" 2>/dev/null
	[ -z "$(cat "$BATS_TEST_TMPDIR/a.prom" "$BATS_TEST_TMPDIR/b.prom" | grep -v '^#' | sed 's/ [^ ]*$//' | sort | uniq -d)" ]
	# A lost GPU: the other's series, and hmn_up 0 (exit 1, as the table's).
	scenario \
		'driver 580.159.04' \
		'gpu name=A uuid=GPU-a pci=00000000:01:00.0 total=1073741824 used=1048576' \
		'gpu name=B uuid=GPU-b pci=00000000:02:00.0 total=1073741824 used=1048576 error=15'
	run_split "$HMN" free --format prometheus
	[ "$status" -eq 1 ]
	promtool check metrics <<<"$output"
	[ "$(prom_health <(echo "$output"))" = 'hmn_up{command="free"} 0 hmn_driver_info{command="free",source="nvml",driver_version="580.159.04"} 1 ' ]
	grep -q '^hmn_gpu_memory_used_bytes{gpu="0"' <<<"$output"
	# Said once, not once for the GPU and once for each of its process lists.
	run_split "$HMN" ps --format prometheus
	[ "$status" -eq 1 ]
	[ "$stderr" = "hmn: GPU 1: GPU is lost (nvml)
hmn: 0 GPU processes found." ]
	[[ "$(prom_health <(echo "$output"))" == 'hmn_up{command="ps"} 0 '* ]]
}

@test "Prometheus -o FILE: a run that fails still replaces FILE, saying hmn_up 0 with no stale series, and keeps its status" {
	command -v promtool >/dev/null || skip "promtool (Debian's prometheus) is not installed"
	prom="$BATS_TEST_TMPDIR/hmn.prom"
	fresh() {
		"$HMN" free --format prometheus -o "$prom"
		grep -q '^hmn_gpu_memory_used_bytes' "$prom"
	}
	failed() { # failed STATUS: FILE was replaced with hmn_up 0 alone
		[ "$status" -eq "$1" ]
		[ "$output" = "" ]
		promtool check metrics <"$prom"
		[[ "$(prom_health "$prom")" =~ ^hmn_up\{command=\"(free|ps|watch)\"\}\ 0\ $ ]]
		! grep -q '^hmn_gpu' "$prom" || false
		[ "$(ls "$BATS_TEST_TMPDIR" | grep -c hmn.prom)" -eq 1 ] # no temporary file left
	}
	# The driver gone: no GPU found (3).
	fresh
	scenario 'init-error 9'
	run_split "$HMN" free --format prometheus -o "$prom"
	failed 3
	# ps and watch the same.
	run_split "$HMN" ps --format prometheus -o "$prom"
	failed 3
	run_split "$HMN" watch --format prometheus -o "$prom" --count 1
	failed 3
	# Every GPU lost (1).
	scenario 'gpu name=A total=1073741824 used=1 error=15'
	run_split "$HMN" free --format prometheus -o "$prom"
	failed 1
	# A hung source (nvidia-smi past HMN_TIMEOUT): 1.
	export HMN_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1 HMN_TIMEOUT=0.2
	echo hang >"$HMN_FAKE_SMI_DIR/mode"
	run_split "$HMN" free --format prometheus -o "$prom"
	failed 1
	# Other formats keep FILE as it was on failure: a JSON consumer reads no half-truth either way.
	echo '[]' >"$BATS_TEST_TMPDIR/hmn.json"
	run_split "$HMN" free --json -o "$BATS_TEST_TMPDIR/hmn.json"
	[ "$status" -eq 1 ]
	[ "$(cat "$BATS_TEST_TMPDIR/hmn.json")" = "[]" ]
	# A usage error writes nothing at all.
	export HMN_NVML_LIBRARY="$STUB_MODERN"
	scenario 'gpu name=A total=1073741824 used=1'
	rm "$prom"
	run_split "$HMN" free --format prometheus -o "$prom" --device 7
	[ "$status" -eq 2 ] && [ ! -e "$prom" ]
}

@test "exit status and the summary line are the same whatever the format" {
	for format in table json csv prometheus; do
		run_split "$HMN" ps --format "$format"
		[ "$status" -eq 0 ]
		[ "$stderr" = "hmn: 3 GPU processes found (3.0GiB total)." ]
		run_split "$HMN" free --format "$format" --need 70GiB
		[ "$status" -eq 4 ]
	done
	run_split "$HMN" free --format yaml
	[ "$status" -eq 2 ]
	[ "${stderr%%$'\n'*}" = "hmn: invalid --format 'yaml' (expected table (default), json, csv or prometheus)" ]
}

@test "--output FILE: written whole, readable by others, nothing left beside it" {
	echo old >"$BATS_TEST_TMPDIR/hmn.prom"
	run_split "$HMN" free --format prometheus -o "$BATS_TEST_TMPDIR/hmn.prom"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	# The whole document: what stdout gets.
	[ "$(cat "$BATS_TEST_TMPDIR/hmn.prom")" = "$("$HMN" free --format prometheus)" ]
	[ "$(stat -c %a "$BATS_TEST_TMPDIR/hmn.prom")" = "644" ]
	[ "$(ls -A "$BATS_TEST_TMPDIR" | grep -c 'hmn-')" -eq 0 ]
	run_split "$HMN" ps --output="$BATS_TEST_TMPDIR/ps.json" --json
	[ "$status" -eq 0 ]
	[ "$stderr" = "hmn: 3 GPU processes found (3.0GiB total)." ]
	jq -e 'length == 3' "$BATS_TEST_TMPDIR/ps.json"
}

@test "--output: a write that fails leaves FILE as it was, removes the temporary file, exit 1" {
	echo old >"$BATS_TEST_TMPDIR/hmn.prom"
	# Files of 512 bytes at most (the message on stderr fits), SIGXFSZ ignored: the
	# document's write fails with EFBIG.
	run_split bash -c "trap '' XFSZ; ulimit -f 1; exec \"$HMN\" free --format prometheus -o '$BATS_TEST_TMPDIR/hmn.prom'"
	[ "$status" -eq 1 ]
	[ "$stderr" = "hmn: cannot write $BATS_TEST_TMPDIR/hmn.prom: File too large" ]
	[ "$(cat "$BATS_TEST_TMPDIR/hmn.prom")" = "old" ]
	[ "$(ls -A "$BATS_TEST_TMPDIR" | grep -c 'hmn-')" -eq 0 ]
	# A directory that cannot be written: nothing is created, exit 1.
	run_split "$HMN" free -o /proc/hmn-cannot-be-here
	[ "$status" -eq 1 ]
	[[ "$stderr" == "hmn: cannot write /proc/hmn-cannot-be-here: "* ]]
}

@test "--output: hmn killed mid-write leaves FILE as it was, and no temporary file" {
	mkdir "$BATS_TEST_TMPDIR/textfile"
	echo old >"$BATS_TEST_TMPDIR/textfile/hmn.prom"
	# SIGXFSZ by default kills hmn in the middle of its write, before any rename.
	run bash -c "ulimit -f 1; exec \"$HMN\" free --format prometheus -o '$BATS_TEST_TMPDIR/textfile/hmn.prom'"
	[ "$status" -eq $((128 + 25)) ]
	[ "$(cat "$BATS_TEST_TMPDIR/textfile/hmn.prom")" = "old" ]
	# On Linux the temporary file has no name until it is whole (O_TMPFILE).
	[ "$(ls -A "$BATS_TEST_TMPDIR/textfile")" = "hmn.prom" ]
}

@test "--output: /dev/stdout and /dev/stderr are written through, a shell's >> kept" {
	echo old >"$BATS_TEST_TMPDIR/log"
	run_split "$HMN" free -o /dev/stdout
	[ "$status" -eq 0 ]
	[ "$(sed -n 1p <<<"$output" | cut -c1-3)" = "GPU" ]
	"$HMN" free --json -o /dev/stdout >>"$BATS_TEST_TMPDIR/log"
	[ "$(sed -n 1p "$BATS_TEST_TMPDIR/log")" = "old" ]
	jq -e 'length == 2' <(sed -n 2p "$BATS_TEST_TMPDIR/log")
	run_split "$HMN" free --json -o /dev/stderr
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	jq -e 'length == 2' <<<"$stderr"
	# Through a pipe (its /proc/self/fd link names pipe:[N], no file).
	"$HMN" free --json -o /dev/stdout | jq -e 'length == 2'
}

@test "--output: an existing device or FIFO is written as it is, never replaced" {
	if [ "$(id -u)" -eq 0 ]; then
		# A null device of our own (never the system's /dev/null, should this fail).
		mknod "$BATS_TEST_TMPDIR/nulldev" c 1 3
		run_split "$HMN" free -o "$BATS_TEST_TMPDIR/nulldev"
		[ "$status" -eq 0 ]
		[ -c "$BATS_TEST_TMPDIR/nulldev" ]
	fi
	mkfifo "$BATS_TEST_TMPDIR/fifo"
	timeout 20 cat "$BATS_TEST_TMPDIR/fifo" >"$BATS_TEST_TMPDIR/from-fifo" &
	run_split "$HMN" free --json -o "$BATS_TEST_TMPDIR/fifo"
	wait
	[ "$status" -eq 0 ]
	[ -p "$BATS_TEST_TMPDIR/fifo" ]
	jq -e 'length == 2' "$BATS_TEST_TMPDIR/from-fifo"
	[ "$(ls -A "$BATS_TEST_TMPDIR" | grep -c 'hmn-')" -eq 0 ]
	# A FIFO nobody reads: said within seconds, never a hang (hmn run's COMMAND never ran).
	run_split timeout 10 "$HMN" run -o "$BATS_TEST_TMPDIR/fifo" -- touch "$BATS_TEST_TMPDIR/ran"
	[ "$status" -eq 125 ]
	[ "$stderr" = "hmn: cannot write $BATS_TEST_TMPDIR/fifo: a FIFO that no process reads (waited 2s)" ]
	[ ! -e "$BATS_TEST_TMPDIR/ran" ]
}

@test "--output as root: never over a block device, nor through another user's link in a sticky directory" {
	[ "$(id -u)" -eq 0 ] || skip "needs root to make a device node and a link of another user's"
	# A block device node with no driver behind it (major 240, local use): refused before any open.
	mknod "$BATS_TEST_TMPDIR/disk" b 240 0
	run_split "$HMN" free -o "$BATS_TEST_TMPDIR/disk"
	[ "$status" -eq 1 ]
	[ "$stderr" = "hmn: cannot write $BATS_TEST_TMPDIR/disk: a block device (a disk): never written over" ]
	[ -b "$BATS_TEST_TMPDIR/disk" ]
	# /tmp's rule (fs.protected_symlinks): nobody's link to root's file is not followed by root.
	mkdir -m 1777 "$BATS_TEST_TMPDIR/shared"
	echo secret >"$BATS_TEST_TMPDIR/victim"
	ln -s "$BATS_TEST_TMPDIR/victim" "$BATS_TEST_TMPDIR/shared/metrics.json"
	chown -h 65534 "$BATS_TEST_TMPDIR/shared/metrics.json"
	run_split "$HMN" free --json -o "$BATS_TEST_TMPDIR/shared/metrics.json"
	[ "$status" -eq 1 ]
	[ "$stderr" = "hmn: cannot write $BATS_TEST_TMPDIR/shared/metrics.json: Permission denied" ]
	[ "$(cat "$BATS_TEST_TMPDIR/victim")" = secret ]
	# Our own link there is followed, as the kernel would.
	ln -s "$BATS_TEST_TMPDIR/victim" "$BATS_TEST_TMPDIR/shared/ours.json"
	run_split "$HMN" free --json -o "$BATS_TEST_TMPDIR/shared/ours.json"
	[ "$status" -eq 0 ]
	jq -e 'length == 2' "$BATS_TEST_TMPDIR/victim"
}

@test "--output -: stdout" {
	run_split "$HMN" free --json -o -
	[ "$status" -eq 0 ]
	jq -e 'length == 2' <<<"$output"
	[ ! -e ./- ] && [ ! -e "$BATS_TEST_TMPDIR/-" ]
	cd "$BATS_TEST_TMPDIR"
	run_split "$HMN" ps --json --output=-
	[ "$status" -eq 0 ]
	jq -e 'length == 3' <<<"$output"
	[ ! -e ./- ]
}

@test "--output through a symbolic link: the file it names is replaced, the link stays" {
	mkdir "$BATS_TEST_TMPDIR/data" "$BATS_TEST_TMPDIR/links"
	echo old >"$BATS_TEST_TMPDIR/data/hmn.prom"
	ln -s ../data/hmn.prom "$BATS_TEST_TMPDIR/links/hmn.prom"
	run_split "$HMN" free --format prometheus -o "$BATS_TEST_TMPDIR/links/hmn.prom"
	[ "$status" -eq 0 ]
	[ -L "$BATS_TEST_TMPDIR/links/hmn.prom" ]
	[ "$(readlink "$BATS_TEST_TMPDIR/links/hmn.prom")" = "../data/hmn.prom" ]
	grep -q '^hmn_gpu_memory_total_bytes' "$BATS_TEST_TMPDIR/data/hmn.prom"
	# A link to a file not there yet: the file is created where the link points.
	ln -s ../data/new.json "$BATS_TEST_TMPDIR/links/new.json"
	run_split "$HMN" free --json -o "$BATS_TEST_TMPDIR/links/new.json"
	[ "$status" -eq 0 ]
	[ -L "$BATS_TEST_TMPDIR/links/new.json" ]
	jq -e 'length == 2' "$BATS_TEST_TMPDIR/data/new.json"
	[ "$(ls -A "$BATS_TEST_TMPDIR/data" "$BATS_TEST_TMPDIR/links" | grep -c 'hmn-')" -eq 0 ]
}

@test "--output: a new file is 0666 less the umask; a replaced file keeps its mode" {
	(umask 077 && "$HMN" free -o "$BATS_TEST_TMPDIR/private" 2>/dev/null)
	[ "$(stat -c %a "$BATS_TEST_TMPDIR/private")" = "600" ]
	(umask 002 && "$HMN" free -o "$BATS_TEST_TMPDIR/group" 2>/dev/null)
	[ "$(stat -c %a "$BATS_TEST_TMPDIR/group")" = "664" ]
	echo old >"$BATS_TEST_TMPDIR/kept"
	chmod 640 "$BATS_TEST_TMPDIR/kept"
	(umask 022 && "$HMN" free -o "$BATS_TEST_TMPDIR/kept" 2>/dev/null)
	[ "$(stat -c %a "$BATS_TEST_TMPDIR/kept")" = "640" ]
	grep -q '^GPU' "$BATS_TEST_TMPDIR/kept"
}

@test "--output: FILE that cannot be written fails before the work, the output untouched" {
	export HMN_STUB_TRACE="$BATS_TEST_TMPDIR/trace"
	run_split "$HMN" free -o "$BATS_TEST_TMPDIR/no/such/dir/hmn.prom"
	[ "$status" -eq 1 ]
	[ "$stderr" = "hmn: cannot write $BATS_TEST_TMPDIR/no/such/dir/hmn.prom: No such file or directory" ]
	# Nothing was asked of the GPUs.
	[ ! -e "$HMN_STUB_TRACE" ] || ! grep -q '^calls nvmlDeviceGetMemoryInfo' "$HMN_STUB_TRACE"
}

@test "--output refuses other tools' -o habits (ps -o pid=, kubectl -o json): usage error with a hint, nothing written" {
	cd "$BATS_TEST_TMPDIR"
	mkdir habits && cd habits
	for value in pid= 'pid,comm' json JSON csv prometheus table wide yaml pid vram name custom-columns=NAME:.pid; do
		run_split "$HMN" ps -o "$value"
		[ "$status" -eq 2 ]
		[[ "${stderr%%$'\n'*}" == "hmn: -o $value would write a file named '$value': "*" (a file of that name: -o ./$value)" ]]
		[ "${stderr##*$'\n'}" = "Try 'hmn ps --help'." ]
		[ "$output" = "" ]
	done
	run_split "$HMN" free --output=json
	[ "$status" -eq 2 ]
	[ "${stderr%%$'\n'*}" = "hmn: --output json would write a file named 'json': did you mean --format json? (a file of that name: --output ./json)" ]
	run_split "$HMN" ps -oJSON
	[ "${stderr%%$'\n'*}" = "hmn: -o JSON would write a file named 'JSON': did you mean --format json? (a file of that name: -o ./JSON)" ]
	# hmn run: a usage error of its own (125), COMMAND never started.
	run_split "$HMN" run -o wide -- touch started
	[ "$status" -eq 125 ]
	[ ! -e started ]
	[ -z "$(ls -A)" ]
	# The habit this guards: ps -o pid= | xargs kill would have killed nothing, silently.
	run_split bash -c '"$HMN" ps -o pid= | wc -c'
	[ "$output" = 0 ]
	[[ "$stderr" == "hmn: -o pid= would write"* ]]
	# Said as a path, each is a file like any other.
	for value in ./json ./pid= "$PWD/wide"; do
		run_split "$HMN" ps --json -o "$value"
		[ "$status" -eq 0 ]
		jq -e 'length == 3' "$value"
	done
}

@test "the README's alerts: promtool checks them, and they fire on hmn_up 0 and on a stale file, not on a healthy one" {
	command -v promtool >/dev/null || skip "promtool (Debian's prometheus) is not installed"
	dir=$BATS_TEST_TMPDIR/alerts
	mkdir "$dir"
	# The README's rules block, as it is.
	awk '/^```yaml$/ { block = 1; text = ""; next } block && /^```$/ { if (text ~ /GPUUnreadable/) printf "%s", text; block = 0; next }
		block { text = text $0 "\n" }' "$TESTS_DIR/../README.md" >"$dir/rules.yml"
	grep -q 'alert: GPUTextfileStale' "$dir/rules.yml"
	promtool check rules "$dir/rules.yml"
	# What hmn wrote when the driver was gone, as node_exporter serves it.
	scenario 'init-error 9'
	"$HMN" free --format prometheus -o "$dir/hmn.prom" || true
	grep -qx 'hmn_up{command="free"} 0' "$dir/hmn.prom"
	cat >"$dir/test.yml" <<'YAML'
rule_files: [rules.yml]
evaluation_interval: 15s
tests:
  - interval: 15s
    input_series:
      - series: 'hmn_up{instance="gpu-1"}'
        values: '0x8'
      - series: 'hmn_up{instance="gpu-2"}'
        values: '1x8'
      - series: 'node_textfile_mtime_seconds{instance="gpu-1",file="/var/lib/node_exporter/textfile_collector/hmn.prom"}'
        values: '0x20'
      - series: 'node_textfile_mtime_seconds{instance="gpu-2",file="/var/lib/node_exporter/textfile_collector/hmn.prom"}'
        values: '0+15x20'
    alert_rule_test:
      - eval_time: 2m
        alertname: GPUUnreadable
        exp_alerts:
          - exp_labels: {instance: gpu-1}
            exp_annotations:
              summary: "hmn on gpu-1 could not read its GPUs (lost, driver broken or gone)"
      - eval_time: 3m
        alertname: GPUTextfileStale
        exp_alerts:
          - exp_labels: {instance: gpu-1, file: /var/lib/node_exporter/textfile_collector/hmn.prom}
            exp_annotations:
              summary: "/var/lib/node_exporter/textfile_collector/hmn.prom on gpu-1 was last written over 2 minutes ago"
YAML
	(cd "$dir" && promtool test rules test.yml)
}
