import Foundation
import WaymarkServer

/// Collects the fence events the demo server decided, as uploads arrive, for the timeline and the
/// summary.
///
/// The server decides events on ingest (on the segment between consecutive uploaded points), so
/// they appear when the batch holding the points is acknowledged: the timeline line is placed at
/// the upload and names the time the server computed for the crossing.
struct DemoServerEvents {
    /// Fence names by id, for the timeline.
    let names: [String: String]
    /// Every event seen so far, in the server's order.
    private(set) var events: [DemoFenceEvent] = []
    private var lastSequence: Int64 = 0

    init(names: [String: String]) { self.names = names }

    /// Fetches the events stored since the last poll and returns their timeline lines, placed at `t`
    /// (virtual seconds of the upload that caused them).
    mutating func poll(_ server: DemoServer, at t: Double, epoch: Date) async throws -> [DemoTimelineEntry] {
        let records = try await server.fenceEvents(after: lastSequence)
        lastSequence = records.last?.id ?? lastSequence
        return records.map { record in
            let event = record.event
            events.append(DemoFenceEvent(fence: event.fenceID, kind: event.kind.rawValue, time: event.timestamp))
            let name = names[event.fenceID].map { " (\($0))" } ?? ""
            let at = DemoTimelineEntry.clock(event.timestamp.timeIntervalSince(epoch))
            return DemoTimelineEntry(t: t, kind: .fence, text: "server: \(event.kind.rawValue) \(event.fenceID)\(name), crossed at \(at)")
        }
    }
}
