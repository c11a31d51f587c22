#!/usr/bin/env python3
"""Checks the example app's Xcode project without Xcode: the project file parses as an OpenStep
property list, every object it references exists, its file references point at files in the
repository, its local package is the example package, and the product it links is one that package
declares. (Building it needs Xcode on a Mac; CI compiles the same sources for iOS with
../shared/ios-sdk/build-for-ios.sh.)

Usage: python3 Scripts/check_xcodeproj.py
"""
import os
import re
import sys

import openstep_parser

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
project_dir = os.path.join(root, "Examples/WaymarkExample/Xcode")
pbxproj = os.path.join(project_dir, "WaymarkExample.xcodeproj/project.pbxproj")
problems = []

with open(pbxproj) as handle:
    text = handle.read()
document = openstep_parser.OpenStepDecoder.ParseFromString(text)
objects = document["objects"]
for ident in set(re.findall(r"\b[0-9A-F]{24}\b", text)):
    if ident not in objects:
        problems.append(f"object {ident} is referenced but not defined")
if document["rootObject"] not in objects:
    problems.append("the root object is missing")

for ident, obj in objects.items():
    kind = obj.get("isa")
    if kind == "PBXFileReference" and obj.get("sourceTree") == "SOURCE_ROOT":
        path = os.path.normpath(os.path.join(project_dir, obj["path"]))
        if not os.path.exists(path):
            problems.append(f"file reference {obj['path']} does not exist ({path})")
    if kind == "XCLocalSwiftPackageReference":
        package = os.path.normpath(os.path.join(project_dir, obj["relativePath"]))
        manifest = os.path.join(package, "Package.swift")
        if not os.path.exists(manifest):
            problems.append(f"local package {obj['relativePath']} has no Package.swift")
        else:
            declared = re.findall(r'\.library\(name: "([^"]+)"', open(manifest).read())
            for other in objects.values():
                if other.get("isa") == "XCSwiftPackageProductDependency" and other.get("package") == ident \
                        and other["productName"] not in declared:
                    problems.append(f"product {other['productName']} is not a library of {manifest}")
    if kind == "XCBuildConfiguration":
        plist = obj["buildSettings"].get("INFOPLIST_FILE")
        if plist and not os.path.exists(os.path.normpath(os.path.join(project_dir, plist))):
            problems.append(f"INFOPLIST_FILE {plist} does not exist")

if problems:
    for problem in problems:
        print("!!", problem, file=sys.stderr)
    sys.exit(1)
print(f"ok: {len(objects)} objects, every reference resolves")
