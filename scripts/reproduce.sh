#!/usr/bin/env bash
# make reproduce: the paper's two experiments in the paper's regime, then one
# report, resumable.
#
#   scripts/reproduce.sh PPBENCH OUT TAG "GRID_BATCH" GRID_EPOCHS W_BATCH W_EPOCHS [RESUME_DIR] [-- sweep args...]
#
# First, before anything is created, it decides and prints the plan:
#   - the regime (ppbench regime): this machine's CPU time per image, the
#     factor on the simulated GPU step that keeps GPU time over preprocessing
#     time per image at the paper's (--gpu-step-scale), and the paper's worker
#     grid (8..28 of 32 hardware threads) scaled to the CPUs the runs may use;
#   - each experiment's sweep plan (ppbench sweep --dry-run) and the total time.
# Anything refused there (a missing dataset, a bad option, a configuration
# that cannot fit in memory) exits 2 with nothing created.
#
# The folder OUT/<UTC time>-reproduce[-TAG]/ then holds reproduce.args (what
# it was started with), regime.json, plan.txt, one sweep folder per
# experiment, and the report. Run again with the same arguments, it finishes
# the newest such folder whose report is missing (its unfinished runs, via
# ppbench sweep --resume, with the regime it started with); with RESUME_DIR
# (make reproduce RESUME=DIR), that folder. A folder is done when it has
# report.md.
#
# SIGINT, SIGTERM and SIGHUP stop the whole job: the sweep running keeps its
# finished runs, then this script exits 128 + the signal with one hint on how
# to finish. make does not pass SIGINT on to a recipe (it waits for it), so
# with PPBENCH_MAKE_PID set (the Makefile sets it) a SIGINT or SIGHUP that
# make holds is noticed and acted on here.
# Exit codes: 0 done; 1 a sweep or the report failed; 2 refused (nothing
# created or run); 128+N stopped by signal N (what finished is kept).
set -u
ppbench=$1 out=$2 tag=$3 grid_batch=$4 grid_epochs=$5 w_batch=$6 w_epochs=$7 resume=${8:-}
shift 8 2>/dev/null || { echo "usage: see the head of $0" >&2; exit 2; }
[ "${1:-}" = "--" ] && shift
extra=("$@")
say() { echo "make reproduce: $*"; }
fail() { echo "make reproduce: error: $*" >&2; }

# what makes two invocations "the same command": everything but RESUME
args="grid_batch=$grid_batch grid_epochs=$grid_epochs w_batch=$w_batch w_epochs=$w_epochs extra=${extra[*]:-}"

# ---- stopping: every signal stops the whole job --------------------------------
stopped=0 child=""
on_signal() {
	stopped=$1
	# the sweep keeps its finished runs and stops its run (a second signal
	# to a sweep changes nothing)
	[ -n "$child" ] && kill "-$(child_signal "$2")" "$child" 2>/dev/null
}
# A command started in the background by a script ignores SIGINT; a sweep
# catches it itself (and keeps its runs); the others are sent SIGTERM.
child_is_sweep=0
child_signal() { [ "$1" = INT ] && [ "$child_is_sweep" = 0 ] && echo TERM || echo "$1"; }
trap 'on_signal 130 INT' INT
trap 'on_signal 143 TERM' TERM
trap 'on_signal 129 HUP' HUP

# make catches SIGINT and SIGHUP but passes neither to its recipe: it waits
# for the recipe inside its handler, with the signal blocked and its handler
# reset to the default. Seen from here, a signal blocked and no longer caught
# is one make holds: take it as ours. (make also blocks every signal for a
# moment each time it starts a command, this one included, while still
# catching them: that is not a signal.)
watcher=""
if [ -n "${PPBENCH_MAKE_PID:-}" ] && [ -r "/proc/$PPBENCH_MAKE_PID/status" ]; then
	(
		trap - INT TERM HUP
		me=$$
		while kill -0 "$me" 2>/dev/null; do
			blk="" cgt="" ign=""
			while read -r k v; do
				case $k in
				SigIgn:) ign=$v ;;
				SigCgt:) cgt=$v ;;
				SigBlk:) blk=$v ;;
				esac
			done <"/proc/$PPBENCH_MAKE_PID/status" 2>/dev/null || exit 0
			[ -n "$blk" ] && [ -n "$cgt" ] && [ -n "$ign" ] || exit 0
			held=$((16#$blk & ~16#$cgt & ~16#$ign))
			# bit N-1 is signal N: 0x2 SIGINT, 0x1 SIGHUP
			if (( held & 2 )); then kill -INT "$me"; exit 0; fi
			if (( held & 1 )); then kill -HUP "$me"; exit 0; fi
			read -rt 0.5 <> <(:) || :
		done
	) &
	watcher=$!
fi
cleanup() { [ -n "$watcher" ] && kill "$watcher" 2>/dev/null; }
trap cleanup EXIT

# Run a ppbench command in the background and wait for it, so that a signal
# is acted on at once (passed on to it), not when it ends. Its exit status.
run() {
	child_is_sweep=0
	[ "$1" = sweep ] && child_is_sweep=1
	"$ppbench" "$@" &
	child=$!
	local rc
	while :; do
		wait "$child"
		rc=$?
		# wait returns early when a trapped signal arrives: wait again
		kill -0 "$child" 2>/dev/null || break
	done
	child=""
	return "$rc"
}

stop_early() {   # a signal while planning: nothing was created
	echo "make reproduce: stopped (exit $stopped) before anything was created" >&2
	exit "$stopped"
}

stop_now() {   # stop_now RC: the one message, then exit
	local sig=INT
	[ "$1" -eq 143 ] && sig=TERM
	[ "$1" -eq 129 ] && sig=HUP
	echo "make reproduce: stopped by SIG$sig (exit $1); what finished is kept in $dir;" \
		"finish it with: make reproduce RESUME=$dir (or the same command again)" >&2
	if [ -n "${PPBENCH_MAKE_PID:-}" ] && [ -r "/proc/$PPBENCH_MAKE_PID/status" ] &&
	   (( 16#$(sed -n 's/^SigIgn:[[:space:]]*//p' "/proc/$PPBENCH_MAKE_PID/status") & 2 )); then
		echo "make reproduce: (make itself ignores SIGINT, as a make started in the background" \
			"does: it reports this as a failed recipe, exit 2)" >&2
	fi
	exit "$1"
}

# ---- which folder ------------------------------------------------------------
dir=""
if [ -n "$resume" ]; then
	dir=${resume%/}
	if [ ! -f "$dir/reproduce.args" ]; then
		fail "cannot resume '$dir': it has no reproduce.args (not a make reproduce folder)"
		exit 2
	fi
	if [ "$(cat "$dir/reproduce.args")" != "$args" ]; then
		fail "'$dir' was started with other settings:"
		echo "  then: $(cat "$dir/reproduce.args")" >&2
		echo "  now:  $args" >&2
		echo "  resume it with the same FULL, DATA and EXTRA, or start a new one without RESUME" >&2
		exit 2
	fi
else
	# newest first by the time in the name (older versions: reproduce-<UTC>)
	for d in $( (ls -d "$out"/*-reproduce${tag:+-$tag} "$out"/reproduce-*${tag:+-$tag} 2>/dev/null) |
		    sed 's|.*/\(reproduce-\)\{0,1\}\([0-9]\{8\}-[0-9]\{6\}\)|\2 &|' | sort -r | cut -d' ' -f2-); do
		if [ -f "$d/reproduce.args" ] && [ ! -f "$d/report.md" ] &&
		   [ "$(cat "$d/reproduce.args")" = "$args" ]; then
			dir=$d
			break
		fi
	done
fi

# the value of an option of the sweep arguments (--data DIR, --data=DIR)
opt_of() {
	local want=$1 i
	for ((i = 0; i < ${#extra[@]}; i++)); do
		case ${extra[i]} in
		"$want") echo "${extra[i + 1]:-}"; return ;;
		"$want"=*) echo "${extra[i]#*=}"; return ;;
		esac
	done
}

# a number, and a list of integers, out of regime.json (one key per line)
json_num() { sed -n "s/^ *\"$1\": *\([-0-9.eE+]*\),\{0,1\}$/\1/p" "$2" | head -1; }
json_ints() { tr -d ' \n' <"$2" | sed -n "s/.*\"$1\":\[\([0-9,]*\)\].*/\1/p" | tr , ' '; }

# ---- the regime and the plan, before anything is created ----------------------
tmp=$(mktemp -d) || exit 1
trap 'cleanup; rm -rf "$tmp"' EXIT
regime_args=()
[ -n "$(opt_of --data)" ] && regime_args+=(--data "$(opt_of --data)")
[ -n "$(opt_of --pipeline)" ] && regime_args+=(--pipeline "$(opt_of --pipeline)")
# a given CPU time per image instead of the probe (tests)
[ -n "${PPBENCH_PROBE_MS:-}" ] && regime_args+=(--probe-ms "$PPBENCH_PROBE_MS")
if [ -n "$dir" ] && [ -f "$dir/regime.json" ]; then
	regime=$dir/regime.json
	say "resuming $dir (unfinished, same settings; RESUME=DIR picks another), in the regime it started with"
elif [ -n "$dir" ] && [ -n "$(ls -d "$dir"/*-sweep-* 2>/dev/null)" ]; then
	# started by a version without the regime: finish it as it was started
	regime=""
	scale=1 workers="8 12 16 20 24 28"
	say "resuming $dir (unfinished, same settings; RESUME=DIR picks another), made without a regime: the paper's GPU step and workers 8..28, as it was started"
else
	[ -n "$dir" ] && say "resuming $dir (unfinished, same settings; RESUME=DIR picks another)"
	regime=$tmp/regime.json
	run regime "${regime_args[@]}" --out "$regime" >"$tmp/regime.txt"
	rc=$?
	[ "$stopped" -ne 0 ] && stop_early
	if [ "$rc" -ne 0 ]; then
		fail "the regime could not be measured (exit $rc): nothing was created or run"
		exit "$rc"
	fi
fi
if [ -n "$regime" ]; then
	scale=$(json_num gpu_step_scale "$regime")
	workers=$(json_ints workers "$regime")
	if [ -z "$scale" ] || [ -z "$workers" ]; then
		fail "'$regime' has no GPU step factor or worker grid"
		exit 1
	fi
fi

grid_args=(--workers gpus --gpus "1 2 3 4" --batch "$grid_batch" --epochs "$grid_epochs"
	--gpu-step-scale "$scale")
w_args=(--workers "$workers" --gpus 4 --batch "$w_batch" --epochs "$w_epochs"
	--gpu-step-scale "$scale")

# "about 18 min" of a dry run's total line, in seconds ("" unknown)
plan_seconds() {
	sed -n 's/^total:.* about \([0-9.]*\) \(s\|min\|h\) .*/\1 \2/p' "$1" |
		awk '{ print ($2 == "h" ? $1 * 3600 : $2 == "min" ? $1 * 60 : $1) }'
}
plan_fits() { sed -n 's/^total: \([0-9]*\) of \([0-9]*\) configuration.*/\1 \2/p' "$1"; }

if [ -n "$dir" ] && [ -f "$dir/plan.txt" ]; then
	cat "$dir/plan.txt"
	for e in grid workers; do
		j=$(ls -d "$dir"/*-sweep-"$e" 2>/dev/null | tail -1)
		if [ -f "$j/sweep.json" ]; then
			left=$(grep -c '"status": "\(pending\|failed\|incomplete\)"' "$j/sweep.json")
			say "resumed: the $e sweep has $left run(s) left to do"
		else
			say "resumed: the $e sweep has not started: all of it is left to do"
		fi
	done
else
	plan=$tmp/plan.txt
	{
		echo "make reproduce: the plan, in the paper's regime on this machine (ppbench regime)"
		[ -f "$tmp/regime.txt" ] && cat "$tmp/regime.txt"
	} >"$plan"
	total=0 runs=0
	for e in 1 2; do
		if [ "$e" = 1 ]; then
			what="experiment 1 of 2 (Figs. 4-5): batch x GPUs, workers = GPUs"
			a=("${grid_args[@]}")
		else
			what="experiment 2 of 2 (Fig. 6): workers $workers, batch $w_batch, 4 GPUs"
			a=("${w_args[@]}")
		fi
		# (its warnings, more workers than CPUs say, are part of the plan)
		run sweep "${a[@]}" "${extra[@]}" --dry-run >"$tmp/dry.$e" 2>&1
		rc=$?
		[ "$stopped" -ne 0 ] && stop_early
		if [ "$rc" -ne 0 ]; then
			cat "$tmp/dry.$e" >&2
			fail "$what: the sweep refused its plan (exit $rc): nothing was created or run"
			exit "$rc"
		fi
		read -r fit all <<<"$(plan_fits "$tmp/dry.$e")"
		{ echo "$what"; cat "$tmp/dry.$e"; } >>"$plan"
		if [ -n "$fit" ] && [ "$fit" != "$all" ]; then
			cat "$plan"
			fail "$what: $((all - fit)) of $all configurations cannot fit in memory (above): nothing was created or run"
			exit 2
		fi
		s=$(plan_seconds "$tmp/dry.$e")
		total=$(awk -v a="$total" -v b="${s:-0}" 'BEGIN { print a + b }')
		runs=$((runs + ${all:-0}))
	done
	est=$(awk -v s="$total" 'BEGIN { if (s < 90) printf "%.0f s", s; else if (s < 5400) printf "%.0f min", s / 60; else printf "%.1f h", s / 3600 }')
	echo "make reproduce: $runs runs in 2 sweeps, about $est in all (the two sweeps' estimates" \
		"added up)" >>"$plan"
	cat "$plan"
	if [ -z "$dir" ]; then
		dir=$out/$(date -u +%Y%m%d-%H%M%S)-reproduce${tag:+-$tag}
		mkdir -p "$dir" || exit 1
		printf '%s\n' "$args" >"$dir/reproduce.args"
	fi
	[ -n "$regime" ] && [ "$regime" != "$dir/regime.json" ] && cp "$regime" "$dir/regime.json"
	cp "$plan" "$dir/plan.txt"
fi

# an interrupted sweep leaves the resume hint to this script (one hint for both)
export PPBENCH_WRAPPED_BY="make reproduce"

# the experiment's sweep folder (<UTC>-sweep-TAG; older: sweep-<UTC>-TAG)
sweep_of() {
	ls -d "$dir"/*-sweep-"$1" "$dir"/sweep-*-"$1" 2>/dev/null | sort | tail -1
}

# one experiment: resume its sweep folder if it has one, else start it
experiment() {
	local n=$1 what=$2 stag=$3
	shift 3
	local s rc
	s=$(sweep_of "$stag")
	if [ -n "$s" ] && [ ! -f "$s/sweep.json" ]; then
		rm -rf "$s"    # interrupted before its plan was written: nothing ran
		s=""
	fi
	if [ -n "$s" ]; then
		say "experiment $n of 2 ($what): finishing $s"
		run sweep --resume "$s" --no-report
	else
		say "experiment $n of 2 ($what) into $dir"
		run sweep --out "$dir" --tag "$stag" "$@" --no-report "${extra[@]}"
	fi
	rc=$?
	[ "$stopped" -ne 0 ] && rc=$stopped
	[ "$rc" -ge 128 ] && stop_now "$rc"
	if [ "$rc" -ne 0 ]; then
		fail "experiment $n ($what): the sweep failed (exit $rc); what finished is kept in $dir:" \
			"make reproduce RESUME=$dir runs what is missing"
		exit 1
	fi
}

experiment 1 "Figs. 4-5" grid "${grid_args[@]}"
experiment 2 "Fig. 6" workers "${w_args[@]}"
run report "$(sweep_of grid)" "$(sweep_of workers)"
rc=$?
[ "$stopped" -ne 0 ] && stop_now "$stopped"
[ "$rc" -ne 0 ] && exit 1
say "done: $dir"
