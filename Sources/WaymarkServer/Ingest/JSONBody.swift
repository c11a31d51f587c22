import Foundation
import NIOCore

/// Parses JSON request bodies and reads loosely-typed values from them.
enum JSONBody {
    /// Parses `buffer` as JSON, after checking with a linear scan that it holds at most
    /// `limits.maxJSONValues` values (parsing builds an object per value, several hundred bytes each).
    /// - throws: ``ServerError`` ``ServerError/Code/malformedBody`` naming where the parser stopped;
    ///   ``ServerError/Code/payloadTooLarge`` for too many values.
    static func parse(_ buffer: ByteBuffer, limits: DecodeLimits = DecodeLimits()) throws -> Any {
        guard buffer.readableBytes > 0 else { throw ServerError(.malformedBody, "the body is empty; expected JSON") }
        if let count = valueCount(buffer, exceeding: limits.maxJSONValues) {
            throw ServerError(.payloadTooLarge, "the body holds more than \(limits.maxJSONValues) JSON values (\(count) seen "
                              + "before the scan stopped); send smaller batches, or the native batch format")
        }
        let data = Data(buffer.readableBytesView)
        do {
            return try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        } catch {
            let full = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? "\(error)"
            // The parser's message may repeat a whole literal of the body (a number of 9 million digits):
            // it is cut like every other client value an error repeats.
            let detail = full.utf8.count > 4 * ClientText.echoLimit
                ? ClientText.truncated(full, maxBytes: 4 * ClientText.echoLimit) + "… (\(full.utf8.count) bytes)" : full
            throw ServerError(.malformedBody, "the body is not valid JSON\(errorPosition(full, in: data)): \(detail)")
        }
    }

    /// An upper bound of the number of JSON values in `buffer` (one per `,`, `[` and `{` outside strings,
    /// plus one) when it exceeds `limit`, or nil when it does not. Linear, allocation-free, and it stops as
    /// soon as the limit is passed; the text need not be valid JSON.
    static func valueCount(_ buffer: ByteBuffer, exceeding limit: Int) -> Int? {
        guard limit < buffer.readableBytes else { return nil }  // each value takes at least one byte
        return buffer.withUnsafeReadableBytes { bytes -> Int? in
            var count = 1, inString = false, escaped = false
            for byte in bytes {
                if inString {
                    if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
                    continue
                }
                switch byte {
                case UInt8(ascii: "\""): inString = true
                case UInt8(ascii: ","), UInt8(ascii: "["), UInt8(ascii: "{"):
                    count += 1
                    if count > limit { return count }
                default: break
                }
            }
            return nil
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

    /// Whether `byte` is JSON whitespace.
    static func isWhitespace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 }

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
    static func isBoolean(_ n: NSNumber) -> Bool { ObjectIdentifier(type(of: n)) == booleanClass }
}
