# No path, tag or name reaches a shell (issue 21, item 1): every figure of a
# run, a sweep and a merge is drawn, and nothing runs, when the results
# folders AND the checkout (the plots/ scripts' folder) have names holding
# ', ", $(...), ;, a space, a newline and bytes that are not UTF-8; a
# relative folder starting with '<' or '|' (gnuplot's pipes) is only a
# folder. The shipped sources call no shell. A symbolic link named figures
# (or figures/data, or a figure's file) is never written through (item 18).
# A figure that could not be drawn is named in the command's last lines and
# makes it exit 1, its results kept.
. "$(dirname "$0")/lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
need gnuplot iconv || exit 1

# ---- no shell in what ships -------------------------------------------------
shells=$(cd "$top" && grep -nE '(^|[^_a-zA-Z0-9.>])(system|popen)\(|"/bin/sh"|"sh", *"-c"' \
	$(find bench pipelines datasets -name '*.c' -o -name '*.h') | grep -vE '^[^:]+:[0-9]+:[[:space:]]*(/?\*|//)')
if [ -z "$shells" ]; then echo "ok - the C sources call no shell (system, popen, sh -c)"
else echo "not ok - the C sources call a shell:"; printf '%s\n' "$shells" | sed 's/^/#   /'; fi
gp=$(cd "$top" && grep -nE 'system[[:space:]]*\(|`|"<|'"'"'<|output[[:space:]]+"\||\bshell\b' plots/*.gp |
	grep -vE '^[^:]+:[0-9]+:[[:space:]]*#')
if [ -z "$gp" ]; then echo "ok - no gnuplot script runs a command (system, backticks, < or | files)"
else echo "not ok - a gnuplot script runs a command:"; printf '%s\n' "$gp" | sed 's/^/#   /'; fi

# make plots takes the newest results/*-sweep-* folder: its name reaches the
# shell through the environment, never pasted into the command
mk=$(make -n -o bench/ppbench -C "$top" plots RESULTS=/x/folder-name-1234 2>&1)
if ! printf '%s\n' "$mk" | grep -q 'folder-name-1234' && printf '%s\n' "$mk" | grep -q 'bench/ppbench plots'; then
	echo "ok - make plots: the folder is not pasted into its shell command"
else echo "not ok - make plots pastes the folder into its shell command:"; printf '%s\n' "$mk" | head -3 | sed 's/^/#   /'; fi

# ---- a checkout and results folders with hostile names --------------------------
# $(touch OWNED) and ';touch OWNED;' would make OWNED in the current folder,
# wherever a name reached a shell; every command runs in $cwd
bad=$(printf "x'q\"d \$(touch OWNED) ';touch OWNED;'\n\xff\xfe")
co=$TMP/co$bad
cwd=$TMP/cwd
mkdir -p "$co/bench" "$co/datasets/reference" "$cwd"
cp "$PPBENCH" "$co/bench/ppbench"
cp -R "$top/plots" "$top/pipelines" "$co/"
cp -R "$top/datasets/reference/lotus" "$co/datasets/reference/"
HP=$co/bench/ppbench
"$PPBENCH" dataset generate --out "$TMP/hds" --images 16 --classes 2 >/dev/null 2>&1

owned() { find "$TMP" -name 'OWNED*' -print0 | tr '\0' ' '; }

# the same commands with the repository's binary in plain folders, then with
# the hostile checkout in hostile folders: the same figures drawn
swp=(--data "$TMP/hds" --pipeline null -w 1,2 -b 4,8 -n 4 --fused off --policy "torch speedy")
# (paths hold newlines: counted as characters, never as lines)
figs() { find "$1" -path '*/figures/*' -name '*.png' -printf x | wc -c; }
# the one entry of a glob (names with newlines kept whole)
one() { printf '%s' "$1"; }
(cd "$cwd" && "$PPBENCH" sweep "${swp[@]}" --out "$TMP/plain" --tag plain) >"$TMP/h0.log" 2>&1
want=$(figs "$TMP/plain")
if [ "$want" -ge 14 ]; then echo "ok - the plain sweep draws its figures ($want)"
else echo "not ok - the plain sweep draws $want figures, expected 14 or more"; tail -5 "$TMP/h0.log" | sed 's/^/#   /'; fi

# quotes that close and reopen the scripts' old '...' around a path: a payload
# a shell would run as it is
(cd "$cwd" && "$PPBENCH" sweep "${swp[@]}" --out "$TMP/q" --tag "x';touch OWNED;'") >"$TMP/hq.log" 2>&1
rc=$?
got=$(figs "$TMP/q")
if [ "$rc" -eq 0 ] && [ "$got" -eq "$want" ] && [ -z "$(owned)" ]; then
	echo "ok - sweep --tag \"x';touch OWNED;'\": every figure drawn, nothing ran"
else echo "not ok - sweep --tag \"x';touch OWNED;'\": exit $rc, $got figures of $want, ran: $(owned)"
	tail -3 "$TMP/hq.log" | sed 's/^/#   /'; fi

res=$TMP/res$bad
(cd "$cwd" && "$HP" sweep "${swp[@]}" --out "$res" --tag "t'\"\$(touch OWNED);touch OWNED;$(printf '\xff')") >"$TMP/h1.log" 2>&1
rc=$?
sweep=$(one "$res"/*-sweep-*)
got=$(figs "$res")
if [ "$rc" -eq 0 ] && [ "$got" -eq "$want" ]; then echo "ok - sweep: every figure drawn with hostile checkout, folder and tag ($got)"
else echo "not ok - sweep: exit $rc, $got figures of $want"; tail -5 "$TMP/h1.log" | sed 's/^/#   /'; fi

# a run with repeats, its report and its plots
runs=$TMP/runs$bad
(cd "$cwd" && "$HP" run --data "$TMP/hds" --pipeline null -w 1 -b 4 -n 4 --repeat 2 --out "$runs" \
	--tag "r'\"\$(touch OWNED);touch OWNED;$(printf '\xff')") >"$TMP/h2.log" 2>&1
r1=$(one "$runs"/*-r1)
r2=$(one "$runs"/*-r2)
(cd "$cwd" && "$HP" report "$r1" "$r2") >"$TMP/h3.log" 2>&1
rc=$?
got=$(figs "$r1")
if [ "$rc" -eq 0 ] && [ "$got" -eq 4 ]; then echo "ok - report of a run's repeats: its 4 figures drawn"
else echo "not ok - report of a run: exit $rc, $got figures of 4"; tail -5 "$TMP/h3.log" | sed 's/^/#   /'; fi
(cd "$cwd" && "$HP" plots "$r2") >"$TMP/h4.log" 2>&1
rc=$?
got=$(figs "$r2")
if [ "$rc" -eq 0 ] && [ "$got" -eq 4 ]; then echo "ok - plots of a run: its 4 figures drawn"
else echo "not ok - plots of a run: exit $rc, $got figures of 4"; tail -5 "$TMP/h4.log" | sed 's/^/#   /'; fi

# a merge into a hostile --out
mrg=$TMP/m$bad/merge
(cd "$cwd" && "$HP" merge "$sweep" "$sweep" --out "$mrg") >"$TMP/h5.log" 2>&1
rc=$?
got=$(figs "$mrg")
if [ "$rc" -eq 0 ] && [ "$got" -eq 6 ]; then echo "ok - merge: its 6 figures drawn into a hostile --out"
else echo "not ok - merge: exit $rc, $got figures of 6"; tail -5 "$TMP/h5.log" | sed 's/^/#   /'; fi

# a sweep folder renamed, redrawn; relative folders named like gnuplot's pipes
ren=$TMP/renamed$bad
cp -R "$sweep" "$ren"
(cd "$cwd" && "$HP" plots "$ren") >"$TMP/h6.log" 2>&1
rc=$?
got=$(figs "$ren")
if [ "$rc" -eq 0 ] && [ "$got" -eq "$want" ]; then echo "ok - plots of a renamed sweep folder: every figure drawn"
else echo "not ok - plots of a renamed sweep folder: exit $rc, $got figures of $want"; tail -5 "$TMP/h6.log" | sed 's/^/#   /'; fi
cp -R "$sweep" "$cwd/<touch OWNED;s"
cp -R "$sweep" "$cwd/|touch OWNED;o"
(cd "$cwd" && "$HP" plots "<touch OWNED;s" && "$HP" plots "|touch OWNED;o") >"$TMP/h7.log" 2>&1
rc=$?
got=$(( $(figs "$cwd/<touch OWNED;s") + $(figs "$cwd/|touch OWNED;o") ))
if [ "$rc" -eq 0 ] && [ "$got" -eq $((2 * want)) ]; then echo "ok - relative folders named '<cmd' and '|cmd': figures drawn into them"
else echo "not ok - relative folders named '<cmd' and '|cmd': exit $rc, $got figures of $((2 * want))"; tail -5 "$TMP/h7.log" | sed 's/^/#   /'; fi

o=$(owned)
if [ -z "$o" ]; then echo "ok - nothing ran: no OWNED file anywhere"
else echo "not ok - a name reached a shell: $o"; fi
badsvg=0
while IFS= read -r -d '' f; do
	iconv -f UTF-8 -t UTF-8 "$f" >/dev/null 2>&1 || badsvg=$((badsvg + 1))
done < <(find "$TMP" -path '*/figures/*' -name '*.svg' -print0)
if [ "$badsvg" -eq 0 ]; then echo "ok - every SVG is UTF-8 (bytes that are not are escaped in titles and labels)"
else echo "not ok - $badsvg SVG files are not UTF-8"; fi

# ---- a symbolic link is never written through ---------------------------------
victim=$TMP/victim
mkdir -p "$victim/data"
echo keep >"$victim/fig6a_e2e_vs_workers.png"
echo keep >"$victim/data/vs_workers.csv"
ls -lR "$victim" >"$TMP/victim.before"
link=$TMP/linked
cp -R "$TMP/plain/"*-sweep-plain "$link"
rm -rf "$link/figures"
ln -s "$victim" "$link/figures"
check_cli "report: a symlinked figures/ is refused, named"      1 "figures' is a symbolic link: ppbench never writes through one" -- report "$link"
check_cli "plots: a symlinked figures/ is refused"              1 "figures' is a symbolic link"   -- plots "$link"
rm "$link/figures"
mkdir "$link/figures"
ln -s "$victim/data" "$link/figures/data"
check_cli "report: a symlinked figures/data/ is refused"        1 "figures/data' is a symbolic link" -- report "$link"
rm "$link/figures/data"
mkdir "$link/figures/data"
ln -s "$victim/data/vs_workers.csv" "$link/figures/data/vs_workers.csv"
ln -s "$victim/fig6a_e2e_vs_workers.png" "$link/figures/fig6a_e2e_vs_workers.png"
check_cli "report: symlinked files in figures/ are replaced"    0 "report.html"                 -- report "$link"
check "... by files of their own" test ! -L "$link/figures/data/vs_workers.csv" -a ! -L "$link/figures/fig6a_e2e_vs_workers.png"
ls -lR "$victim" >"$TMP/victim.after"
if cmp -s "$TMP/victim.before" "$TMP/victim.after" && [ "$(cat "$victim/fig6a_e2e_vs_workers.png" "$victim/data/vs_workers.csv")" = "keep
keep" ]; then echo "ok - nothing was written where the links pointed"
else echo "not ok - the links' targets changed"; diff "$TMP/victim.before" "$TMP/victim.after" | head -5 | sed 's/^/#   /'; fi

# ---- figures not drawn: named in the last lines, exit 1, results kept ------------
fake=$TMP/fakebin
mkdir -p "$fake"
printf '#!/bin/sh\necho "gnuplot: broken on purpose" >&2\nexit 1\n' >"$fake/gnuplot"
chmod +x "$fake/gnuplot"
fs=$(one "$TMP/plain/"*-sweep-plain)
PATH="$fake:$PATH" "$PPBENCH" plots "$fs" >"$TMP/nf.out" 2>"$TMP/nf.err"
rc=$?
if [ "$rc" -eq 1 ] && grep -q "^ppbench: warning: figure fig6a_e2e_vs_workers not drawn: gnuplot failed on plots/fig6a_e2e_vs_workers.gp (see .*gnuplot.log)" "$TMP/nf.err" &&
   tail -1 "$TMP/nf.err" | grep -q "results are kept (exit 1)"; then
	echo "ok - plots: a figure gnuplot could not draw is named at the end, exit 1"
else echo "not ok - plots with a failing gnuplot: exit $rc"; tail -3 "$TMP/nf.err" | sed 's/^/#   /'; fi
PATH="$fake:$PATH" "$PPBENCH" report "$fs" >"$TMP/nr.out" 2>"$TMP/nr.err"
rc=$?
if [ "$rc" -eq 1 ] && grep -q "figure policies_compare not drawn: gnuplot failed" "$TMP/nr.err" &&
   test -s "$fs/report.html"; then echo "ok - report: figures not drawn named, exit 1, the report written"
else echo "not ok - report with a failing gnuplot: exit $rc"; tail -3 "$TMP/nr.err" | sed 's/^/#   /'; fi
PATH="$fake:$PATH" "$PPBENCH" sweep --data "$TMP/hds" --pipeline null -w 1,2 -b 4 -n 4 --fused off \
	--out "$TMP/nf" --tag nf >"$TMP/ns.out" 2>"$TMP/ns.err"
rc=$?
if [ "$rc" -eq 1 ] && grep -q "^ppbench: warning: figure table2_op_cdf not drawn" "$TMP/ns.err" &&
   grep -q '"status": "ok"' "$TMP/nf/"*-sweep-nf/sweep.json && test -s "$TMP/nf/"*-sweep-nf/report.md; then
	echo "ok - sweep: its runs and report kept, the figures not drawn named, exit 1"
else echo "not ok - sweep with a failing gnuplot: exit $rc"; tail -3 "$TMP/ns.err" | sed 's/^/#   /'; fi
rm -f "$fake/gnuplot"
PATH="$fake" "$PPBENCH" plots "$fs" >"$TMP/ng.out" 2>"$TMP/ng.err"
rc=$?
if [ "$rc" -eq 1 ] && grep -Eq "^ppbench: warning: [0-9]+ figures not drawn: gnuplot is not installed \(apt-get install gnuplot-nox\)" "$TMP/ng.err"; then
	echo "ok - without gnuplot: one line says so, exit 1"
else echo "not ok - without gnuplot: exit $rc"; tail -3 "$TMP/ng.err" | sed 's/^/#   /'; fi

# ---- the counter figures say what they need on a machine without a PMU --------
PPBENCH_FORCE_NO_PMU=1 "$PPBENCH" report "$fs" >/dev/null 2>&1
if grep -q "fig6e_ipc_vs_workers.*needs a hardware PMU to count cycles and instructions, and this machine has none" "$fs/report.md" &&
   ! grep -q 'counters basic' "$fs/report.md"; then echo "ok - no PMU: the counter figures say they need one, no flag that cannot work"
else echo "not ok - no PMU: the report's counter figures say:"; grep -i 'fig6e' "$fs/report.md" | head -2 | sed 's/^/#   /'; fi
