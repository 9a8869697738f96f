#!/usr/bin/env bash
# Installs the Debian packages ppbench needs to build, test and plot.
# Does nothing when they are all present. Run as root (or with sudo).
#   scripts/install-deps.sh            build, tests, plots
#   scripts/install-deps.sh --oracle   also Debian's python3-torch, -torchvision,
#                                      -pil (golden fixtures, ppbench compare)
set -euo pipefail

pkgs=(
	build-essential pkg-config make bc
	python3                                 # tests read JSON with it
	jq                                      # ... and with jq (CLI tests)
	util-linux                              # setpriv, taskset, mount (CLI tests)
	libturbojpeg0-dev libjpeg62-turbo-dev   # libjpeg-turbo: libjpeg API + TurboJPEG
	libpng-dev
	libhwloc-dev hwloc                      # topology
	libpfm4-dev                             # counter event names
	libjansson-dev                          # JSON results
	libcmocka-dev                           # unit tests
	valgrind                                # ppbench map (callgrind), its test
	libzstd-dev liblz4-dev                  # compressed storage formats
	zlib1g-dev                              # trace.json.gz (gzip'd Chrome trace)
	libxxhash-dev                           # checksums of batches and stores
	gnuplot-nox                             # figures
	slurm-wlm munge                         # a one-node Slurm for tests/cli/test_slurm.sh (18 s)
)
if [ "${1:-}" = "--oracle" ]; then
	pkgs+=(python3 python3-torch python3-torchvision python3-pil python3-numpy)
elif [ -n "${1:-}" ]; then
	echo "usage: $0 [--oracle]" >&2
	exit 2
fi

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
	echo "install-deps: all ${#pkgs[@]} packages present"
	exit 0
fi
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install-deps: done"
