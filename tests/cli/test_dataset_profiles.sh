# dataset profiles: --profile imagenet|photos on generate and default, the
# refusal of an unknown name, describe naming the profile, the help.
. "$(dirname "$0")/lib.sh"

check_cli "generate: an unknown profile is refused"  2 "--profile: 'webp' is not one of imagenet.photos" \
	-- dataset generate --out "$TMP/pf_bad" --profile webp
check "generate: nothing is made for an unknown profile" test ! -e "$TMP/pf_bad"
check_cli "default: an unknown profile is refused"   2 "--profile: 'webp' is not one of imagenet.photos" \
	-- dataset default --profile webp
check_cli "default takes no argument"                 2 "takes no argument" -- dataset default photos
check_cli "generate --help names the profiles"        0 'photos: web-sized photos' -- dataset generate --help
check_cli "default --help names the cache folder"     0 'datasets/cache/<profile>' -- dataset default --help
check_cli "dataset --help shows --profile"            0 'default \[--profile imagenet\|photos\]' -- dataset --help

check_cli "generate --profile photos"                 0 'profile +photos' \
	-- dataset generate --out "$TMP/pf_photos" --profile photos --images 12 --classes 3 --seed 2
check_cli "generate prints megapixels and bytes per pixel" 0 'MP.*bytes per pixel' \
	-- dataset generate --out "$TMP/pf_imagenet" --images 12 --classes 3 --seed 2
check_cli "describe names the photos profile"         0 'profile photos, generator version [0-9]+, seed 2' \
	-- dataset describe "$TMP/pf_photos"
check_cli "describe names the imagenet profile"       0 'profile imagenet' -- dataset describe "$TMP/pf_imagenet"
mkdir -p "$TMP/pf_plain/cls" && cp "$(find "$TMP/pf_photos" -name '*.JPEG' | sort | head -1)" "$TMP/pf_plain/cls/a.JPEG"
out=$("$PPBENCH" dataset describe "$TMP/pf_plain" 2>&1)
if printf '%s\n' "$out" | grep -q 'images 1,' && ! printf '%s\n' "$out" | grep -q profile; then
	echo "ok - describe of a tree made elsewhere names no profile"
else
	echo "not ok - describe of a tree made elsewhere names no profile"
fi
