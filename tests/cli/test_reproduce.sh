# make reproduce is resumable (scripts/reproduce.sh): interrupted, the same
# command again finishes what is missing and writes the report; RESUME=DIR
# picks the folder; a folder started with other settings is refused.
# A tiny dataset of empty files, the synth pipeline, one batch per run.
. "$(dirname "$0")/lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
need gnuplot || exit 1
ds=$TMP/repro_ds
out=$TMP/repro_out
mkdir -p "$ds/c0" "$ds/c1" "$out"
for i in $(seq 10 25); do : >"$ds/c0/x$i.jpg"; : >"$ds/c1/y$i.jpg"; done
# a ppbench that is "interrupted" (exit 130) when the worker sweep starts
cat >"$TMP/ppb-int" <<EOF2
#!/bin/sh
case " \$* " in *" --tag workers "*) echo "sweep interrupted (SIGINT)" >&2; exit 130;; esac
exec "$PPBENCH" "\$@"
EOF2
chmod +x "$TMP/ppb-int"
repro() {   # repro PPBENCH RESUME [extra...]
	local p=$1 r=$2
	shift 2
	PPBENCH_PROBE_MS=1 "$top/scripts/reproduce.sh" "$p" "$out" "" "4" 1 4 1 "$r" -- --data "$ds" \
		--pipeline "$top/tests/fixtures/pipelines/synth.pipe" --max-batches 1 --gpu-step 0 "$@"
}

repro "$TMP/ppb-int" "" >"$TMP/r1.log" 2>&1
rc=$?
check "interrupted: the exit code says so (130)" test "$rc" -eq 130
check "and says how to finish" grep -q "finish it with the same command again, or make reproduce RESUME=" "$TMP/r1.log"
d=$(ls -d "$out"/*-reproduce 2>/dev/null | head -1)
check "experiment 1 finished before the interruption" test -f "$(ls -d "$d"/*-sweep-grid | head -1)/sweep.json"
check "no report yet" test ! -f "$d/report.md"

repro "$PPBENCH" "" >"$TMP/r2.log" 2>&1
rc=$?
check "the same command again: done (exit 0)" test "$rc" -eq 0
check "it resumed the unfinished folder" grep -q "resuming $d" "$TMP/r2.log"
check "experiment 1 was not run again" grep -q "0 runs to do (resumed)" "$TMP/r2.log"
check "the report is written" test -s "$d/report.md"
check "still one reproduce folder" test "$(ls -d "$out"/*-reproduce | wc -l)" -eq 1

# done folders are not resumed: a new run starts a new folder
repro "$TMP/ppb-int" "" >/dev/null 2>&1
check "a finished folder is left alone" test "$(ls -d "$out"/*-reproduce | wc -l)" -eq 2

# RESUME=DIR: only a make reproduce folder with the same settings
repro "$PPBENCH" "$TMP" >"$TMP/r3.log" 2>&1
rc=$?
check "RESUME of a folder that is not one: exit 2" test "$rc" -eq 2
check "with the reason" grep -q "has no reproduce.args" "$TMP/r3.log"
repro "$PPBENCH" "$d" --seed 9 >"$TMP/r4.log" 2>&1
rc=$?
check "RESUME with other settings: exit 2" test "$rc" -eq 2
check "says what differs" grep -q "was started with other settings" "$TMP/r4.log"
check "make reproduce passes RESUME on" sh -c "make -n -C '$top' reproduce RESUME=/x/y | grep -q '\"/x/y\"'"
