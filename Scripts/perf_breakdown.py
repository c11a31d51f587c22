#!/usr/bin/env python3
"""Splits a `perf record -g` profile of `waymark serve` into the stages of an ingest request.

Usage: perf script -i perf.data | swift demangle --simplified | Scripts/perf_breakdown.py CPU_MS_PER_MESSAGE

Each sample is given to one stage: the stage of highest priority among all frames of its call chain
(so an SQLite call made to save the fence state counts as fence evaluation, and the fsync of a commit
as the sync). Prints a markdown table: share of samples and CPU milliseconds per message.
"""
import re
import sys

# (stage, pattern); earlier entries win when a chain matches several.
STAGES = [
    ("store: sync to disk", r"\bfdatasync\b|\bfsync\b"),
    ("auth (token digest, device lookup)", r"\bAuthenticator\b|\bTokenHasher\b|DeviceTokenCache"),
    ("decoding (JSON, form)", r"JSONSerialization|\bJSONBody\b|OwnTracksDecoder|OsmAndDecoder|TraccarJSONDecoder|OverlandDecoder|NativeBatchScanner|FormFields"),
    ("validation", r"PositionValidator"),
    ("fence evaluation and state", r"FenceEngine|fenceState|saveFenceState|fenceEngine\(|FenceCache|DeviceFenceState"),
    ("metrics", r"MetricsMiddleware|ServerMetrics|Prometheus"),
    ("store: SQL and commit", r"SQLiteStore|sqlite3|GRDB|IngestGroups|PostgresStore|PostgresNIO"),
    ("reply (response, encode, write)", r"HTTPResponseEncoder|writeToSocket|Response\.init|JSONReply|flushNow|NIOAsyncChannelHandler._doOutboundWrites|__GI___writev|\bwritev\b"),
    ("HTTP request (read, parse, route, body)", r"HTTPDecoder|readFromSocket|llhttp|RouterResponder|RouterTrie|HTTPChannelHandler|Routes\.body|collect\(upTo|HTTP1ToHTTPServerCodec|ConnectionGuard|NoSniffMiddleware"),
    ("scheduling and thread hand-offs", r"futex|finish_task_switch|__schedule|epoll_wait|swift_task_switch|_dispatch_|sem_post|sem_wait|swift_task_enqueue|swift_job_run"),
]
COMPILED = [(name, re.compile(p)) for name, p in STAGES]


def samples(lines):
    frames = []
    for line in lines:
        if not line.strip():
            if frames:
                yield frames
            frames = []
        elif line.startswith(("\t", " ")):
            frames.append(line.strip())
    if frames:
        yield frames


def main():
    cpu_ms = float(sys.argv[1]) if len(sys.argv) > 1 else None
    counts = {name: 0 for name, _ in STAGES}
    counts["other (runtime, allocation, NIO)"] = 0
    total = 0
    for frames in samples(sys.stdin):
        total += 1
        chain = "\n".join(frames)
        for name, pattern in COMPILED:
            if pattern.search(chain):
                counts[name] += 1
                break
        else:
            counts["other (runtime, allocation, NIO)"] += 1
    if total == 0:
        sys.exit("no samples")
    print("| stage | share of CPU samples | CPU ms per message |")
    print("|---|---:|---:|")
    for name, count in counts.items():
        share = count / total
        ms = f"{share * cpu_ms:.3f}" if cpu_ms is not None else "–"
        print(f"| {name} | {share * 100:.1f}% | {ms} |")
    print(f"| **all** ({total} samples) | 100% | {cpu_ms if cpu_ms is not None else '–'} |")


if __name__ == "__main__":
    main()
