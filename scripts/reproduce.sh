#!/usr/bin/env bash
# make reproduce: the paper's two experiments, then one report, resumable.
#
#   scripts/reproduce.sh PPBENCH OUT TAG "GRID_BATCH" GRID_EPOCHS W_BATCH W_EPOCHS [RESUME_DIR] [-- sweep args...]
#
# The folder OUT/<UTC time>-reproduce[-TAG]/ holds reproduce.args (what it
# was started with), one sweep folder per experiment, and the report. Run
# again with the same arguments, it finishes the newest such folder whose
# report is missing (its unfinished runs, via ppbench sweep --resume); with
# RESUME_DIR (make reproduce RESUME=DIR), that folder. A folder is done when
# it has report.md. Exit codes: 0 done; 1 a sweep or the report failed;
# 2 a bad argument; 130 / 143 interrupted (what finished is kept).
set -u
ppbench=$1 out=$2 tag=$3 grid_batch=$4 grid_epochs=$5 w_batch=$6 w_epochs=$7 resume=${8:-}
shift 8 2>/dev/null || { echo "usage: see the head of $0" >&2; exit 2; }
[ "${1:-}" = "--" ] && shift
extra=("$@")

# what makes two invocations "the same command": everything but RESUME
args="grid_batch=$grid_batch grid_epochs=$grid_epochs w_batch=$w_batch w_epochs=$w_epochs extra=${extra[*]:-}"

if [ -n "$resume" ]; then
	dir=${resume%/}
	if [ ! -f "$dir/reproduce.args" ]; then
		echo "make reproduce: error: cannot resume '$dir': it has no reproduce.args (not a make reproduce folder)" >&2
		exit 2
	fi
	if [ "$(cat "$dir/reproduce.args")" != "$args" ]; then
		echo "make reproduce: error: '$dir' was started with other settings:" >&2
		echo "  then: $(cat "$dir/reproduce.args")" >&2
		echo "  now:  $args" >&2
		echo "  resume it with the same FULL, DATA and EXTRA, or start a new one without RESUME" >&2
		exit 2
	fi
else
	dir=""
	# newest first by the time in the name (older versions: reproduce-<UTC>)
	for d in $( (ls -d "$out"/*-reproduce${tag:+-$tag} "$out"/reproduce-*${tag:+-$tag} 2>/dev/null) |
		    sed 's|.*/\(reproduce-\)\{0,1\}\([0-9]\{8\}-[0-9]\{6\}\)|\2 &|' | sort -r | cut -d' ' -f2-); do
		if [ -f "$d/reproduce.args" ] && [ ! -f "$d/report.md" ] &&
		   [ "$(cat "$d/reproduce.args")" = "$args" ]; then
			dir=$d
			break
		fi
	done
	if [ -n "$dir" ]; then
		echo "make reproduce: resuming $dir (unfinished, same settings; RESUME=DIR picks another)"
	else
		dir=$out/$(date -u +%Y%m%d-%H%M%S)-reproduce${tag:+-$tag}
		mkdir -p "$dir" || exit 1
		printf '%s\n' "$args" >"$dir/reproduce.args"
	fi
fi

# a sweep keeps its finished runs on SIGINT/SIGTERM and exits; so does this
stopped=0
trap 'stopped=130' INT
trap 'stopped=143' TERM

# the experiment's sweep folder (<UTC>-sweep-TAG; older: sweep-<UTC>-TAG)
sweep_of() {
	ls -d "$dir"/*-sweep-"$1" "$dir"/sweep-*-"$1" 2>/dev/null | sort | tail -1
}

# one experiment: resume its sweep folder if it has one, else start it
experiment() {
	local n=$1 what=$2 stag=$3
	shift 3
	local s
	s=$(sweep_of "$stag")
	if [ -n "$s" ] && [ ! -f "$s/sweep.json" ]; then
		rm -rf "$s"    # interrupted before its plan was written: nothing ran
		s=""
	fi
	if [ -n "$s" ]; then
		echo "make reproduce: experiment $n of 2 ($what): finishing $s"
		"$ppbench" sweep --resume "$s" --no-report
	else
		echo "make reproduce: experiment $n of 2 ($what) into $dir"
		"$ppbench" sweep --out "$dir" --tag "$stag" "$@" --no-report "${extra[@]}"
	fi
	local rc=$?
	[ "$stopped" -ne 0 ] && rc=$stopped
	if [ "$rc" -ge 128 ] || [ "$rc" -eq 2 ]; then
		echo "make reproduce: stopped (exit $rc); finish it with the same command again, or make reproduce RESUME=$dir" >&2
		exit "$rc"
	fi
	return 0
}

experiment 1 "Figs. 4-5" grid --workers gpus --gpus "1 2 3 4" --batch "$grid_batch" \
	--epochs "$grid_epochs"
experiment 2 "Fig. 6" workers --workers "8 12 16 20 24 28" --gpus 4 --batch "$w_batch" \
	--epochs "$w_epochs"
"$ppbench" report "$(sweep_of grid)" "$(sweep_of workers)" || exit 1
echo "make reproduce: done: $dir"
