# ppbench info and ppbench map: command-line contracts, the degraded counter
# paths (forced with PPBENCH_FORCE_NO_PMU / PPBENCH_FORCE_NO_PERF), and the
# op-to-function map under valgrind on a small generated image.
# Rows: description | exit code | expected text | arguments.
. "$(dirname "$0")/lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)


# info
check_cli "info --help lists the presets"        0 'Presets: basic'                  -- info --help
check_cli "info describes the machine"           0 'perf_event_paranoid'             -- info
check_cli "info names the caches"                0 'L1d .* shared by'                -- info
check_cli "info measures a counter read"         0 'counter read +[0-9]+ ns per read' -- info --counters sw
if [ -e /sys/bus/event_source/devices/cpu ] || [ -e /sys/bus/event_source/devices/cpu_core ]; then
	check_cli "info: cycles open on this PMU"    0 'cycles +(ok|scaled)'             -- info --counters basic
else
	check_cli "info: no PMU here, cycles not supported" 0 'cycles +not supported +no hardware PMU \(ENOENT\)' -- info --counters basic
fi
export PPBENCH_FORCE_NO_PMU=1
check_cli "forced no PMU: hardware events not supported" 0 'instructions +not supported +no hardware PMU \(ENOENT\)' -- info --counters basic
check_cli "forced no PMU: one line for the fallback" 0 '^  counters: no hardware event opens here \(cycles: no hardware PMU \(ENOENT\)\); counting software events instead: task-clock, page-faults' -- info --counters basic
unset PPBENCH_FORCE_NO_PMU
export PPBENCH_FORCE_NO_PERF=1
check_cli "forced no perf: thread CPU clock"     0 'on-CPU time from the thread CPU clock only' -- info --counters sw
unset PPBENCH_FORCE_NO_PERF
check_cli "info --json"                          0 '"schema_version": 1'             -- info --json --counters sw
check_cli "info --json has the statuses"         0 '"status": "(ok|not supported)"'  -- info --json --counters basic
check_cli "info --xml writes the topology"       0 ''                                -- info --counters none --xml "$TMP/topo.xml"
check "the XML is hwloc's" grep -q '<topology version=' "$TMP/topo.xml"
check_cli "info: unknown event"                  2 "--counters: unknown event 'cylces'" -- info --counters cylces
check_cli "info: none with events"               2 "'none' cannot be combined"       -- info --counters none,cycles
check_cli "info: a CPU that is not there"        2 '--pin: CPU 4095 is not in this machine' -- info --pin 0,4095
check_cli "info: a bad CPU list"                 2 "--pin: range '3-1' goes down"    -- info --pin 3-1
check_cli "info: a pin plan"                     0 'pin plan +--pin compact --workers 1: workers -> CPU 0' -- info --counters none --pin compact -w 1
check_cli "info takes no argument"               2 'takes no arguments'              -- info extra

# map: options
check_cli "map --help"                           0 'op-to-function table'            -- map --help
check_cli "map --size malformed"                 2 "--size: '0x7' is not WxH"        -- map --size 0x7 --out "$TMP/m0"
check_cli "map: unknown pipeline"                2 "no pipeline named 'nope'"        -- map --pipeline nope --out "$TMP/m0"
check_cli "map: a missing image"                 2 "cannot open '$TMP/missing.jpg'"  -- map "$TMP/missing.jpg" --out "$TMP/m0"
check_cli "map: --tool bogus"                    2 '--tool'                          -- map --tool bogus

# map under valgrind: not with an AddressSanitizer build, which valgrind cannot run
need valgrind || exit 1
MAPBIN=$PPBENCH
if grep -q __asan_init "$PPBENCH" 2>/dev/null; then
	MAPBIN=$top/build/opt/ppbench
	if [ ! -x "$MAPBIN" ]; then
		echo "# valgrind cannot run the AddressSanitizer build: building build/opt/ppbench"
		make -C "$top" -s build/opt/ppbench >/dev/null 2>&1 || true
	fi
	if [ ! -x "$MAPBIN" ]; then
		echo "not ok - map under valgrind: build/opt/ppbench does not build (valgrind cannot run $PPBENCH, an AddressSanitizer build)"
		exit 1
	fi
fi
PPBENCH=$MAPBIN
check_cli "map a small image under callgrind"    0 '## Functions shared between ops' -- \
	map --tool callgrind --size 160x120 --batch 4 --out "$TMP/map"
check "map.csv, ops.csv, map.md written" test -s "$TMP/map/map.csv" -a -s "$TMP/map/ops.csv" -a -s "$TMP/map/map.md"
check "the decode op runs libjpeg-turbo's decoder" grep -Eq \
	'^decode,0,libjpeg[^,]*,(jsimd_idct_islow[a-z0-9_]*|jpeg_idct_islow|decode_mcu[a-z_]*|jsimd_ycc_[a-z0-9_]*|ycc_rgb_convert|decompress_onepass),' \
	"$TMP/map/map.csv"
check "every op of the pipeline has a row in ops.csv" test "$(grep -c ',callgrind,' "$TMP/map/ops.csv")" -eq 6
check "normalize runs ppbench's own code" grep -Eq '^normalize,4,[^,]+,[a-z_]+,' "$TMP/map/map.csv"
# the kernel set the ops ran, against the one runs use (valgrind has no AVX-512)
runs_k=$("$PPBENCH" info 2>/dev/null | sed -n 's/^kernels  *\([a-z0-9]*\).*/\1/p' | head -1)
mapped_k=$(awk -F, 'NR == 2 { print $NF }' "$TMP/map/ops.csv")
check "ops.csv names the kernel set each op ran" grep -Eq '^to_tensor,3,callgrind,.*,(sse2|avx2|avx512)$' "$TMP/map/ops.csv"
if [ -n "$mapped_k" ] && [ "$mapped_k" = "$runs_k" ]; then
	check "map.md: the kernels mapped are those runs use" grep -q "^- Kernels mapped: $mapped_k, the set runs use here" "$TMP/map/map.md"
else
	check "map.md: the kernels mapped are not those runs use, and says so" \
		grep -q "^- Kernels mapped: $mapped_k, not the $runs_k that runs use here" "$TMP/map/map.md"
fi
check_cli "map never overwrites a map"           1 'never overwritten'               -- \
	map --tool callgrind --size 160x120 --out "$TMP/map"
