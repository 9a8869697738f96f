#!/usr/bin/env bash
# The layer test (tests/layers.py, docs/architecture.md "The layers"): its
# own checks on fixture trees (an upward include, a cycle of objects, sizes,
# a stale exception, a clean tree), then the real tree with the objects of
# the build under test.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/cli/lib.sh"
L="$top/tests/layers.py"
F=$TMP/layers
rm -rf "$F"

# fixture: two folders, bench/low below bench/high
fixture() {
	local d=$1
	mkdir -p "$d/docs" "$d/bench/low" "$d/bench/high"
	cat >"$d/docs/architecture.md" <<'MD'
# Architecture

## The layers

| rank | folder | holds | may include |
|---|---|---|---|
| 0 | `bench/low` | the ground | (the C library) |
| 1 | `bench/high` | the rest | `bench/low` |

| file | may also include | why |
|---|---|---|

## Next
MD
	printf 'int low(void);\n' >"$d/bench/low/low.h"
	printf '#include "low.h"\nint low(void)\n{\n\treturn 1;\n}\n' >"$d/bench/low/low.c"
	printf 'int high(void);\n' >"$d/bench/high/high.h"
	printf '#include "high.h"\n#include "low.h"\nint high(void)\n{\n\treturn low();\n}\n' \
		>"$d/bench/high/high.c"
}

# layers.py ARGS: its exit code and output in $out
run_layers() {
	out=$(python3 "$L" "$@" 2>&1)
	rc=$?
}

expect() {   # what, exit code, regex
	if [ "$rc" -eq "$2" ] && printf '%s\n' "$out" | grep -Eq -- "$3"; then
		echo "ok - $1"
	else
		echo "not ok - $1: exit $rc, expected $2 and /$3/"
		printf '%s\n' "$out" | head -5 | sed 's/^/#   /'
	fi
}

if ! command -v python3 >/dev/null; then
	skip "layer test" "no python3"
	exit 0
fi

# a clean tree: exit 0
fixture "$F/clean"
run_layers --root "$F/clean"
expect "layers: a clean fixture tree holds" 0 'layers: 4 files, ok'

# an upward include: bench/low/low.c includes bench/high's header
fixture "$F/up"
printf '#include "high.h"\n' >>"$F/up/bench/low/low.c"
run_layers --root "$F/up"
expect "layers: an upward include fails, naming the file" 1 \
	'upward include: bench/low/low.c includes bench/high/high.h \(bench/low may include: nothing\)'

# a folder not in the table, two headers of one name
fixture "$F/extra"
mkdir -p "$F/extra/bench/other"
printf 'int low2(void);\n' >"$F/extra/bench/other/low.h"
run_layers --root "$F/extra"
expect "layers: a folder not in the table fails" 1 'folder bench/other is not in the layer table'
expect "layers: two headers with one basename fail" 1 'two headers named low.h'

# a cycle of objects: two files of one folder calling each other
if command -v cc >/dev/null && command -v nm >/dev/null; then
	fixture "$F/cyc"
	printf 'int b(void);\nint a(int n)\n{\n\treturn n ? b() : 0;\n}\n' >"$F/cyc/bench/low/a.c"
	printf 'int a(int n);\nint b(void)\n{\n\treturn a(0);\n}\n' >"$F/cyc/bench/low/b.c"
	mkdir -p "$F/cyc-obj/bench/low" "$F/cyc-obj/bench/high"
	for s in bench/low/a bench/low/b bench/low/low bench/high/high; do
		cc -c -I"$F/cyc/bench/low" -I"$F/cyc/bench/high" "$F/cyc/$s.c" -o "$F/cyc-obj/$s.o"
	done
	run_layers --root "$F/cyc" --objects "$F/cyc-obj"
	expect "layers: a cycle of object files fails, naming it" 1 \
		'cycle of files: bench/low/a.c bench/low/b.c: bench/low/a.c -> bench/low/b.c \(b\)'
	# an upward use through a prototype written by hand (no include)
	printf 'int high(void);\nint c(void)\n{\n\treturn high();\n}\n' >"$F/cyc/bench/low/c.c"
	cc -c "$F/cyc/bench/low/c.c" -o "$F/cyc-obj/bench/low/c.o"
	run_layers --root "$F/cyc" --objects "$F/cyc-obj"
	expect "layers: an upward use without an include fails" 1 \
		'upward use: bench/low/c.c uses high of bench/high/high.c'
else
	skip "layers: cycles of objects" "no cc or nm"
fi

# sizes: a function over 120 lines, a file over 1,200
fixture "$F/big"
{
	printf 'int big(int x)\n{\n'
	for i in $(seq 1 119); do printf '\tx += %d;\n' "$i"; done
	printf '\treturn x;\n}\n'
} >"$F/big/bench/low/big.c"
run_layers --root "$F/big"
expect "layers: a function over 120 lines fails" 1 'bench/low/big.c:1 big\(\) has 123 lines'
{
	for i in $(seq 1 1201); do printf '/* %d */\n' "$i"; done
} >"$F/big/bench/low/long.c"
run_layers --root "$F/big"
expect "layers: a file over 1,200 lines fails" 1 'bench/low/long.c has 1201 lines'

# a stale exception: low.c may also include bench/high, but does not
fixture "$F/exc"
sed -i 's/^|---|---|---|$/&\n| `bench\/low\/low.c` | `bench\/high` | a test |/' \
	"$F/exc/docs/architecture.md"
run_layers --root "$F/exc"
expect "layers: a stale exception fails" 1 'stale exception: bench/low/low.c no longer includes or uses bench/high'
printf '#include "high.h"\n' >>"$F/exc/bench/low/low.c"
run_layers --root "$F/exc"
expect "layers: an exception allows its include" 0 'ok$'

# the real tree, with the objects of the build under test when there are
objs=$(dirname "$PPBENCH")
if [ -f "$objs/bench/cli/main.o" ] && command -v nm >/dev/null; then
	run_layers --root "$top" --objects "$objs"
	expect "layers: the source tree holds (includes, uses, sizes)" 0 'ok$'
else
	run_layers --root "$top"
	expect "layers: the source tree holds (includes, sizes; no objects at $objs)" 0 'ok$'
fi
[ "$rc" -eq 0 ] || printf '%s\n' "$out" | sed 's/^/#   /'
