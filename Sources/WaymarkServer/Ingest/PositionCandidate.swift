import Foundation
import WaymarkGeo

/// One point as a decoder read it, before validation: every field optional, SI units.
///
/// Decoders convert units (knots, km/h, percent) while filling it, and record the names
/// the client used so that problems can name the client's own fields.
struct PositionCandidate: Sendable {
    var latitude: Double?
    var longitude: Double?
    var timestamp: Date?
    var altitude: Double?
    var horizontalAccuracy: Double?
    var verticalAccuracy: Double?
    /// Whether a negative `verticalAccuracy` means the altitude is invalid (Apple's Core Location, and so
    /// Overland iOS and OwnTracks iOS) rather than only that the accuracy is unknown (the transistorsoft
    /// plugin on Android, which Overland Android uses, sends −1 beside a real altitude).
    var negativeVerticalAccuracyVoidsAltitude = true
    /// Metres per second.
    var speed: Double?
    /// Degrees clockwise from true north.
    var course: Double?
    /// Fraction in [0, 1].
    var batteryLevel: Double?
    var isCharging: Bool?
    var activity: String?
    var source: Fix.Source = .unknown
    /// The native format's `simulated_by_software` and `produced_by_accessory` (JSON booleans); nil when
    /// absent. The fix's origin is known when either is there (`Fix.SourceInformation`).
    var simulatedBySoftware: Bool?
    var producedByAccessory: Bool?
    /// The native format's `"impossible_speed":true`: the device flagged the fix (`Fix.impliesImpossibleSpeed`).
    var impliesImpossibleSpeed = false

    /// The origin the client reported: known when either flag was sent, the one not sent read as false.
    var sourceInformation: Fix.SourceInformation? {
        guard simulatedBySoftware != nil || producedByAccessory != nil else { return nil }
        return Fix.SourceInformation(isSimulatedBySoftware: simulatedBySoftware ?? false,
                                     isProducedByAccessory: producedByAccessory ?? false)
    }
    /// The client's names for latitude, longitude and time, for problem reports.
    var names = FieldNames(latitude: "latitude", longitude: "longitude", timestamp: "timestamp")
    /// Problems the decoder already found (a timestamp it could not parse…).
    var problems: [(field: String, message: String)] = []
    /// Set for an entry that is a Waymark gap marker instead of a point: validated by
    /// ``PositionValidator/validate(_:deviceID:sampleLimit:)`` as a gap marker rather than a point.
    var gap: GapFields?
    /// Set for a refused entry that is not a point (a Waymark device's fence event): only its
    /// ``problems`` are reported, not a missing position.
    var isOtherEntry = false

    /// A gap marker's properties as sent.
    struct GapFields: Sendable {
        var rideID: String?
        var start: Date?
        var end: Date?
        var reason: String?
        /// The text of `start`/`end` when it did not parse, for the problem report.
        var unreadable: [(field: String, text: String)] = []
    }

    struct FieldNames: Sendable {
        var latitude: String
        var longitude: String
        var timestamp: String
    }
}

/// A record without a position, as a decoder read it: it becomes a ``DeviceEventRecord``.
struct EventCandidate: Sendable {
    /// `<client>.<type>`, e.g. `owntracks.transition`.
    var kind: String
    /// The time the client gave the record, if any.
    var time: Date?
    /// The record as JSON text (at most ``DeviceEventRecord/maxDetailBytes``).
    var detail: String

    /// An event whose detail is `record` (a JSON object or array from the body, or a dictionary of strings)
    /// as compact JSON with sorted keys. A record larger than ``DeviceEventRecord/maxDetailBytes`` is replaced by a note of its size.
    init(kind: String, time: Date?, record: Any) {
        self.kind = ClientText.truncated(kind, maxBytes: 100)
        self.time = time
        let data = (try? JSONSerialization.data(withJSONObject: record, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        detail = data.count <= DeviceEventRecord.maxDetailBytes
            ? String(decoding: data, as: UTF8.self)
            : #"{"omitted":"the record has \#(data.count) bytes, more than the \#(DeviceEventRecord.maxDetailBytes) kept"}"#
    }
}

/// What a decoder read from one request body.
struct DecodedBody: Sendable {
    /// Points in request order.
    var candidates: [PositionCandidate] = []
    /// Records without a position, in request order.
    var events: [EventCandidate] = []
}
