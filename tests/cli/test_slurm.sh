# scripts/slurm/sweep.sbatch on a real one-node Slurm (scripts/slurm/test-cluster.sh:
# munged, slurmctld, slurmd under a temporary folder, stopped at the end):
#   1. sbatch --wait --array=0-1 with PPBENCH_PER_CONFIG=1: one configuration
#      per array task, two sweep folders named after the node
#   2. the submit mode with PPBENCH_PARTITIONS="typea typeb": one task per
#      partition (node type), then the merge job
# Skipped, with the reason, where Slurm is not installed or cannot start.
. "$(dirname "$0")/lib.sh"

why=$(scripts/slurm/test-cluster.sh check 2>&1)
if [ $? -ne 0 ]; then
	skip "slurm" "${why#test-cluster: }"
	exit 0
fi

PPB=$(cd "$(dirname "$PPBENCH")" && pwd)/$(basename "$PPBENCH")
DS=$TMP/slurm-ds
W=$TMP/slurm-work
CL=$TMP/slurm-cluster
mkdir -p "$W"
"$PPBENCH" dataset generate --out "$DS" --images 16 --classes 2 --quiet >/dev/null 2>&1 ||
	{ echo "not ok - generate the tiny dataset"; exit 1; }
has_merge=1
"$PPBENCH" merge --help 2>&1 | grep -q "unknown command" && has_merge=0

# what runs inside the cluster (SLURM_CONF set by test-cluster.sh)
cat >"$TMP/slurm-inner.sh" <<EOF
cd "$W" || exit 1
export PPBENCH="$PPB" PPBENCH_DATA="$DS" PPBENCH_BATCH=8 PPBENCH_GPUS=1
export PPBENCH_EXTRA="--max-batches 2 --no-report"
PPBENCH_OUT="$W/per-config" PPBENCH_PER_CONFIG=1 PPBENCH_WORKERS="1 2" \\
	timeout 50 sbatch --wait --array=0-1 --output="$W/per-config-%A_%a.out" \\
	"$(pwd)/scripts/slurm/sweep.sbatch" >"$W/per-config.sbatch" 2>&1
echo \$? >"$W/per-config.rc"
PPBENCH_OUT="$W/per-type" PPBENCH_WORKERS=1 PPBENCH_PARTITIONS="typea typeb" \\
	PPBENCH_MERGE=$has_merge PPBENCH_SBATCH="--time=5" \\
	timeout 50 "$(pwd)/scripts/slurm/sweep.sbatch" --wait >"$W/per-type.submit" 2>&1
echo \$? >"$W/per-type.rc"
squeue -h >"$W/squeue.after" 2>&1
EOF

start=$(date +%s)
scripts/slurm/test-cluster.sh run "$CL" -- bash "$TMP/slurm-inner.sh" >"$TMP/slurm-cluster.log" 2>&1
rc=$?
if [ "$rc" -eq 3 ]; then
	skip "slurm" "the test cluster would not start: $(tail -1 "$TMP/slurm-cluster.log")"
	exit 0
fi
check "the cluster ran and stopped (exit $rc)" test "$rc" -eq 0
node=$(hostname -s)
col() { awk -F, -v c="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) k = i; next } { print $k }' "$2"; }

# 1. one configuration per array task
check "sbatch --wait --array=0-1 exits 0" test "$(cat "$W/per-config.rc" 2>/dev/null)" = 0
n=$(ls -d "$W"/per-config/*-sweep-"$node"-*_[01] 2>/dev/null | wc -l)
check "two sweep folders named after the node ($node), one per task" test "$n" -eq 2
for t in 0 1; do
	d=$(ls -d "$W"/per-config/*-sweep-"$node"-*_$t 2>/dev/null | head -1)
	want=$((t + 1))
	check "task $t ran workers $want on $node" \
		sh -c "grep -q '\"status\": \"ok\"' '$d/sweep.json' &&
		       grep -q '\"workers\": $want,' '$d/sweep.json' &&
		       grep -q '\"hostname\": \"$(hostname)\"' '$d/sweep.json' &&
		       grep -q '^SLURMD_NODENAME=$node\$' '$d/slurm.env' &&
		       grep -q '^SLURM_ARRAY_TASK_ID=$t\$' '$d/slurm.env' &&
		       test -s '$d/runs/'*/summary.json"
done

# 2. one task per node type (partition), and the merge job
check "the submit mode exits 0" test "$(cat "$W/per-type.rc" 2>/dev/null)" = 0
parts=$(cat "$W"/per-type/*-sweep*/slurm.env 2>/dev/null | sed -n 's/^SLURM_JOB_PARTITION=//p' | sort | tr '\n' ' ')
check "one task in each partition (typea, typeb)" test "$parts" = "typea typeb "
if [ "$has_merge" -eq 1 ]; then
	check "the merge job wrote the comparison" test -s "$W/per-type/merged/report.html"
	check "the merge job saw both folders" \
		test "$(grep -c "^$(hostname)," "$W/per-type/merged/summary.csv" 2>/dev/null)" -eq 2
	check_cli "ppbench merge on the per-configuration folders" 0 "report.md" -- \
		merge "$W/per-config" --out "$W/per-config-merged"
	check "one machine, two configurations" \
		test "$(col compared_configs "$W/per-config-merged/comparison.csv")" = 2
else
	skip "slurm merge job" "this ppbench has no merge command (bench/cli/main.c does not dispatch it yet)"
fi
check "no job left in the queue" test ! -s "$W/squeue.after"

# clean-up
left=$(ps -eo args 2>/dev/null | grep -F "$CL/" | grep -v grep | wc -l)
check "the daemons are stopped" test "$left" -eq 0
check "the cluster folder is removed" test ! -e "$CL"
check "under 60 s ($(($(date +%s) - start)) s)" test $(($(date +%s) - start)) -lt 60
rm -rf "$W" "$DS" "$TMP/slurm-inner.sh" "$TMP/slurm-cluster.log"
