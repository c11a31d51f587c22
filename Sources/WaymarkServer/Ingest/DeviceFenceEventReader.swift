import Foundation
import WaymarkTransport

/// Reads a Waymark device's own geofence event: a native-format feature without geometry whose
/// properties say `"waymark_kind":"fence_event"` (see `NativeBatchFormat.FenceEvent`).
///
/// A valid one becomes a ``DeviceEventRecord`` of kind ``DeviceEventRecord/deviceFenceEventKind``
/// whose detail is the feature's properties: stored apart from the events the server decides from
/// points, and de-duplicated like every device event (a resent copy has the same bytes). One that
/// lacks what makes it an event (the fence, what happened, when) is refused at its index with the
/// field named, as a point would be; the rest of the request is kept.
enum DeviceFenceEventReader {
    /// What a fence-event feature is.
    enum Read {
        /// A valid event.
        case event(EventCandidate)
        /// A refused one: a candidate that carries only its problems.
        case refused(PositionCandidate)
    }

    /// Most UTF-8 bytes of a fence identifier (as for fences the server holds).
    static let maxFenceIDBytes = 200

    /// The event kinds a device decides.
    static let kinds: Set<String> = ["enter", "exit", "dwell"]

    /// The read feature, or nil when `item` is not a fence-event feature.
    static func read(_ item: Any) -> Read? {
        guard let feature = item as? [String: Any], let p = feature["properties"] as? [String: Any],
              p[NativeBatchFormat.kindProperty] as? String == NativeBatchFormat.fenceEventKind else { return nil }
        var problems: [(field: String, message: String)] = []
        func problem(_ name: String, _ message: String) { problems.append(("properties.\(name)", message)) }
        if !((p["fence_id"] as? String).map { ClientText.fits($0, maxBytes: maxFenceIDBytes) } ?? false) {
            problem("fence_id", "missing or not a string of 1 to \(maxFenceIDBytes) bytes; a fence event names its fence")
        }
        if !((p["event"] as? String).map(kinds.contains) ?? false) {
            problem("event", "\(ClientText.quoted(p["event"] ?? "nothing")) is not one of enter, exit, dwell")
        }
        let time = p["time"].flatMap(JSONBody.date)
        if time == nil { problem("time", "missing or not an ISO-8601 time; a fence event needs the time of the crossing") }
        for name in ["earliest", "latest", "delivered_at"] where p[name] != nil && JSONBody.date(p[name]) == nil {
            problem(name, "\(ClientText.quoted(p[name] ?? "")) is not an ISO-8601 time")
        }
        if let sequence = p["sequence"], !(JSONBody.double(sequence).map { $0 >= 1 && $0 == $0.rounded() } ?? false) {
            problem("sequence", "\(ClientText.quoted(sequence)) is not a whole number of at least 1")
        }
        let latitude = JSONBody.double(p["latitude"]), longitude = JSONBody.double(p["longitude"])
        if (p["latitude"] == nil) != (p["longitude"] == nil) {
            problem(p["latitude"] == nil ? "latitude" : "longitude", "missing; a place needs both latitude and longitude")
        } else if p["latitude"] != nil {
            if !(latitude.map { (-90...90).contains($0) } ?? false) {
                problem("latitude", "\(ClientText.quoted(p["latitude"] ?? "")) is not degrees in [-90, 90]")
            }
            if !(longitude.map { (-180...180).contains($0) } ?? false) {
                problem("longitude", "\(ClientText.quoted(p["longitude"] ?? "")) is not degrees in [-180, 180]")
            }
        }
        guard problems.isEmpty else {
            var refused = PositionCandidate()
            refused.problems = problems
            refused.isOtherEntry = true
            return .refused(refused)
        }
        return .event(EventCandidate(kind: DeviceEventRecord.deviceFenceEventKind, time: time, record: p))
    }
}
