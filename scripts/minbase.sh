#!/usr/bin/env bash
# The fresh-machine check, for real: a minimal Debian 12 root (debootstrap --variant=minbase) with
# only git and make, a clean clone of this repository and a copy of ../shared beside it, then
# `make test` in a chroot. Whatever the project needs beyond git and make must come from
# scripts/setup.sh (which `make test` runs first), so this proves the README's two commands.
#
#   sudo scripts/minbase.sh DIR                    bookworm + bookworm-updates + bookworm-security
#   sudo scripts/minbase.sh --no-updates DIR       the point release as released, never upgraded
#                                                  (old chromium/firefox-esr: the browser suites
#                                                  must stop with a message naming the versions)
#   options: --ref REF (default: the checked-out branch), --command CMD (default: make test),
#            --mirror URL (default: http://deb.debian.org/debian), --reuse (keep an existing root:
#            skip debootstrap, re-clone the repository)
#
# DIR must be outside any git repository (e.g. /tmp/minbase or /work/minbase-1). The root keeps
# this machine's CA bundle, its own CAs (/usr/local/share/ca-certificates) and /etc/npmrc
# (registries behind a TLS-inspecting proxy need them).
# The log of the run is DIR.log beside DIR; the last line says the result and the minutes it took.
# Needs root (debootstrap, chroot, mounts); installs debootstrap with apt when it is absent.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
SHARED=$(cd "$REPO/.." && pwd)/shared
MIRROR=http://deb.debian.org/debian
UPDATES=1 REUSE=0 REF="" CMD="make test" DIR=""
while [ $# -gt 0 ]; do
  case $1 in
    --no-updates) UPDATES=0 ;;
    --reuse) REUSE=1 ;;
    --ref) REF=$2; shift ;;
    --command) CMD=$2; shift ;;
    --mirror) MIRROR=$2; shift ;;
    -h | --help) sed -n '2,/^set /{/^#/p}' "$0"; exit 0 ;;
    -*) echo "minbase: unknown option $1" >&2; exit 2 ;;
    *) DIR=$1 ;;
  esac
  shift
done
[ -n "$DIR" ] || { echo "usage: scripts/minbase.sh [--no-updates] [--ref REF] [--command CMD] DIR" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "minbase: needs root (debootstrap, chroot, mount): run it with sudo" >&2; exit 2; }
mkdir -p "$DIR"
DIR=$(cd "$DIR" && pwd)
if git -C "$DIR" rev-parse --show-toplevel >/dev/null 2>&1; then
  echo "minbase: $DIR is inside a git repository ($(git -C "$DIR" rev-parse --show-toplevel)); use a folder outside it, e.g. /tmp/minbase" >&2
  rmdir "$DIR" 2>/dev/null
  exit 2
fi
[ -n "$REF" ] || REF=$(git -C "$REPO" rev-parse --abbrev-ref HEAD)
[ -d "$SHARED" ] || echo "minbase: NOTE: $SHARED is absent: the corpus, golden and browser tests on real traces will be skipped"

LOG="$DIR.log"
exec > >(tee -a "$LOG") 2>&1
start=$(date +%s)
say() { echo "minbase: [$(( ($(date +%s) - start) / 60 )) min] $*"; }
say "root $DIR, repository $REPO ($REF), updates archives: $([ $UPDATES = 1 ] && echo yes || echo no), command: $CMD"

mounted=()
cleanup() {
  local i
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount -l "${mounted[$i]}" 2>/dev/null || true; done
}
trap cleanup EXIT
bind() {  # bind SRC DEST [mount options...]: mounts SRC at DIR/DEST, undone on exit
  local src=$1 dest=$DIR$2; shift 2
  mkdir -p "$dest"
  mountpoint -q "$dest" && return 0
  mount "$@" "$src" "$dest"
  mounted+=("$dest")
  # A recursive bind stays a slave: unmounting it never unmounts this machine's own /dev or /sys.
  [[ " $* " != *" --rbind "* ]] || mount --make-rslave "$dest"
}

if [ $REUSE = 1 ] && [ -x "$DIR/usr/bin/apt-get" ]; then
  say "reusing the root in $DIR"
else
  [ -z "$(ls -A "$DIR")" ] || { echo "minbase: $DIR is not empty (use --reuse to keep its root, or remove it)" >&2; exit 2; }
  command -v debootstrap >/dev/null || { say "installing debootstrap"; apt-get install -y -qq debootstrap >/dev/null; }
  say "debootstrap --variant=minbase bookworm"
  debootstrap --variant=minbase bookworm "$DIR" "$MIRROR" >/dev/null
fi

# The registries' certificates and npm's configuration from this machine (no ca-certificates
# package in minbase: apt over http, npm and git over https with this bundle).
mkdir -p "$DIR/etc/ssl/certs"
cp /etc/ssl/certs/ca-certificates.crt "$DIR/etc/ssl/certs/ca-certificates.crt"
# ...and this machine's own CAs, so that the bundle keeps them when the ca-certificates package,
# installed later as a dependency, rebuilds it (seen: npm's "self-signed certificate in chain").
if [ -d /usr/local/share/ca-certificates ]; then
  mkdir -p "$DIR/usr/local/share/ca-certificates"
  cp -r /usr/local/share/ca-certificates/. "$DIR/usr/local/share/ca-certificates/"
fi
[ -f /etc/npmrc ] && cp /etc/npmrc "$DIR/etc/npmrc"
# A mirror whose Release files are older than their Valid-Until (a snapshot) is accepted only when
# this machine accepts it too.
if apt-config dump 2>/dev/null | grep -q 'Acquire::Check-Valid-Until "false"'; then
  printf 'Acquire::Check-Valid-Until "false";\nAcquire::Check-Date "false";\n' >"$DIR/etc/apt/apt.conf.d/99minbase-valid-until"
fi

rm -f "$DIR/etc/apt/sources.list"
{
  printf 'Types: deb\nURIs: %s\nSuites: bookworm%s\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
    "$MIRROR" "$([ $UPDATES = 1 ] && echo ' bookworm-updates')"
  if [ $UPDATES = 1 ]; then
    printf '\nTypes: deb\nURIs: %s\nSuites: bookworm-security\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
      "${MIRROR%/debian}/debian-security"
  fi
} >"$DIR/etc/apt/sources.list.d/debian.sources"

bind /proc /proc -t proc
bind /sys /sys --rbind
bind /dev /dev --rbind
bind tmpfs /dev/shm -t tmpfs -o mode=1777,size=2g

in_root() {
  chroot "$DIR" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    NPM_CONFIG_GLOBALCONFIG=/etc/npmrc /bin/bash -c "$1"
}

say "apt-get install git make"
in_root "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends git make >/dev/null"

say "clean clone of $REPO ($REF) into /work/kinetoscope; ../shared copied beside it"
rm -rf "$DIR/work/kinetoscope"
mkdir -p "$DIR/work"
commit=$(git -C "$REPO" rev-parse --verify "$REF^{commit}")
git clone -q --no-hardlinks --no-checkout "$REPO" "$DIR/work/kinetoscope"
git -C "$DIR/work/kinetoscope" checkout -q -B "$(basename "$REF")" "$commit"
if [ -d "$SHARED" ]; then
  rm -rf "$DIR/work/shared"
  cp -a "$SHARED" "$DIR/work/shared"
fi

say "running: $CMD"
set +e
in_root "cd /work/kinetoscope && $CMD"
rc=$?
set -e
say "done: '$CMD' exited $rc after $(( ($(date +%s) - start) / 60 )) min (log: $LOG)"
exit $rc
