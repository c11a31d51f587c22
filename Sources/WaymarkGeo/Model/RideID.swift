import Foundation

/// The name of a ride, the one identifier type from the engine to the device store, the upload
/// and the server's gap markers.
///
/// Any non-empty string the app chooses; ``init()`` makes a fresh UUID string. A string literal is
/// a ride ID, so `engine.ride.start(rideID: "morning")` reads as it should. It encodes as its plain
/// string, so stored snapshots and the store's rows read the same as when the ID was a `String`.
///
/// ```swift
/// let id = RideID()                       // "6F9619FF-8B86-D011-B42D-00C04FC964FF"
/// await engine.ride.start(rideID: id)
/// let fixes = try store.fixes(of: id)
/// ```
public struct RideID: Hashable, Sendable, Codable, CustomStringConvertible, ExpressibleByStringInterpolation {
    /// The identifier's text, as it is stored and uploaded.
    public let rawValue: String

    /// A ride ID with the given text.
    ///
    /// - precondition: `rawValue` is not empty.
    public init(_ rawValue: String) {
        precondition(!rawValue.isEmpty, "a ride ID must not be empty")
        self.rawValue = rawValue
    }

    /// A new, unique ride ID (a UUID's string).
    public init() { rawValue = UUID().uuidString }

    /// The ride ID `value`.
    public init(stringLiteral value: String) { self.init(value) }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard !text.isEmpty else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "an empty ride ID"))
        }
        rawValue = text
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    /// The identifier's text.
    public var description: String { rawValue }
}
