#!/usr/bin/env bash
# make install [PREFIX=/usr/local] [DESTDIR=...]: ppbench with what it reads
# at run time (pipelines, gnuplot scripts, the Lotus reference figures, the
# PyTorch side of compare) under $PREFIX/lib/ppbench, the command as
# $PREFIX/bin/ppbench (a link: ppbench finds its files from its own path),
# a man page per command, and bash completion.
#   scripts/install.sh BIN PREFIX [DESTDIR]
set -eu
bin=$1 prefix=$2 dest=${3:-}
top=$(cd "$(dirname "$0")/.." && pwd)
root=$dest$prefix
lib=$root/lib/ppbench
install -d "$lib/bench" "$lib/pipelines" "$lib/plots" "$lib/scripts" "$root/bin" \
	"$root/share/man/man1" "$root/share/bash-completion/completions"
install -m 755 "$bin" "$lib/bench/ppbench"
install -m 644 "$top"/pipelines/*.pipe "$lib/pipelines/"
install -m 644 "$top"/plots/*.gp "$top/plots/README.md" "$lib/plots/"
install -m 644 "$top/scripts/torch_side.py" "$lib/scripts/"
mkdir -p "$lib/datasets"
cp -R "$top/datasets/reference" "$lib/datasets/"
ln -sf "../lib/ppbench/bench/ppbench" "$root/bin/ppbench"
"$top/scripts/gen-man.sh" "$lib/bench/ppbench" "$root/share/man/man1"
install -m 644 "$top/scripts/ppbench-completion.bash" "$root/share/bash-completion/completions/ppbench"
echo "installed: $root/bin/ppbench, $lib, $(ls "$root/share/man/man1" | wc -l) man pages in $root/share/man/man1, bash completion"
