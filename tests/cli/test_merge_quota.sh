# ppbench merge: two sweeps of one host on the same CPUs that differ only in
# a cgroup CPU quota (docker --cpus) are two machines, never one machine
# whose runs are averaged as repeats. The pair: tests/fixtures/merge's
# node-skx (CPUs 0-1, no quota: 2 usable) and a copy whose runs had a quota
# of 1 CPU, then of 0.5 (below 1: not a whole CPU).
. "$(dirname "$0")/lib.sh"

F=tests/fixtures/merge
col() { awk -F, -v c="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) k = i; next } { print $k }' "$2"; }
for q in 1.0 0.5; do
	d=$TMP/mq-$q
	mkdir -p "$d"
	cp -r "$F/sweep-node-skx" "$d/"
	sed -i "s/\"cpu_quota\": null/\"cpu_quota\": $q/; s/\"cpus_usable\": [0-9.]*/\"cpus_usable\": $q/" \
		"$d/sweep-node-skx/sweep.json" "$d/sweep-node-skx"/runs/*/summary.json
	check "quota $q: only the quota differs (CPU list 0-1 kept)" \
		test "$(grep -ho '"cpus_allowed_list": "[^"]*"' "$d/sweep-node-skx"/runs/*/summary.json | sort -u)" = '"cpus_allowed_list": "0-1"'
	for by in host cpu; do
		o=$TMP/mq-out-$q-$by
		check_cli "quota $q, by $by: merge" 0 "report.html" -- merge "$F/sweep-node-skx" "$d/sweep-node-skx" \
			--by "$by" --out "$o"
		check "quota $q, by $by: two machines in comparison.csv, not one" \
			test "$(grep -c 'node-skx\|Gold 6130' "$o/comparison.csv")" -eq 2
		check "quota $q, by $by: the quota's machine is named by its usable CPUs" \
			grep -q "\[usable CPUs ${q%.0}\]" "$o/comparison.csv"
	done
done

# images/s per core under a quota of half a CPU counts half a core: the same
# runs' images/s over 0.5 against over the unquoted machine's 2 cores (4x)
o=$TMP/mq-out-0.5-host
pc() { python3 -c "import csv,sys
for r in csv.DictReader(open(sys.argv[1])):
    if r['machine'].endswith(sys.argv[2]): print(r['images_per_s_per_core'])" "$o/comparison.csv" "$1"; }
a=$(pc "[usable CPUs 2]") b=$(pc "[usable CPUs 0.5]")
check "quota 0.5: images/s per core counts half a core ($b against $a on 2 cores)" \
	python3 -c "import sys; a, b = float(sys.argv[1]), float(sys.argv[2]); sys.exit(abs(b / a - 4) > 1e-6)" "$a" "$b"
