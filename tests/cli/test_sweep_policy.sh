# ppbench sweep --policy: the loader policy as a swept dimension. A tiny
# sweep of torch and shared-queue over two worker counts on a pipeline where
# some samples are slow: a row per policy with the policy's figures in
# summary.csv, one series per policy against workers, the comparison figure,
# the report's "Loader policies" section, and the same checksum across
# policies (whole epochs: the same samples, possibly in other batches).
. "$(dirname "$0")/lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)

need gnuplot jq || exit 1

ds=$TMP/sweep_policy_ds
out=$TMP/sweep_policy_out
mkdir -p "$ds/c0" "$ds/c1"
for i in $(seq 10 25); do : >"$ds/c0/x$i.jpg"; : >"$ds/c1/y$i.jpg"; done
base=(--data "$ds" --out "$out" --pipeline "$top/tests/fixtures/pipelines/slow_samples.pipe"
      --batch 4 --gpus 1 --gpu-step 5ms --epochs 1 --trace off --warm)

check_cli "--policy: an unknown policy is refused" 2 "policy" -- \
	sweep "${base[@]}" --workers 1 --policy "torch fifo"
check_cli "--policy: a policy listed twice is refused" 2 "twice" -- \
	sweep "${base[@]}" --workers 1 --policy "torch torch"
check_cli "sweep over two policies and two worker counts" 0 "report.html" -- \
	sweep "${base[@]}" --workers "1 2" --policy "torch shared-queue" --tag pol
S=$(ls -d "$out"/*-sweep-pol 2>/dev/null | head -1)
[ -n "$S" ] || { echo "not ok - sweep folder made"; exit 1; }
csv=$S/summary.csv
col() { awk -F, -v c="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) k = i; next } { print $k }' "$2"; }

hdr=$(head -1 "$csv")
missing=""
for c in policy samples_reordered_count sum_wait_s \
	gpu_util_pct gpu_idle_s checksum; do
	case ",$hdr," in *",$c,"*) ;; *) missing="$missing $c" ;; esac
done
check "summary.csv has the policy columns${missing:+ (missing:$missing)}" test -z "$missing"
check "four runs, all ok" test "$(col status "$csv" | tr '\n' ' ')" = "ok ok ok ok "
check "plan order: policy, then workers" \
	test "$(paste -d: <(col policy "$csv") <(col workers "$csv") | tr '\n' ' ')" = \
	"torch:1 torch:2 shared-queue:1 shared-queue:2 "
check "run tags name the policy" grep -q '"w2-b4-g1-shared-queue-r1"' "$S/sweep.json"
check "sweep.json records the policies" \
	test "$(jq -r '.policy | join(" ")' "$S/sweep.json")" = "torch shared-queue"
check "each run was given its policy" \
	test "$(jq -r '.runs[].policy' "$S/sweep.json" | tr '\n' ' ')" = \
	"torch torch shared-queue shared-queue "
check "torch keeps every sample in its batch" \
	test "$(paste -d: <(col policy "$csv") <(col samples_reordered_count "$csv") |
		grep '^torch:' | sort -u)" = "torch:0"
ck=$(col checksum "$csv" | sort -u)
check "the same checksum across policies ($ck)" test "$(printf '%s\n' "$ck" | grep -Ec '^[0-9a-f]{16}$')" -eq 1 \
	-a "$(printf '%s\n' "$ck" | wc -l)" -eq 1

bad=""
for f in policies_compare fig6a_e2e_vs_workers ooo_stall_vs_workers gpu_util_vs_workers; do
	png=$S/figures/$f.png svg=$S/figures/$f.svg
	[ "$(head -c 8 "$png" 2>/dev/null | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ] ||
		bad="$bad $f.png"
	grep -q "<svg" "$svg" 2>/dev/null && grep -q "</svg>" "$svg" || bad="$bad $f.svg"
done
check "comparison and against-workers figures are valid PNG and SVG${bad:+ (bad:$bad)}" test -z "$bad"
check "one series per policy against workers" \
	test "$(col series_label "$S/figures/data/vs_workers.csv" | sort -u | tr '\n' '|')" = \
	"b4 / 1 GPU / shared-queue|b4 / 1 GPU / torch|"
check "the report has a Loader policies section" grep -q '^## Loader policies' "$S/report.md"
check "the report has a table per policy" \
	sh -c "grep -q '^### Policy torch' '$S/report.md' && grep -q '^### Policy shared-queue' '$S/report.md'"
check "the report says what a user gives up" grep -q 'reordered across batches' "$S/report.md"
check "the report says the checksum is identical across policies" \
	grep -q 'Checksum: identical across policies in all 2 configurations' "$S/report.md"
check "the findings judge the torch runs" grep -q 'findings judge the runs of torch' "$S/report.md"

# resume: a pending run of a policy is run with its policy
jq '.runs[3].status = "pending"' "$S/sweep.json" >"$S/sweep.json.new" && mv "$S/sweep.json.new" "$S/sweep.json"
check_cli "--resume runs the pending shared-queue run" 0 "run 4 of 4 .w2-b4-g1-shared-queue-r1.: ok" -- \
	sweep --resume "$S" --no-report
check "the resumed run is a shared-queue run" \
	test "$(jq -r '.loader.policy' "$S/$(jq -r '.runs[3].run_dir' "$S/sweep.json")/summary.json")" = shared-queue

# one policy (the default): tags and series labels as before
check_cli "a sweep with the default policy" 0 "report.html" -- \
	sweep "${base[@]}" --workers "1 2" --tag one
S1=$(ls -d "$out"/*-sweep-one 2>/dev/null | head -1)
check "default: tags do not name the policy" grep -q '"w1-b4-g1-r1"' "$S1/sweep.json"
check "default: no comparison figure, no policies section" \
	sh -c "test ! -e '$S1/figures/policies_compare.png' && ! grep -q '^## Loader policies' '$S1/report.md'"
