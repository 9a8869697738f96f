# Helpers for command-line contract tests. Each check prints "ok - what" or
# "not ok - what" (with the reason); "skip - what: why" for a skipped check.
# $PPBENCH is the binary under test; $PPBENCH_TEST_TMP a scratch folder.
: "${PPBENCH:?run through tests/run.sh}"
TMP=${PPBENCH_TEST_TMP:-$(mktemp -d)}

# check_cli "description" EXIT_CODE 'regex on stdout+stderr' -- ppbench args...
check_cli() {
	local what=$1 want=$2 pat=$3
	shift 3
	[ "$1" = "--" ] && shift
	local out rc
	out=$("$PPBENCH" "$@" 2>&1)
	rc=$?
	if [ "$rc" -ne "$want" ]; then
		echo "not ok - $what: exit $rc, expected $want"
		printf '%s\n' "$out" | head -5 | sed 's/^/#   /'
		return 1
	fi
	if [ -n "$pat" ] && ! printf '%s\n' "$out" | grep -Eq -- "$pat"; then
		echo "not ok - $what: output does not match /$pat/"
		printf '%s\n' "$out" | head -5 | sed 's/^/#   /'
		return 1
	fi
	echo "ok - $what"
}

# check "description" command... : ok when the command succeeds
check() {
	local what=$1
	shift
	if "$@" >/dev/null 2>&1; then echo "ok - $what"; else echo "not ok - $what"; fi
}

skip() {
	echo "skip - $1: $2"
}

# drop the noise guard's warning from a captured stderr (another process on
# the machine is not what a test of messages is about)
drop_noise() {
	sed -i '/the machine was busy during/d' "$1"
}

# need CMD...: tools the test uses. scripts/install-deps.sh installs every
# one, so a missing one is a failure, never a skip: prints "not ok" and
# returns 1 (the caller exits). Skips are only for outside reasons (no
# oracle, no root, no PMU).
need() {
	local c missing=
	for c in "$@"; do command -v "$c" >/dev/null 2>&1 || missing="$missing $c"; done
	[ -z "$missing" ] && return 0
	echo "not ok - needs$missing (scripts/install-deps.sh installs it)"
	return 1
}

# same "description" A B: ok when A equals B and neither is empty nor "null"
# (a value that could not be read must not pass as equal to another).
same() {
	local what=$1 a=$2 b=$3
	if [ -n "$a" ] && [ "$a" != null ] && [ "$a" = "$b" ]; then echo "ok - $what ($a)"
	else echo "not ok - $what: '$a' and '$b'"; fi
}
