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
	fake_process 4242 0 /usr/bin/python3.11
	fake_process 777 65534 "/opt/we\"ird\\na"$'\n'"me"$'\xff' 'weird'
}

@test "free --need: 0 when a GPU has it, 4 with the contract's line when none has" {
	run_split "$HMN" free --need 40GiB
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[ "${lines[0]}" = "GPU  NAME                       USED      FREE     TOTAL  RESERVED  SOURCE" ]
	run_split "$HMN" free --need 60GiB
	[ "$status" -eq 4 ]
	[ "$stderr" = "hmn: no GPU has 60.0 GiB free (most: GPU 0, 59.8 GiB)" ]
	[ "${#lines[@]}" -eq 3 ] # the table is printed as usual
	run_split "$HMN" free --need 40GiB --device 1
	[ "$status" -eq 4 ]
	[ "$stderr" = "hmn: no GPU has 40.0 GiB free (most: GPU 1, 13.7 GiB)" ]
	run_split "$HMN" free --json --need 1b
	[ "$status" -eq 0 ]
	jq -e 'length == 2' <<<"$output"
}

@test "free --need N%: a share of each GPU's own total" {
	run_split "$HMN" free --need 75%
	[ "$status" -eq 0 ]
	run_split "$HMN" free --need 76%
	[ "$status" -eq 4 ]
	[ "$stderr" = "hmn: no GPU has 76% of its memory free (most: GPU 0, 59.8 GiB)" ]
	run_split "$HMN" free --need 28% --device 1
	[ "$status" -eq 0 ]
}

@test "SIZE: units, decimals, case; hostile values are usage errors, never a wrap-around" {
	for ok in 1 1b 512M 512m 512MiB 0.5G 1.5GiB 59GB 1T 1tb 100% 0.5%; do
		run_split "$HMN" free --need "$ok"
		[ "$status" -eq 0 ] || [ "$status" -eq 4 ]
	done
	for bad in 99999999TiB 1e999 1e9 -1 abc 10x '' 101% 0% % G 1..5G '1 G' 18446744073709551616 nan inf; do
		run_split "$HMN" free --need "$bad"
		[ "$status" -eq 2 ]
		[ "$(sed -n 2p <<<"$stderr")" = "Try 'hmn --help'." ]
	done
}

@test "free -l: UTIL TEMP POWER before SOURCE, - where unknown" {
	run_split "$HMN" free -l
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "GPU  NAME                       USED      FREE     TOTAL  RESERVED  UTIL  TEMP  POWER  SOURCE" ]
	[ "${lines[1]}" = "  0  NVIDIA H100 80GB HBM3  19.4 GiB  59.8 GiB  79.6 GiB   479 MiB   37%   41C   71 W  nvml" ]
	[ "${lines[2]}" = "  1  NVIDIA L40S            31.3 GiB  13.7 GiB  45.0 GiB     0 MiB     -   30C      -  nvml" ]
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
assert raw.endswith("\r\n") and "\r\n" in raw, "CRLF line ends"
table = list(csv.reader(io.StringIO(raw, newline="")))
header, records = table[0], table[1:]
assert header == [k for k in rows[0] if not isinstance(rows[0][k], dict) and k != "mig"], header
assert len(records) == len(rows), (len(records), len(rows))
for row, record in zip(rows, records):
    for key, cell in zip(header, record):
        value = row[key]
        want = "" if value is None else ("true" if value is True else "false" if value is False else str(value))
        assert cell == want, (key, cell, want)
PY
	done
	# The hostile name: quoted, its quote doubled, its newline inside the quotes, invalid UTF-8 made U+FFFD.
	grep -q $'^777,"we""ird\\\\na\nme\xef\xbf\xbd",' "$BATS_TEST_TMPDIR/ps.csv"
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
	grep -qF 'hmn_process_gpu_memory_bytes{pid="777",name="we\"ird\\na\nme'$'\xef\xbf\xbd''",user="nobody",gpu="1",uuid="GPU-bbbbbbbb-1111-2222-3333-444444444444",type="compute",container=""} 1073741824' "$BATS_TEST_TMPDIR/ps.prom"
	# Unknown VRAM (pid 1500): left out.
	! grep -q 'pid="1500"' "$BATS_TEST_TMPDIR/ps.prom" || false
	# total, used, free, reserved, utilisation, memory utilisation, temperature, power, limit; no GTT on NVIDIA
	[ "$(grep -c '^# TYPE .* gauge$' "$BATS_TEST_TMPDIR/free.prom")" -eq 9 ]
}

@test "exit status and the summary line are the same whatever the format" {
	for format in table json csv prometheus; do
		run_split "$HMN" ps --format "$format"
		[ "$status" -eq 0 ]
		[ "$stderr" = "hmn: 3 GPU processes found (3.0 GiB total)." ]
		run_split "$HMN" free --format "$format" --need 70GiB
		[ "$status" -eq 4 ]
	done
	run_split "$HMN" free --format yaml
	[ "$status" -eq 2 ]
	[ "${stderr%%$'\n'*}" = "hmn: invalid --format 'yaml' (expected table, json, csv or prometheus)" ]
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
	[ "$stderr" = "hmn: 3 GPU processes found (3.0 GiB total)." ]
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

@test "--output: hmn killed mid-write leaves FILE as it was" {
	echo old >"$BATS_TEST_TMPDIR/hmn.prom"
	# SIGXFSZ by default kills hmn in the middle of its write, before any rename.
	run bash -c "ulimit -f 1; exec \"$HMN\" free --format prometheus -o '$BATS_TEST_TMPDIR/hmn.prom'"
	[ "$status" -eq $((128 + 25)) ]
	[ "$(cat "$BATS_TEST_TMPDIR/hmn.prom")" = "old" ]
}
