import Foundation
import NIOCore

/// Decodes and validates one ingest request body exactly as the server would, without storing it.
///
/// For tooling: checking what a client sends, and fuzzing the decoders in-process
/// (`waymark bench fuzz`). A pure function of its inputs; safe from any thread.
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
        /// Why the other points would be rejected.
        public var problems: [PointProblem]
    }

    /// Decodes and validates `body` as `format`, with `now` as the server clock.
    /// - throws: ``ServerError`` with a 4xx code (``ServerError/Code/malformedBody`` for an
    ///   unparsable body), as the route would answer.
    public static func check(_ body: [UInt8], format: Format, now: Date) throws -> Result {
        let decoded: DecodedBody
        switch format {
        case .native: decoded = try OverlandDecoder.decode(try JSONBody.parse(ByteBuffer(bytes: body)))
        case .ownTracks: decoded = try OwnTracksDecoder.decode(try JSONBody.parse(ByteBuffer(bytes: body))).body
        case .traccarJSON: decoded = try TraccarJSONDecoder.decode(try JSONBody.parse(ByteBuffer(bytes: body)))
        case .osmAnd: decoded = OsmAndDecoder.decode(FormFields(String(decoding: body, as: UTF8.self)), receivedAt: now)
        }
        let (positions, problems) = PositionValidator(now: now).validate(decoded.candidates, deviceID: "check")
        return Result(valid: positions.count, problems: problems)
    }
}
