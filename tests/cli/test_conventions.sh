# One set of conventions: every command's --help ends with the same exit-code
# table; a mistyped command or option names the nearest one; an input that
# does not exist is exit 2 for every command; ops and version honour --help;
# apply says what it wrote.
. "$(dirname "$0")/lib.sh"

for c in run sweep report merge plots compare bottleneck strategies apply "dataset generate" \
	 "dataset describe" bench info map ops metrics version; do
	# shellcheck disable=SC2086
	out=$("$PPBENCH" $c --help 2>&1)
	rc=$?
	if [ "$rc" -eq 0 ] && printf '%s\n' "$out" | grep -q '^exit codes (the same for every ppbench command):' &&
	   printf '%s\n' "$out" | grep -q '^  2 .*refused before anything ran'; then
		echo "ok - $c --help ends with the exit-code table"
	else
		echo "not ok - $c --help ends with the exit-code table (exit $rc)"
	fi
done
# compare, merge, report, plots and dataset describe print --help from their
# option tables too (issue 24): the generated layout, every row
gen_help=$("$PPBENCH" run --help | grep -- '^  -h, --help ')
for c in compare merge report plots "dataset describe"; do
	# shellcheck disable=SC2086
	if "$PPBENCH" $c --help 2>&1 | grep -qxF -- "$gen_help"; then
		echo "ok - $c --help is generated from its option table"
	else
		echo "not ok - $c --help is generated from its option table"
	fi
done
check_cli "merge --help: --price is repeatable" 0 '--price NAME=USD_PER_HOUR .*\(repeatable\)' -- merge --help
check_cli "ppbench --help has the table too" 0 '128\+N +stopped by signal N' -- --help

check_cli "a mistyped command names the nearest" 2 "unknown command 'rnu'; did you mean 'run'\?" -- rnu
check_cli "a mistyped command (one letter short)" 2 "did you mean 'sweep'\?" -- swep
check_cli "a word far from every command: the list" 2 'commands:' -- frobnicate
check_cli "a mistyped option names the nearest" 2 "unknown option '--wrokers'; did you mean '--workers'\?" -- \
	run --wrokers 2
check_cli "sweep's own options too" 2 "did you mean '--dry-run'\?" -- sweep --dry-rnu
check_cli "an option far from every option: no guess" 2 "unknown option '--bogus' \(see --help\)" -- \
	run --bogus 1

m=$TMP/conv-missing
for c in "run --data $m" "dataset describe $m" "report $m" "plots $m" "merge $m" "metrics $m" \
	 "apply $m.jpg --out $TMP/x.npy" "map $m.jpg --out $TMP/map"; do
	# shellcheck disable=SC2086
	check_cli "a missing input is exit 2: ${c%% *}" 2 "$m" -- $c
done
check_cli "ops takes no argument" 2 'ops takes no argument' -- ops extra

img=$(dirname "$0")/../fixtures/decode
img=$(ls "$img"/*.jpg 2>/dev/null | head -1)
if [ -n "$img" ]; then
	check_cli "apply says what it wrote" 0 "^$TMP/conv.npy: float32 \[3, 224, 224\]" -- \
		apply "$img" --out "$TMP/conv.npy"
else
	echo "not ok - apply says what it wrote: no fixture JPEG under tests/fixtures/decode"
fi

# the repository stands alone: no path into the project's shared notes
top=$(cd "$(dirname "$0")/../.." && pwd)
pat='\.\./sha''red/|/work/sha''red'
hits=$(cd "$top" && git ls-files 2>/dev/null | grep -v '^tests/fixtures/' |
	xargs grep -lE "$pat" 2>/dev/null)
if [ -z "$hits" ]; then echo "ok - no file points outside the repository (into the shared notes)"
else echo "not ok - files point outside the repository: $hits"; fi
check_cli "map --help hides its internal options" 0 '' -- map --help
if "$PPBENCH" map --help | grep -q -- '--child'; then echo "not ok - map --help shows --child"
else echo "ok - map --help does not show --child"; fi
check_cli "sweep --help documents --no-NAME (--no-report)" 0 '--no-NAME .*the same as --NAME off' -- sweep --help
mkdir -p "$TMP/conv_ds/a"
cp "$top"/tests/fixtures/decode/*.jpg "$TMP/conv_ds/a/" 2>/dev/null
check_cli "describe prints sizes in KiB/MiB" 0 'file size \(KiB = 1024 B\)' -- dataset describe "$TMP/conv_ds"
# defaults agree: run and sweep simulate the same number of GPUs
rg=$("$PPBENCH" run --help | sed -n 's/.*--gpus G .*(default: \([0-9]*\)).*/\1/p')
sg=$("$PPBENCH" sweep --help | sed -n 's/.*--gpus LIST .*(default: \([0-9 ]*\)).*/\1/p')
if [ -n "$rg" ] && [ "$rg" = "$sg" ]; then echo "ok - run and sweep default to the same GPUs ($rg)"
else echo "not ok - run ($rg) and sweep ($sg) default to the same GPUs"; fi

# ---- make: an unknown or misspelt variable is refused, with the nearest name
out=$(make -s -C "$top" -n sweep WORKER="2 4" DRY_RUN=1 2>&1)
rc=$?
check "make: a misspelt variable is refused (exit 2)" test "$rc" -eq 2
check "make: ... with the nearest name" sh -c "printf '%s\n' \"\$0\" | grep -q 'unknown variable WORKER (did you mean WORKERS?)'" "$out"
out=$(make -s -C "$top" -n sweep DRYRUN=1 2>&1)
check "make: DRYRUN=1 names DRY_RUN" sh -c "printf '%s\n' \"\$0\" | grep -q 'DRYRUN (did you mean DRY_RUN?)'" "$out"
check "make: the known variables pass" make -s -C "$top" -n sweep WORKERS="2 4" DRY_RUN=1 PPBENCH_BIN="$PPBENCH"
check "make: DRY_RUN=1 gives --dry-run" sh -c "make -s -C '$top' -n sweep WORKERS='2 4' DRY_RUN=1 PPBENCH_BIN='$PPBENCH' | grep -q -- '--workers \"2 4\" .*--dry-run'"
out=$(make -s -C "$top" fuzz AFL_CC=/nonexistent/afl-clang-fast FUZZ_SECONDS=1 2>&1)
rc=$?
check "make fuzz without afl++: exit 2, what to install" sh -c "[ $rc -eq 2 ] && printf '%s\n' \"\$0\" | grep -q 'apt-get install afl++'" "$out"
check "make fuzz without afl++: nothing built" sh -c "! printf '%s\n' \"\$0\" | grep -q 'No such file'" "$out"

# ---- help and docs
out=$("$PPBENCH" dataset --help 2>&1)
for want in 'ppbench dataset describe DIR' 'options of generate:' '--images N' 'options of default:' \
	    'PPBENCH_CACHE' 'about 230 MB'; do
	check "dataset --help: $want" sh -c "printf '%s\n' \"\$0\" | grep -qF -- '$want'" "$out"
done
man=$TMP/conv-man
if "$top/scripts/gen-man.sh" "$PPBENCH" "$man" >/dev/null 2>&1; then
	for want in 'describe' 'options of generate' 'options of default' 'PPBENCH_CACHE'; do
		check "man ppbench-dataset: $want" grep -q "$want" "$man/ppbench-dataset.1"
	done
	check "man ppbench: the environment and the default dataset" sh -c \
		"grep -q '^.SH ENVIRONMENT' '$man/ppbench.1' && grep -q 'PPBENCH_CACHE' '$man/ppbench.1'"
else
	echo "not ok - scripts/gen-man.sh failed"
fi
flip=$("$PPBENCH" apply --help | grep -- '--flip')
check "apply --help: --flip's values and range agree" sh -c "printf '%s\n' \"\$0\" | grep -q -- '--flip -1|0|1 .*\[-1..1\]'" "$flip"

# completion: each command's options are the options sections of its --help
# (printed from its option table), once each; sweep, compare and bottleneck
# add run's
. "$top/scripts/ppbench-completion.bash"
table_opts() {   # the first --name of each option line of the options sections
	"$PPBENCH" "$@" --help 2>/dev/null | sed -n '/^options\( of [a-z]*\)*:$/,/^$/p' |
		sed -n 's/^  \(-[A-Za-z], \)\{0,1\}\(--[a-z][a-z0-9-]*\)\([ [].*\)\{0,1\}$/\2/p;
			 s/^      \(--[a-z][a-z0-9-]*\)\([ [].*\)\{0,1\}$/\1/p'
}
bad=""
for c in run sweep ls report merge plots compare model bottleneck strategies apply bench info map \
	 ops metrics regime "dataset generate" "dataset default"; do
	# shellcheck disable=SC2086
	set -- $c
	COMP_WORDS=("$PPBENCH" "$@" --)
	COMP_CWORD=$(($# + 1))
	_ppbench
	got=$(printf '%s\n' "${COMPREPLY[@]}")
	# shellcheck disable=SC2086
	want=$(table_opts $c)
	case $1 in sweep | compare | bottleneck) want="$want
$(table_opts run)" ;; esac
	want=$(printf '%s\n' "$want" | sort -u)
	[ "$got" = "$want" ] || bad="$bad $c"
	[ -z "$(printf '%s\n' "$got" | sort | uniq -d)" ] || bad="$bad $c(twice)"
done
[ -z "$bad" ] && echo "ok - completion offers each command's options from its table, once each" ||
	echo "not ok - completion differs from the option tables:$bad"
COMP_WORDS=("$PPBENCH" merge --); COMP_CWORD=2; _ppbench
check "completion: merge is not offered --fused" sh -c "! printf '%s\n' $(printf '%q ' "${COMPREPLY[@]}") | grep -qx -- --fused"
COMP_WORDS=("$PPBENCH" sweep --wor); COMP_CWORD=2; _ppbench
same "completion: sweep offers --workers once" "${COMPREPLY[*]}" "--workers"

# report of a folder that is no results folder: exit 2 (nothing read), saying what it takes
mkdir -p "$TMP/conv-flat/a"
check_cli "report of a folder that is neither a sweep nor a run: exit 2" 2 \
	"neither a sweep folder \(it has no sweep.json\) nor a run folder" -- report "$TMP/conv-flat"
check_cli "plots too" 2 "nor a run folder" -- plots "$TMP/conv-flat"

# plurals: one worker, one CPU
mkdir -p "$TMP/conv_w1/c0"
for i in 1 2 3 4; do : >"$TMP/conv_w1/c0/x$i.jpg"; done
SYNTH=$top/tests/fixtures/pipelines/synth.pipe
out=$("$PPBENCH" run --data "$TMP/conv_w1" --pipeline "$SYNTH" --workers 1 --batch 2 --gpu-step 0 \
	--out "$TMP/conv_w1_out" 2>&1)
check "run, 1 worker: no '1 workers'" sh -c "printf '%s\n' \"\$0\" | grep -q '1 of 1 worker counted' &&
	! printf '%s\n' \"\$0\" | grep -qE '(^|[^0-9])1 (workers|CPUs)'" "$out"

# more workers than usable CPUs: said before anything runs, with what it does
if command -v taskset >/dev/null && taskset -c 0 true 2>/dev/null; then
	out=$(taskset -c 0 "$PPBENCH" run --data "$TMP/conv_w1" --pipeline "$SYNTH" --workers 2 --batch 2 \
		--gpu-step 0 --out "$TMP/conv_w1_out" 2>&1)
	check "run: more workers than CPUs warned up front" sh -c "printf '%s\n' \"\$0\" | head -1 |
		grep -q 'warning: --workers 2 is more than the 1 CPU this run may use: the workers time-slice'" "$out"
	out=$(taskset -c 0 "$PPBENCH" sweep --data "$TMP/conv_w1" --pipeline "$SYNTH" --workers "1 2 3" \
		--batch 2 --gpu-step 0 --dry-run 2>&1)
	check "sweep --dry-run: the worker counts over the CPUs warned" sh -c "printf '%s\n' \"\$0\" |
		grep -q 'worker counts 2, 3 are more than the 1 CPU the sweep.s runs may use: .*out-of-order share'" "$out"
	out=$(taskset -c 0 "$PPBENCH" run --data "$TMP/conv_w1" --pipeline "$SYNTH" --workers 1 --batch 2 \
		--gpu-step 0 --out "$TMP/conv_w1_out" 2>&1)
	check "run: no warning when the workers fit" sh -c "! printf '%s\n' \"\$0\" | grep -q 'more than the'" "$out"
else
	skip "oversubscription warnings" "taskset cannot bind to CPU 0 here"
fi

# tables meant for people: no exponent (a run of 349,570 images is 349570)
r1=$(ls -d "$TMP"/conv_w1_out/* 2>/dev/null | head -1)
if [ -n "$r1" ]; then
	cp -r "$r1" "$TMP/conv_big"
	sed -i '0,/"images": 4,/s//"images": 349570,/' "$TMP/conv_big/summary.json"
	"$PPBENCH" report "$TMP/conv_big" >/dev/null 2>&1
	check "a run's report: large figures without an exponent" sh -c "grep -q '| 349570 |' '$TMP/conv_big/report.md' &&
		! grep -qE '[0-9]e[+-][0-9]' '$TMP/conv_big/report.md'"
else
	echo "not ok - a run's report: large figures without an exponent: no run folder"
fi

# the default datasets' place: PPBENCH_CACHE chooses it; the first use says where and how much
"$PPBENCH" dataset generate --profile photos --images 4 --classes 1 --out "$TMP/conv-cache/photos" -q
out=$(PPBENCH_CACHE="$TMP/conv-cache" "$PPBENCH" dataset default --profile photos 2>&1)
same "PPBENCH_CACHE: the default dataset is looked for there" "$out" "$TMP/conv-cache/photos"
out=$(PPBENCH_CACHE=/proc/conv-none "$PPBENCH" dataset default --profile photos 2>&1)
check "the first use says where, how much, and how to choose" sh -c "printf '%s\n' \"\$0\" |
	grep -q \"generating the default dataset of profile photos once (2000 images, .*about 120 MB) in '/proc/conv-none/photos'; PPBENCH_CACHE=DIR puts it elsewhere\"" "$out"
