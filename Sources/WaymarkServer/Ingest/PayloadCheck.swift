import Foundation
import NIOCore
import WaymarkGeo

/// Decodes and validates one ingest request body exactly as the server would, without storing it.
///
/// For tooling: checking what a client sends, and fuzzing the decoders in-process
/// (`waymark-bench fuzz`). A pure function of its inputs; safe from any thread.
///
/// ```swift
/// let result = try PayloadCheck.check(Array(body.utf8), format: .ownTracks, now: .now)
/// print(result.valid, result.problems)
/// ```
public enum PayloadCheck {
    /// The body formats ingest accepts.
    public enum Format: String, CaseIterable, Sendable {
        /// Native batch (Overland GeoJSON) to `/api/ingest`.
        case native
        /// OwnTracks HTTP to `/pub`.
        case ownTracks = "owntracks"
        /// OsmAnd query string or form body to `/`.
        case osmAnd = "osmand"
        /// Traccar Client JSON body to `/`.
        case traccarJSON = "traccar"
    }

    /// What one body decoded to.
    public struct Result: Hashable, Sendable {
        /// Points that would be stored.
        public var valid: Int
        /// Why the other points (and gap markers) would be rejected, by index.
        public var problems: [PointProblem]
        /// Gap markers that would be stored.
        public var gaps: Int
        /// Records without a position that would be stored as device events.
        public var deviceEvents = 0
    }

    /// Decodes and validates `body` as `format`, with `now` as the server clock.
    /// - throws: ``ServerError`` with a 4xx code (``ServerError/Code/malformedBody`` for an
    ///   unparsable body), as the route would answer.
    ///   `limits` are the server's per-request limits (its defaults unless given).
    public static func check(_ body: [UInt8], format: Format, now: Date,
                             limits: DecodeLimits = DecodeLimits()) throws -> Result {
        let decoded: DecodedBody
        switch format {
        case .native:
            let buffer = ByteBuffer(bytes: body)
            decoded = try NativeBatchScanner.decode(buffer, limits: limits)
                ?? OverlandDecoder.decode(try JSONBody.parse(buffer, limits: limits), limits: limits)
        case .ownTracks:
            decoded = try OwnTracksDecoder.decode(try JSONBody.parse(ByteBuffer(bytes: body), limits: limits), limits: limits)
        case .traccarJSON:
            decoded = try TraccarJSONDecoder.decode(try JSONBody.parse(ByteBuffer(bytes: body), limits: limits), limits: limits)
        case .osmAnd:
            decoded = OsmAndDecoder.decode(try FormFields(String(decoding: body, as: UTF8.self), limits: limits), receivedAt: now)
        }
        let outcome = PositionValidator(now: now).validate(decoded.candidates, deviceID: "check")
        var result = Result(valid: outcome.positions.count, problems: outcome.rejections.sample, gaps: outcome.gaps.count)
        result.deviceEvents = decoded.events.count
        return result
    }

    /// For fuzzing: where the native fast path accepts `body`, whether the general decoder reads
    /// exactly the same points; returns a description of the first difference, or nil.
    public static func nativeFastPathMismatch(_ body: [UInt8]) -> String? {
        let buffer = ByteBuffer(bytes: body)
        let limits = DecodeLimits(maxEntries: .max, maxJSONValues: .max)
        guard let fast = NativeBatchScanner.decode(buffer, limits: limits) else { return nil }
        let general: DecodedBody
        do {
            general = try OverlandDecoder.decode(try JSONBody.parse(buffer, limits: limits), limits: limits)
        } catch {
            return "the fast path accepted a body the general decoder rejects: \(error)"
        }
        guard fast.candidates.count == general.candidates.count else {
            return "\(fast.candidates.count) points on the fast path, \(general.candidates.count) on the general one"
        }
        for (index, (a, b)) in zip(fast.candidates, general.candidates).enumerated() {
            if !a.agrees(with: b) { return "point \(index): fast \(a.comparable), general \(b.comparable)" }
        }
        return nil
    }
}

extension PositionCandidate {
    /// Whether two decoders read the same point. Numbers may differ in the last bits: Foundation's
    /// `JSONSerialization` on Linux does not round every decimal correctly (`1e26` reads as
    /// `9.999999999999999e25`), while the fast path does (exactly, or through `strtod`).
    func agrees(with other: PositionCandidate) -> Bool {
        func close(_ x: Double?, _ y: Double?) -> Bool {
            guard let x, let y else { return x == nil && y == nil }
            return x == y || abs(x - y) <= 1e-12 * max(abs(x), abs(y))
        }
        let mine = [latitude, longitude, altitude, horizontalAccuracy, verticalAccuracy, speed, course, batteryLevel,
                    timestamp?.timeIntervalSince1970]
        let theirs = [other.latitude, other.longitude, other.altitude, other.horizontalAccuracy, other.verticalAccuracy,
                      other.speed, other.course, other.batteryLevel, other.timestamp?.timeIntervalSince1970]
        guard zip(mine, theirs).allSatisfy(close) else { return false }
        let textMine = [isCharging.map { "\($0)" }, activity, source.rawValue, names.latitude, names.longitude, names.timestamp,
                        "\(negativeVerticalAccuracyVoidsAltitude)"]
        let textTheirs = [other.isCharging.map { "\($0)" }, other.activity, other.source.rawValue, other.names.latitude,
                          other.names.longitude, other.names.timestamp, "\(other.negativeVerticalAccuracyVoidsAltitude)"]
        // A gap marker on one side must be the same gap marker on the other.
        let gapMine = gap.map { [$0.rideID, $0.reason, $0.start.map { "\($0.timeIntervalSince1970)" },
                                 $0.end.map { "\($0.timeIntervalSince1970)" }] }
        let gapTheirs = other.gap.map { [$0.rideID, $0.reason, $0.start.map { "\($0.timeIntervalSince1970)" },
                                         $0.end.map { "\($0.timeIntervalSince1970)" }] }
        return gapMine == gapTheirs && textMine == textTheirs && problems.map(\.field) == other.problems.map(\.field)
            && problems.map(\.message) == other.problems.map(\.message)
    }

    /// Every field as text (NaN-safe), for comparing two decoders' output.
    var comparable: String {
        let numbers = [latitude, longitude, altitude, horizontalAccuracy, verticalAccuracy, speed, course, batteryLevel]
            .map { $0.map { "\($0 == 0 ? 0 : $0)" } ?? "nil" }
        return (numbers + [timestamp.map { "\($0.timeIntervalSince1970)" } ?? "nil", isCharging.map { "\($0)" } ?? "nil",
                activity ?? "nil", source.rawValue, names.latitude, names.longitude, names.timestamp,
                problems.map { "\($0.field): \($0.message)" }.joined(separator: "; ")]).joined(separator: " ")
    }
}
