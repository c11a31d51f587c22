import Foundation
import NIOCore

/// Parses JSON request bodies and reads loosely-typed values from them.
enum JSONBody {
    /// Parses `buffer` as JSON.
    /// - throws: ``ServerError`` ``ServerError/Code/malformedBody`` naming where the parser stopped.
    static func parse(_ buffer: ByteBuffer) throws -> Any {
        let data = Data(buffer.readableBytesView)
        guard !data.isEmpty else { throw ServerError(.malformedBody, "the body is empty; expected JSON") }
        do {
            return try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        } catch {
            let detail = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? "\(error)"
            throw ServerError(.malformedBody, "the body is not valid JSON\(errorPosition(detail, in: data)): \(detail)")
        }
    }

    /// " at line L, column C" for a parser message "… around character N.", or "".
    static func errorPosition(_ message: String, in data: Data) -> String {
        guard let range = message.range(of: "character "),
              let offset = Int(message[range.upperBound...].prefix { $0.isNumber }) else { return "" }
        var line = 1, column = 1
        for byte in data.prefix(offset) {
            if byte == 10 { line += 1; column = 1 } else { column += 1 }
        }
        return " at line \(line), column \(column)"
    }

    /// A number given as a JSON number or a numeric string; nil for anything else (booleans included).
    static func double(_ value: Any?) -> Double? {
        switch value {
        case let n as NSNumber: return isBoolean(n) ? nil : n.doubleValue
        case let s as String: return Double(s.trimmingCharacters(in: .whitespaces))
        default: return nil
        }
    }

    /// A boolean given as `true`/`false`, 1/0 or a string of those.
    static func bool(_ value: Any?) -> Bool? {
        switch value {
        case let n as NSNumber: return n.doubleValue != 0
        case let s as String:
            switch s.lowercased() {
            case "true", "1", "yes": return true
            case "false", "0", "no": return false
            default: return nil
            }
        default: return nil
        }
    }

    /// A string value, or the description of a number.
    static func string(_ value: Any?) -> String? {
        switch value {
        case let s as String: return s
        case let n as NSNumber: return n.stringValue
        default: return nil
        }
    }

    /// A timestamp given as epoch seconds/milliseconds (number or string) or ISO-8601 text.
    static func date(_ value: Any?) -> Date? {
        if let s = value as? String { return TimestampParser.date(from: s) }
        return double(value).flatMap(TimestampParser.date(epoch:))
    }

    private static let booleanClass = ObjectIdentifier(type(of: NSNumber(value: true)))

    /// Whether JSONSerialization produced this number from `true`/`false`.
    private static func isBoolean(_ n: NSNumber) -> Bool { ObjectIdentifier(type(of: n)) == booleanClass }
}
