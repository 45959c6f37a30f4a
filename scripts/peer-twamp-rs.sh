#!/usr/bin/env bash
# The independent TWAMP peer of the native-probe ctest twamp_against_twamp_rs_both_ways: the Rust
# crate twamp-rs 0.1.0 (RFC 5357, open mode), whose example programs `controller` and `responder`
# the test runs. `cargo install --locked` fetches the crate from the Rust package registry
# (checked by cargo against the registry's index) and builds its two examples with the
# Cargo.lock published in the crate, so every dependency is the version twamp-rs was released
# with; the .crate's SHA-256 is then checked against the checksum the index gave for 0.1.0
# (pinned below), and the binaries are kept only if it matches. A debug build without debug
# info: on the 2-core machines it takes under half a release build's time (about 25 s against
# 62), and ten packets need no speed. Does nothing when the binaries are there. Prints the
# binaries' directory: scripts/test.sh hands it to the test as NMWS_TWAMP_RS_DIR; without that
# the test looks in the same default place, so a ctest run by hand works once this has run.
#
# usage: scripts/peer-twamp-rs.sh   (installs into ${XDG_CACHE_HOME:-$HOME/.cache}/nmws/twamp-rs-0.1.0/bin)
# Needs cargo 1.85 or later (the crate is edition 2024): rustup's; Debian 12's cargo is too old.
set -euo pipefail

version=0.1.0
sha256=04699720a9de50ae2c076e4f5e2a75b4bd246a500a4e4ab2eaf3030547ca12ab
dir=${XDG_CACHE_HOME:-$HOME/.cache}/nmws/twamp-rs-$version
bin=$dir/bin

if [ -x "$bin/controller" ] && [ -x "$bin/responder" ]; then
  echo "$bin"
  exit 0
fi

# rustup's cargo is often not on PATH (CI runs as root with a plain one)
cargo_home=${CARGO_HOME:-$HOME/.cargo}
cargo=$(command -v cargo || true)
for c in "$cargo_home/bin/cargo" /root/.cargo/bin/cargo; do
  if [ -z "$cargo" ] && [ -x "$c" ]; then cargo=$c; fi
done
if [ -z "$cargo" ]; then
  echo "peer-twamp-rs.sh: no cargo: twamp-rs needs cargo 1.85 or later (rustup's)" >&2
  exit 1
fi
minor=$("$cargo" --version | sed -n 's/^cargo 1\.\([0-9]*\)\..*/\1/p')
if [ -z "$minor" ] || [ "$minor" -lt 85 ]; then
  echo "peer-twamp-rs.sh: $("$cargo" --version) is too old: twamp-rs $version (edition 2024) needs cargo 1.85 or later (rustup's)" >&2
  exit 1
fi

start=$(date +%s)
mkdir -p "$(dirname "$dir")"
work=$(mktemp -d "$dir.XXXXXX")
chmod 755 "$work"
trap 'rm -rf "$work"' EXIT
if ! CARGO_PROFILE_DEV_DEBUG=false "$cargo" install --locked --debug --version "=$version" \
    --example controller --example responder --root "$work" twamp-rs > "$work/build.log" 2>&1; then
  tail -40 "$work/build.log" >&2
  echo "peer-twamp-rs.sh: cargo install of twamp-rs $version failed" >&2
  exit 1
fi

crate=""
for f in "$cargo_home"/registry/cache/*/"twamp-rs-$version.crate"; do
  if [ -f "$f" ] && echo "$sha256  $f" | sha256sum -c --quiet - >/dev/null 2>&1; then crate=$f; fi
done
if [ -z "$crate" ]; then
  echo "peer-twamp-rs.sh: no twamp-rs-$version.crate with SHA-256 $sha256 in $cargo_home/registry/cache" >&2
  exit 1
fi

# into place whole, so a run stopped half-way leaves nothing that looks built
rm -rf "$dir"
mv "$work" "$dir"
trap - EXIT
echo "peer-twamp-rs.sh: twamp-rs $version built in $(( $(date +%s) - start )) s" >&2
echo "$bin"
