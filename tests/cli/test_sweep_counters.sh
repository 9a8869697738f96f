# Counters in a sweep: summary.csv has per-op on-CPU and descheduled seconds
# and the derived counter columns; Fig. 6b's data splits each op's CPU
# seconds into on-CPU and descheduled time; the derived counter figures
# (Figs. 6e-h) say why they are not drawn when hardware events do not count
# (PPBENCH_FORCE_NO_PMU=1: as on a machine without a PMU).
. "$(dirname "$0")/lib.sh"

need gnuplot || exit 1
top=$(cd "$(dirname "$0")/../.." && pwd)
SYNTH=$top/tests/fixtures/pipelines/synth.pipe
DS=$TMP/swc-ds
OUT=$TMP/swc-out
mkdir -p "$DS/c0" "$DS/c1"
for i in $(seq 10 17); do : >"$DS/c0/x$i.jpg"; : >"$DS/c1/y$i.jpg"; done

col() { awk -F, -v c="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) k = i; next } { print (k ? $k : "?") }' "$2"; }
is_num() { awk -v x="$1" 'BEGIN { exit !(x ~ /^-?[0-9.]+(e[-+]?[0-9]+)?$/) }'; }

PPBENCH_FORCE_NO_PMU=1 "$PPBENCH" sweep --data "$DS" --pipeline "$SYNTH" --workers "1 2" \
	--batch 4 --gpus 1 --gpu-step 0 --counters basic --out "$OUT" --tag cnt >"$TMP/swc.log" 2>&1
rc=$?
if [ "$rc" -eq 0 ]; then echo "ok - a sweep with --counters basic"
else echo "not ok - a sweep with --counters basic (exit $rc)"; sed 's/^/#   /' "$TMP/swc.log" | tail -5; fi
S=$(ls -d "$OUT"/*-sweep-cnt 2>/dev/null | head -1)
csv=$S/summary.csv
hdr=$(head -1 "$csv" 2>/dev/null)
missing=""
for c in counters hw_events op_synth_oncpu_s op_synth_descheduled_s op_synth_ipc op_synth_cache_mpki \
	op_synth_branch_mpki op_synth_frontend_stall_pct op_synth_backend_stall_pct op_collate_oncpu_s; do
	case ",$hdr," in *",$c,"*) ;; *) missing="$missing $c" ;; esac
done
if [ -z "$missing" ]; then echo "ok - summary.csv: on-CPU, descheduled and counter columns"
else echo "not ok - summary.csv: on-CPU, descheduled and counter columns (missing:$missing)"; fi
bad=""
for v in $(col op_synth_oncpu_s "$csv") $(col op_synth_descheduled_s "$csv"); do
	is_num "$v" || bad="$bad '$v'"
done
n=$(col op_synth_oncpu_s "$csv" | grep -c .)
if [ -z "$bad" ] && [ "$n" -eq 2 ]; then echo "ok - summary.csv: on-CPU and descheduled seconds of each run"
else echo "not ok - summary.csv: on-CPU and descheduled seconds of each run ($n,$bad)"; fi
# empty in each of the 2 rows of a column that exists (not a missing file or column)
if [ "$(col op_synth_ipc "$csv" | wc -l)" -eq 2 ] && [ "$(col op_synth_ipc "$csv" | tr -d '\n')" = "" ]
then echo "ok - summary.csv: no IPC without a PMU (empty, not 0)"
else echo "not ok - summary.csv: no IPC without a PMU ($(col op_synth_ipc "$csv" | tr '\n' ' '))"; fi
if col hw_events "$csv" | grep -q '^not supported: cycles: no hardware PMU (ENOENT)$'
then echo "ok - summary.csv: why hardware events do not count"
else echo "not ok - summary.csv: why hardware events do not count ($(col hw_events "$csv" | head -1))"; fi
if [ "$(col counters "$csv" | sort -u)" = "basic" ] && [ "$(col counters "$csv" | wc -l)" -eq 2 ]; then echo "ok - summary.csv: the counters asked for"
else echo "not ok - summary.csv: the counters asked for"; fi

# Fig. 6b: on-CPU vs descheduled
data=$S/figures/data/cpu_by_op.csv
if head -1 "$data" 2>/dev/null | grep -q ',oncpu_s,descheduled_s,cum_oncpu_s$'
then echo "ok - Fig. 6b data: on-CPU and descheduled per op"
else echo "not ok - Fig. 6b data: on-CPU and descheduled per op"; fi
# every row's on-CPU part within its stack, and at least one row has one (not all empty)
bad=$(awk -F, 'NR > 1 && $8 != "" { k++ } NR > 1 && $8 != "" && ($8 > $5 + 1e-12 || $8 < $5 - $4 - 1e-12) { n++ }
	END { print (k ? n + 0 : "no row has an on-CPU part") }' "$data" 2>/dev/null)
if [ "$bad" = 0 ]; then echo "ok - Fig. 6b data: each op's on-CPU part lies within its part of the stack"
else echo "not ok - Fig. 6b data: each op's on-CPU part lies within its part of the stack ($bad)"; fi
check "Fig. 6b drawn" test -s "$S/figures/fig6b_cpu_vs_workers.png"
check "the report splits CPU seconds into on-CPU and descheduled" \
	grep -q 'descheduled (s)' "$S/report.md"

# Figs. 6e-h: not drawn here, and the report says why
for f in fig6e_ipc_vs_workers fig6f_cache_mpki_vs_workers fig6g_frontend_stall_vs_workers \
	fig6h_backend_stall_vs_workers; do
	if [ ! -e "$S/figures/$f.png" ]; then echo "ok - $f: not drawn without a PMU"
	else echo "not ok - $f: not drawn without a PMU"; fi
done
n=$(grep -c 'Figure not drawn:.*Fig. 6[efgh]).*hardware events are not supported here (cycles: no hardware PMU (ENOENT))' "$S/report.md")
if [ "$n" -eq 4 ]; then echo "ok - the report says why, for each of Figs. 6e-h"
else echo "not ok - the report says why, for each of Figs. 6e-h ($n)"; fi

# ppbench report reads summary.csv's new columns back (plots from the CSV)
rm -f "$S"/figures/*.png
check_cli "ppbench plots redraws from the sweep" 0 "" -- plots "$S"
check "Fig. 6b redrawn" test -s "$S/figures/fig6b_cpu_vs_workers.png"
if head -1 "$S/figures/data/cpu_by_op.csv" | grep -q ',cum_oncpu_s$'
then echo "ok - redrawn Fig. 6b keeps the on-CPU split"
else echo "not ok - redrawn Fig. 6b keeps the on-CPU split"; fi
