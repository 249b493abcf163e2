#!/usr/bin/env bash
# Installs the Kafka clients of the interop suite (test/interop-clients/package.json) into a cache
# outside the clone, keyed by that file's hash, and prints the node_modules path on its last line.
# @confluentinc/kafka-javascript's prebuilt download needs the internet: CKJS_LINKING=dynamic builds
# its librdkafka from source against Debian's zlib, OpenSSL and libzstd (6-16 minutes on 2 cores). make runs
# one job: with -j2, node-gyp's make races librdkafka's configure step for config.h.
# @platformatic/kafka is plain JavaScript. Neither ever becomes a dependency of kafka-eos.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
spec="$here/test/interop-clients/package.json"
# The key covers the client versions and the librdkafka build's features (libzstd-dev present: zstd built in).
features="zstd=$(pkg-config --exists libzstd 2>/dev/null && echo yes || echo no)"
hash=$( (cat "$spec"; echo "$features") | sha256sum | cut -c1-16)
cache="${KAFKA_EOS_CACHE:-$HOME/.cache/kafka-eos-ci}/interop-clients-$hash"
if [ -f "$cache/.complete" ]; then
  echo "$cache/node_modules"
  exit 0
fi
rm -rf "$cache"
mkdir -p "$cache"
cp "$spec" "$cache/package.json"
cd "$cache"
export CKJS_LINKING=dynamic
# npm 11 runs install scripts only for packages listed under allowScripts.
node -e '
  const p = require("./package.json");
  p.allowScripts = { "@confluentinc/kafka-javascript": true };
  require("fs").writeFileSync("package.json", JSON.stringify(p, null, 2));
'
npm install --no-audit --no-fund --foreground-scripts >"$cache/install.log" 2>&1 || {
  tail -40 "$cache/install.log" >&2
  exit 1
}
node -e 'require("@confluentinc/kafka-javascript"); require("@platformatic/kafka")' \
  || { echo "interop clients installed but do not load" >&2; exit 1; }
touch "$cache/.complete"
echo "$cache/node_modules"
