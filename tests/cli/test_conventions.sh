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
