#!/usr/bin/env bash
# An app that adds Waymark's device products resolves no server-side package.
#
# Resolves the example app (Examples/WaymarkExample: it depends on this package by path with the
# default traits off, as an app does) in a fresh scratch folder and fails when its pins hold any
# package beyond the device half's short list:
#   grdb.swift  the on-device store of WaymarkSync (SQLite through GRDB)
#   swift-log   WaymarkSync's logging (the package's logging API everywhere, OSLog-backed on Apple) and the
#               field log's system-log copy off Apple platforms (WaymarkEngine; os.Logger on Apple)
# Usage: bash Scripts/check_app_pins.sh
set -euo pipefail
cd "$(dirname "$0")/.."
allowed="grdb.swift swift-log"
app="$PWD/Examples/WaymarkExample"
scratch=$(mktemp -d /tmp/waymark-app-pins.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
# A copy without its .build/Package.resolved, so nothing cached decides the answer.
mkdir -p "$scratch/Examples"
cp -r "$app" "$scratch/Examples/WaymarkExample"
rm -rf "$scratch/Examples/WaymarkExample/.build" "$scratch/Examples/WaymarkExample/.build-ios" \
       "$scratch/Examples/WaymarkExample/Package.resolved"
# The dependency is by path ../.. : give the copy this package's manifest and sources by link.
for entry in Package.swift Sources Tests; do ln -s "$PWD/$entry" "$scratch/$entry"; done
swift package --package-path "$scratch/Examples/WaymarkExample" resolve >/dev/null
pins=$(python3 -c 'import json,sys; print(" ".join(sorted(p["identity"] for p in json.load(open(sys.argv[1]))["pins"])))' \
       "$scratch/Examples/WaymarkExample/Package.resolved")
echo "the example app's pins: ${pins:-none}"
extra=""
for pin in $pins; do
  case " $allowed " in *" $pin "*) ;; *) extra="$extra $pin" ;; esac
done
if [ -n "$extra" ]; then
  echo "!! an app adding Waymark's device products resolves server-side packages:$extra" >&2
  echo "   (every server-side dependency must be conditional on the Server trait; see Package.swift)" >&2
  exit 1
fi
for need in $allowed; do
  case " $pins " in *" $need "*) ;; *) echo "!! expected $need among the pins (the device half needs it)" >&2; exit 1 ;; esac
done
echo "ok: only the device half's packages ($allowed)"
