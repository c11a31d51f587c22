import Foundation
import WaymarkEngine
import WaymarkGeo

/// A JSON value, for free-form overrides.
public enum JSONValue: Hashable, Sendable, Codable {
    /// A JSON number.
    case number(Double)
    /// `true` or `false`.
    case bool(Bool)
    /// A JSON string.
    case string(String)
    /// A JSON object.
    case object([String: JSONValue])
    /// A JSON array.
    case array([JSONValue])
    /// `null`.
    case null

    /// Decodes any JSON value (booleans before numbers, so `true` stays a boolean).
    ///
    /// - throws: `DecodingError` when the input is not JSON.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { self = .null }
        else if let b = try? c.decode(Bool.self) { self = .bool(b) }
        else if let n = try? c.decode(Double.self) { self = .number(n) }
        else if let s = try? c.decode(String.self) { self = .string(s) }
        else if let a = try? c.decode([JSONValue].self) { self = .array(a) }
        else { self = .object(try c.decode([String: JSONValue].self)) }
    }

    /// Encodes the value as the same JSON.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .number(let n): try c.encode(n)
        case .bool(let b): try c.encode(b)
        case .string(let s): try c.encode(s)
        case .object(let o): try c.encode(o)
        case .array(let a): try c.encode(a)
        case .null: try c.encodeNil()
        }
    }
}
