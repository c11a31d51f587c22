#!/usr/bin/env bash
# Builds every library's DocC catalog and fails on any DocC warning.
#
# - The eight libraries that build on Linux go through swift-docc-plugin
#   (`swift package generate-documentation --warnings-as-errors`).
# - WaymarkApple has no symbols on Linux (it wraps Core Location and UIKit), so its symbol graph is
#   extracted from the iOS compile (../shared/ios-sdk/build-for-ios.sh, run before this script;
#   .build-ios holds the module) and converted with the toolchain's `docc`, also with warnings as
#   errors: the plugin cannot build for iOS on this machine.
#
# Usage, from the package root:  bash Scripts/build_docs.sh [OUTPUT_DIR]   (default /tmp/waymark-docs)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-/tmp/waymark-docs}
mkdir -p "$out"

for target in WaymarkGeo WaymarkEngine WaymarkSimulator WaymarkSimulatedPhone WaymarkTransport WaymarkSync WaymarkServer WaymarkServerTesting; do
  echo "== DocC: $target"
  if ! swift package --allow-writing-to-directory "$out" generate-documentation --target "$target" \
       --warnings-as-errors --output-path "$out/$target" > "$out/$target.log" 2>&1; then
    grep -E '^(warning|error)' -A8 "$out/$target.log" >&2 || tail -30 "$out/$target.log" >&2
    echo "!! $target's documentation has warnings or errors (above)" >&2
    exit 1
  fi
done

echo "== DocC: WaymarkApple (symbol graph from the iOS compile)"
ios=.build-ios
module_dir=$ios/arm64-apple-ios/debug/Modules
if [ ! -e "$module_dir/WaymarkApple.swiftmodule" ]; then
  echo "!! $module_dir/WaymarkApple.swiftmodule is missing: run ../shared/ios-sdk/build-for-ios.sh WaymarkApple first" >&2
  exit 1
fi
graphs=$(mktemp -d)
trap 'rm -rf "$graphs"' EXIT
swift-symbolgraph-extract -module-name WaymarkApple -target arm64-apple-ios17.0 \
  -sdk "$ios/sdks/ios.artifactbundle/ios/iPhoneOS.sdk" -resource-dir "$ios/ios-resources" \
  -I "$module_dir" -module-cache-path "$ios/module-cache" -minimum-access-level public -output-dir "$graphs"
rm -rf "$out/WaymarkApple"
docc convert Sources/WaymarkApple/WaymarkApple.docc --additional-symbol-graph-dir "$graphs" \
  --fallback-display-name WaymarkApple --fallback-bundle-identifier WaymarkApple \
  --output-path "$out/WaymarkApple" --warnings-as-errors
echo "documentation for nine libraries in $out"
