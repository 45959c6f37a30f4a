#!/usr/bin/env bash
# The independent TWAMP peer of the native-probe ctest twamp_against_twamp_rs_both_ways: the Rust
# crate twamp-rs 0.1.0 (RFC 5357, open mode), whose example programs `controller` and `responder`
# the test runs. Fetched with cargo from the Rust package registry, the .crate's SHA-256 checked
# against the checksum the registry's index gives for 0.1.0 (pinned below), unpacked into the
# cache directory and built there with its own Cargo.lock (--locked). A debug build: on the 2-core machines it
# takes under half a release build's time (about 26 s against 62), and ten packets need no speed.
# Does nothing when the binaries are there. Prints the binaries' directory: scripts/test.sh hands
# it to the test as NMWS_TWAMP_RS_DIR; without that the test looks in the same default place, so
# a ctest run by hand works once this has run.
#
# usage: scripts/peer-twamp-rs.sh   (builds in ${XDG_CACHE_HOME:-$HOME/.cache}/nmws/twamp-rs-0.1.0)
set -euo pipefail

version=0.1.0
sha256=04699720a9de50ae2c076e4f5e2a75b4bd246a500a4e4ab2eaf3030547ca12ab
dir=${XDG_CACHE_HOME:-$HOME/.cache}/nmws/twamp-rs-$version
bin=$dir/target/debug/examples

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
  echo "peer-twamp-rs.sh: no cargo (rustup's, or Debian's package cargo): twamp-rs cannot be built" >&2
  exit 1
fi

start=$(date +%s)
work=$(mktemp -d /tmp/nmws-twamp-rs.XXXXXX)
trap 'rm -rf "$work"' EXIT

# cargo fetches the crate (checking it against the index) into its registry cache: a throwaway
# package that depends on exactly this version
mkdir -p "$work/fetch/src"
cat > "$work/fetch/Cargo.toml" <<EOF
[package]
name = "nmws-peer-fetch"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
twamp-rs = "=$version"
EOF
: > "$work/fetch/src/lib.rs"
"$cargo" fetch -q --manifest-path "$work/fetch/Cargo.toml"

crate=""
for f in "$cargo_home"/registry/cache/*/"twamp-rs-$version.crate"; do
  if [ -f "$f" ] && echo "$sha256  $f" | sha256sum -c --quiet - >/dev/null 2>&1; then crate=$f; fi
done
if [ -z "$crate" ]; then
  echo "peer-twamp-rs.sh: no twamp-rs-$version.crate with SHA-256 $sha256 in $cargo_home/registry/cache" >&2
  exit 1
fi

tar -xzf "$crate" -C "$work"
rm -rf "$dir"
mkdir -p "$(dirname "$dir")"
mv "$work/twamp-rs-$version" "$dir"
# no debug info: the same build time, half the disk
if ! (cd "$dir" && CARGO_PROFILE_DEV_DEBUG=false "$cargo" build --locked --examples) > "$dir/build.log" 2>&1; then
  tail -40 "$dir/build.log" >&2
  echo "peer-twamp-rs.sh: cargo build of twamp-rs $version failed (whole log: $dir/build.log)" >&2
  exit 1
fi
echo "peer-twamp-rs.sh: twamp-rs $version built in $(( $(date +%s) - start )) s" >&2
echo "$bin"
