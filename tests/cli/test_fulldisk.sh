# A full disk loses no finished measurement (issue: faults, item 2): the
# figures are printed before any file is written; a results folder that
# cannot be written completely is kept as NAME.partial, its summary.json
# says "complete": false and why when it fits; a disk already too full is
# refused before the run starts, with the figures. Needs root (tmpfs mounts).
. "$(dirname "$0")/lib.sh"
if [ "$(id -u)" -ne 0 ] || ! command -v mount >/dev/null; then
	skip "full disk" "needs root to mount a small tmpfs"
	exit 0
fi
ds=$TMP/fd_ds
mkdir -p "$ds/c0"
for i in $(seq 10 41); do : >"$ds/c0/x$i.jpg"; done
cat >"$TMP/fd.pipe" <<'PIPE'
sleep ms=25
synth w=8 h=8
to_tensor
collate
PIPE
mnt=$TMP/fd_mnt
mkdir -p "$mnt"
if ! mount -t tmpfs -o size=1m tmpfs "$mnt" 2>/dev/null; then
	skip "full disk" "cannot mount a tmpfs here"
	exit 0
fi
trap 'umount "$mnt" 2>/dev/null' EXIT
base=(--data "$ds" --gpu-step 0 --pipeline "$TMP/fd.pipe" --workers 1 --batch 4 --counters none)

# 1. the disk fills while the run measures
( sleep 0.3; dd if=/dev/zero of="$mnt/filler" bs=4k 2>/dev/null ) &
filler=$!
"$PPBENCH" run "${base[@]}" --out "$mnt/res" --tag full >"$TMP/fd.out" 2>"$TMP/fd.err"
rc=$?
wait $filler
[ "$rc" -eq 1 ] && echo "ok - a disk full at the end: exit 1" || echo "not ok - a disk full at the end: exit $rc, expected 1"
check "the figures were printed first" grep -Eq '^complete: 32 images in 8 batches, .* images/s$' "$TMP/fd.out"
check "the checksum was printed" grep -Eq '^checksum [0-9a-f]{16}' "$TMP/fd.out"
check "the error names the file and the reason" grep -Eq "cannot (write|create) '.*': No space left on device" "$TMP/fd.err"
check "the message says what was kept and where" grep -q "kept what was written in '$mnt/res/.*-full.partial'" "$TMP/fd.err"
kept=$(ls -d "$mnt"/res/*-full.partial 2>/dev/null | head -1)
check "the folder is kept under a name that says so" test -n "$kept"
check "no temporary folder is left" test -z "$(ls -d "$mnt"/res/.*.tmp 2>/dev/null)"
check "no folder claims to be complete" test -z "$(grep -l '"complete": true' "$mnt"/res/*/summary.json 2>/dev/null)"
rm -f "$mnt/filler"

# 2. a disk already too full: refused before the run, with the figures
dd if=/dev/zero of="$mnt/filler" bs=4k 2>/dev/null
check_cli "a disk without room: refused before running" 1 \
	"not enough free space for the results in '$mnt.*': about [0-9.]+ MiB needed .*, [0-9.]+ MiB free" \
	-- run "${base[@]}" --out "$mnt/res2" --tag nospace
check "nothing ran: no results folder" test -z "$(ls -d "$mnt"/res2/*nospace* 2>/dev/null)"
rm -f "$mnt/filler"
