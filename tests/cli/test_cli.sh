# Command-line contracts of ppbench, apply, dataset and ops: exit codes and
# messages. Rows: description | exit code | expected text | arguments.
. "$(dirname "$0")/lib.sh"

check_cli "no command is a usage error"          2 'usage: ppbench'           --
check_cli "--help lists the commands"            0 'apply'                    -- --help
check_cli "unknown command is named"             2 "unknown command 'frob'"   -- frob
check_cli "version"                              0 '^ppbench [0-9]'           -- version
check_cli "ops lists every pipeline op"          0 'random_resized_crop'      -- ops

# apply: options
check_cli "apply --help shows defaults"          0 'default: imagenet_train'  -- apply --help
check_cli "apply without an image"               2 'apply needs an image'     -- apply --out "$TMP/x.npy"
check_cli "apply without --out"                  2 'needs --out'              -- apply x.jpg
check_cli "apply unknown option"                 2 "unknown option '--bogus'" -- apply x.jpg --bogus 1 --out "$TMP/x.npy"
check_cli "apply --flip out of range"            2 '--flip: 2 is out of range' -- apply x.jpg --flip 2 --out "$TMP/x.npy"
check_cli "apply --crop malformed"               2 "--crop: '1,2,3' is not"   -- apply x.jpg --crop 1,2,3 --out "$TMP/x.npy"
check_cli "apply unknown pipeline"               2 "no pipeline named 'nope'" -- apply x.jpg --pipeline nope --out "$TMP/x.npy"
check_cli "apply --until an op not in the pipeline" 2 "has no op 'resize'"    -- apply x.jpg --until resize --out "$TMP/x.npy"
check_cli "apply on a missing file names it"     2 "'$TMP/missing.JPEG'.*(No such file|cannot open)" -- apply "$TMP/missing.JPEG" --out "$TMP/x.npy"

# a bad pipeline file
printf 'decode\nfrobnicate size=3\n' >"$TMP/bad.pipe"
check_cli "pipeline file: unknown op with line"  2 "bad.pipe:2: unknown op 'frobnicate'" -- apply x.jpg --pipeline "$TMP/bad.pipe" --out "$TMP/x.npy"
printf 'decode\nrandom_resized_crop size=abc\n' >"$TMP/bad2.pipe"
check_cli "pipeline file: bad argument"          2 "size: 'abc' is not an integer" -- apply x.jpg --pipeline "$TMP/bad2.pipe" --out "$TMP/x.npy"
printf 'decode\nto_tensor\nrandom_horizontal_flip\n' >"$TMP/bad3.pipe"
check_cli "pipeline file: ops in a wrong order"  2 "takes a uint8 image but gets a float32 tensor" -- apply x.jpg --pipeline "$TMP/bad3.pipe" --out "$TMP/x.npy"
printf 'decode\nnormalize gamma=2\n' >"$TMP/bad4.pipe"
check_cli "pipeline file: unknown argument"      2 "has no argument 'gamma'"   -- apply x.jpg --pipeline "$TMP/bad4.pipe" --out "$TMP/x.npy"

# dataset
check_cli "dataset without subcommand"           2 'usage: ppbench dataset'   -- dataset
check_cli "dataset generate needs --out"         2 'needs --out'              -- dataset generate
check_cli "dataset generate --images 0"          2 '--images: 0 is out of range' -- dataset generate --out "$TMP/d0" --images 0
check_cli "dataset generate --images abc"        2 "--images: 'abc' is not"   -- dataset generate --out "$TMP/d0" --images abc
check_cli "dataset generate a small tree"        0 'images'                   -- dataset generate --out "$TMP/ds" --images 24 --classes 3 --seed 3
check_cli "dataset generate refuses a non-empty folder" 1 "$TMP/ds"           -- dataset generate --out "$TMP/ds" --images 24 --classes 3
check_cli "dataset describe"                     0 'classes 3, images 24'     -- dataset describe "$TMP/ds"
check_cli "dataset describe a missing folder"    2 "$TMP/nope"                -- dataset describe "$TMP/nope"

# apply on real files of the generated tree
img=$(find "$TMP/ds" -name '*.JPEG' | sort | head -1)
check_cli "apply the whole train pipeline"       0 ''                         -- apply "$img" --out "$TMP/t.npy"
check "apply writes a float32 3x224x224 .npy" grep -aq "'descr': '<f4'.*'shape': (3, 224, 224)" "$TMP/t.npy"
check_cli "apply --until decode"                 0 ''                         -- apply "$img" --until decode --out "$TMP/d.npy"
check "decode output is uint8 HxWx3" grep -aq "'descr': '|u1'.*, 3)" "$TMP/d.npy"
check_cli "apply with a fixed crop and flip"     0 ''                         -- apply "$img" --until random_horizontal_flip --crop 0,0,10,10 --flip 1 --out "$TMP/c.npy"
check "fixed crop output is 224x224x3" grep -aq "'shape': (224, 224, 3)" "$TMP/c.npy"
check_cli "apply with a crop outside the image"  1 'random_resized_crop'      -- apply "$img" --crop 0,0,100000,10 --out "$TMP/c.npy"

# bad files: each gives one line naming the file and a reason, exit 1
: >"$TMP/empty.JPEG"
echo "hello, not an image" >"$TMP/text.JPEG"
head -c 3000 "$img" >"$TMP/trunc.JPEG"
printf 'GIF89a\001\000\001\000' >"$TMP/gif.JPEG"
for f in empty text trunc gif; do
	check_cli "apply on a bad file: $f"       1 "'$TMP/$f.JPEG'"           -- apply "$TMP/$f.JPEG" --out "$TMP/b.npy"
done
check_cli "apply: pixel limit"                   1 'limit'                    -- apply "$img" --max-pixels 100 --out "$TMP/b.npy"
check "no .npy is left by a failed apply" test ! -e "$TMP/b.npy"
