#!/usr/bin/env python3
"""Lists the Swift Testing tests a log shows as started but never finished.

Used by .ci/run when `swift test` runs past its time limit, so a hang names its test.

    python3 Scripts/unfinished_tests.py /tmp/waymark-swift-test.log
"""
import re
import sys

ANSI = re.compile(r"\x1b\[[0-9;]*m")
STARTED = re.compile(r'^\S+ Test "(.*)" started\.')
ENDED = re.compile(r'^\S+ Test "(.*?)"(?: with \d+ test cases?)? (?:passed|failed|skipped)')


def unfinished(lines):
    started, ended = [], set()
    for raw in lines:
        line = ANSI.sub("", raw)
        m = STARTED.match(line)
        if m:
            started.append(m.group(1))
            continue
        m = ENDED.match(line)
        if m:
            ended.add(m.group(1))
    return [name for name in dict.fromkeys(started) if name not in ended]


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: unfinished_tests.py LOG")
    with open(sys.argv[1], errors="replace") as log:
        names = unfinished(log)
    for name in names:
        print(f"  unfinished: {name}")
    print(f"{len(names)} test(s) started and not finished")


if __name__ == "__main__":
    main()
