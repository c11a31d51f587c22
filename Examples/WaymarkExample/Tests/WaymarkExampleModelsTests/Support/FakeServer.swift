import Foundation
import WaymarkGeo
@testable import WaymarkExampleModels

/// A `waymark serve` stand-in: it stores fixes by timestamp (as the server does, by device and
/// millisecond), replays a known idempotency key, and fails on request.
actor FakeServer: RideUploader {
    /// Every batch received, in order.
    private(set) var received: [RideUploadBatch] = []
    /// The stored fixes' timestamps, once each.
    private(set) var storedFixes: [Date] = []
    /// Gap markers stored.
    private(set) var storedGaps = 0
    /// Fixes that arrived a second time (a duplicate the server absorbs).
    private(set) var duplicates = 0
    private var committedKeys: Set<String> = []
    /// The next uploads fail with this outcome, one per upload.
    var failures: [RideUploadOutcome] = []

    func fail(next outcomes: [RideUploadOutcome]) { failures = outcomes }

    func upload(_ batch: RideUploadBatch) async -> RideUploadOutcome {
        received.append(batch)
        if !failures.isEmpty { return failures.removeFirst() }
        guard committedKeys.insert(batch.idempotencyKey).inserted else { return .accepted(rejected: 0) }
        for record in batch.records {
            switch record {
            case .fix(let fix, _):
                if storedFixes.contains(fix.timestamp) { duplicates += 1 } else { storedFixes.append(fix.timestamp) }
            case .gap:
                storedGaps += 1
            }
        }
        return .accepted(rejected: 0)
    }
}
