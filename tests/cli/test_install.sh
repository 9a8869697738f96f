# make install: bin/ppbench (a link) that finds its pipelines and figures
# scripts, a man page per command made from its --help (with the exit
# codes), bash completion of commands and options.
. "$(dirname "$0")/lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
p=$TMP/inst
"$top/scripts/install.sh" "$PPBENCH" /usr/local "$p" >"$TMP/inst.log" 2>&1
check "install.sh succeeds (DESTDIR + PREFIX)" test -x "$p/usr/local/bin/ppbench"
check "the installed ppbench runs" sh -c "'$p/usr/local/bin/ppbench' version | grep -q 'ppbench [0-9]'"
check "it finds its pipelines" sh -c "'$p/usr/local/bin/ppbench' ops >/dev/null && cd / && '$p/usr/local/bin/ppbench' apply '$top/tests/fixtures/decode/j17x9_s0.jpg' --pipeline imagenet_train --out '$TMP/inst.npy' >/dev/null"
check "its gnuplot scripts are there" test -f "$p/usr/local/lib/ppbench/plots/common.gp"
n=$(ls "$p/usr/local/share/man/man1" 2>/dev/null | wc -l)
cmds=$("$PPBENCH" --help | awk '/^commands:/ {on = 1; next} on && NF == 0 {exit} on {print $1}' | wc -l)
if [ "$n" -eq $((cmds + 1)) ]; then echo "ok - a man page per command ($n)"
else echo "not ok - a man page per command: $n pages for $cmds commands"; fi
m=$p/usr/local/share/man/man1
check "man page: options from the table" grep -q '^--dry-run on|off$' "$m/ppbench-sweep.1"
check "man page: the exit codes" grep -q '^.SH EXIT STATUS' "$m/ppbench-run.1"
check "man page: a valid header" grep -q '^.TH PPBENCH-RUN 1 ' "$m/ppbench-run.1"
if command -v man >/dev/null && command -v groff >/dev/null; then
	check "man renders it" sh -c "man -l '$m/ppbench-run.1' 2>/dev/null | grep -q 'prefetch-factor'"
fi
comp=$p/usr/local/share/bash-completion/completions/ppbench
got=$(bash -c ". '$comp'; COMP_WORDS=('$PPBENCH' swe); COMP_CWORD=1; _ppbench; echo \${COMPREPLY[*]}")
if [ "$got" = sweep ]; then echo "ok - completion: commands"; else echo "not ok - completion: commands ($got)"; fi
got=$(bash -c ". '$comp'; COMP_WORDS=('$PPBENCH' sweep --dry); COMP_CWORD=2; _ppbench; echo \${COMPREPLY[*]}")
if [ "$got" = --dry-run ]; then echo "ok - completion: a command's options"; else echo "not ok - completion: options ($got)"; fi
got=$(bash -c ". '$comp'; COMP_WORDS=('$PPBENCH' sweep --prefetch); COMP_CWORD=2; _ppbench; echo \${COMPREPLY[*]}")
if [ "$got" = --prefetch-factor ]; then echo "ok - completion: run's options for a sweep"
else echo "not ok - completion: run's options for a sweep ($got)"; fi
check "make install passes PREFIX and DESTDIR" sh -c "make -n -C '$top' install PREFIX=/opt/x DESTDIR=/d | grep -q 'install.sh bench/ppbench \"/opt/x\" \"/d\"'"
