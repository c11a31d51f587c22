/// The rejected entries of one ingest request, summarised in bounded memory.
///
/// Every rejected entry (point or gap marker) is counted, by the fields at fault; only the problems of
/// the first ``sampleLimit`` rejected entries are kept, with their positions in the request. So a
/// request of a million invalid entries costs a counter, not a million messages: its reply stays small.
/// Problems must be added in request order (entry by entry).
public struct Rejections: Hashable, Sendable {
    /// Rejected entries whose problems are kept in ``sample``.
    public let sampleLimit: Int
    /// Every problem of the first ``sampleLimit`` rejected entries, in request order.
    public private(set) var sample: [PointProblem] = []
    /// How many entries were rejected in all.
    public private(set) var count = 0
    /// How many rejected entries each field was at fault in (an entry counts once per field).
    public private(set) var byField: [String: Int] = [:]
    private var lastIndex = -1
    private var lastFields: [String] = []

    /// An empty summary keeping the problems of up to `sampleLimit` entries.
    public init(sampleLimit: Int) {
        self.sampleLimit = max(0, sampleLimit)
    }

    /// Whether some rejected entries are counted but not listed in ``sample``.
    public var isTruncated: Bool { count > sampleLimit }

    /// Records a problem of the entry at `index`; the message is only built when it is kept.
    public mutating func add(index: Int, field: String, message: @autoclosure () -> String) {
        if index != lastIndex {
            count += 1
            lastIndex = index
            lastFields.removeAll(keepingCapacity: true)
        }
        if !lastFields.contains(field) {
            lastFields.append(field)
            byField[field, default: 0] += 1
        }
        if count <= sampleLimit { sample.append(PointProblem(index: index, field: field, message: message())) }
    }

    /// A one-line summary of at most about `maxBytes` bytes (for a response header such as `X-Waymark-Rejected`).
    public func headerSummary(maxBytes: Int = 1_024) -> String {
        var text = "\(count) rejected"
        for problem in sample {
            let next = "; " + problem.description
            if text.utf8.count + next.utf8.count > maxBytes - 24 {
                text += "; …"
                break
            }
            text += next
        }
        return ClientText.truncated(text, maxBytes: maxBytes)
    }
}
