import Foundation
import NIOCore
import WaymarkGeo
import WaymarkTransport

/// The fast path for native batches: reads `{"locations":[Feature…]}` straight from the bytes into
/// ``PositionCandidate``s, without building a JSON object tree (Foundation's `JSONSerialization`
/// takes ~40 ms for a 500-point batch on Linux; this takes well under 1 ms).
///
/// It handles the shape clients send and gives up (returns nil) on anything else — escapes or non-ASCII
/// text in strings, numbers as strings, missing geometry, duplicate keys, invalid JSON — so that the
/// general path (`JSONBody` + ``OverlandDecoder``) decides those, with its error messages. Where
/// it succeeds, its result equals the general path's (`waymark-bench fuzz` checks both on every body).
struct NativeBatchScanner {
    private let b: UnsafeRawBufferPointer
    private var i = 0

    /// The candidates of a native batch body, or nil to use the general decoder (also when the body has
    /// more than `limits.maxEntries` features: the general path refuses it with its own message).
    static func decode(_ buffer: ByteBuffer, limits: DecodeLimits = DecodeLimits()) -> DecodedBody? {
        buffer.withUnsafeReadableBytes { bytes in
            var scanner = NativeBatchScanner(b: bytes, maxFeatures: limits.maxEntries)
            return scanner.root()
        }
    }

    private let maxFeatures: Int

    private init(b: UnsafeRawBufferPointer, maxFeatures: Int) {
        self.b = b
        self.maxFeatures = maxFeatures
    }

    // MARK: structure

    private mutating func root() -> DecodedBody? {
        guard consume(UInt8(ascii: "{")) else { return nil }
        var body: DecodedBody?
        var members = Members()
        while let key = nextMember(&members) {
            if key == .locations {
                guard body == nil, let features = locations() else { return nil }
                body = DecodedBody(candidates: features)
            } else {
                guard skipValue(depth: 0) else { return nil }
            }
        }
        guard members.isComplete else { return nil }
        skipWhitespace()
        return i == b.count ? body : nil
    }

    private mutating func locations() -> [PositionCandidate]? {
        guard consume(UInt8(ascii: "[")) else { return nil }
        var features: [PositionCandidate] = []
        features.reserveCapacity(min(b.count / 150, 100_000))
        if consume(UInt8(ascii: "]")) { return features }
        repeat {
            guard features.count < maxFeatures, let feature = feature() else { return nil }
            features.append(feature)
        } while consume(UInt8(ascii: ","))
        return consume(UInt8(ascii: "]")) ? features : nil
    }

    private mutating func feature() -> PositionCandidate? {
        guard consume(UInt8(ascii: "{")) else { return nil }
        var c = PositionCandidate()
        c.names = .init(latitude: "geometry.coordinates[1]", longitude: "geometry.coordinates[0]",
                        timestamp: "properties.timestamp")
        c.source = .fused
        var coordinateAltitude: Double?
        var properties = Properties()
        var members = Members()
        while let key = nextMember(&members) {
            switch key {
            case .geometry:
                guard let coordinates = geometry() else { return nil }
                c.longitude = coordinates[0]
                c.latitude = coordinates[1]
                if coordinates.count >= 3 { coordinateAltitude = coordinates[2] }
            case .properties:
                guard let p = self.properties() else { return nil }
                properties = p
            default:
                guard skipValue(depth: 0) else { return nil }
            }
        }
        guard members.isComplete, members.seen & (1 << Key.geometry.rawValue) != 0 else { return nil }
        c.timestamp = properties.timestamp
        c.altitude = properties.altitude ?? coordinateAltitude
        c.speed = properties.speed
        c.course = properties.course
        c.horizontalAccuracy = properties.horizontalAccuracy
        c.verticalAccuracy = properties.verticalAccuracy
        c.batteryLevel = properties.batteryLevel
        switch properties.batteryState {
        case "charging", "full": c.isCharging = true
        case "unplugged": c.isCharging = false
        default: break
        }
        // `motion: []` is "no motion data"; `activity` is then Overland's setting, not an observation.
        c.activity = properties.hasMotion ? properties.motion : properties.activity
        c.simulatedBySoftware = properties.simulatedBySoftware
        c.producedByAccessory = properties.producedByAccessory
        c.impliesImpossibleSpeed = properties.impossibleSpeed ?? false
        return c
    }

    /// `{"type":…,"coordinates":[lon,lat,…]}` with at least two numbers.
    private mutating func geometry() -> [Double]? {
        guard consume(UInt8(ascii: "{")) else { return nil }
        var coordinates: [Double]?
        var members = Members()
        while let key = nextMember(&members) {
            if key == .coordinates {
                guard coordinates == nil, consume(UInt8(ascii: "[")) else { return nil }
                var values: [Double] = []
                if !consume(UInt8(ascii: "]")) {
                    repeat {
                        guard let v = number() else { return nil }
                        values.append(v)
                    } while consume(UInt8(ascii: ","))
                    guard consume(UInt8(ascii: "]")) else { return nil }
                }
                coordinates = values
            } else {
                guard skipValue(depth: 0) else { return nil }
            }
        }
        guard members.isComplete, let coordinates, coordinates.count >= 2 else { return nil }
        return coordinates
    }

    private struct Properties {
        var timestamp: Date?
        var altitude, speed, course, horizontalAccuracy, verticalAccuracy, batteryLevel: Double?
        var batteryState, motion, activity: String?
        var hasMotion = false
        var simulatedBySoftware, producedByAccessory, impossibleSpeed: Bool?
    }

    private mutating func properties() -> Properties? {
        guard consume(UInt8(ascii: "{")) else { return nil }
        var p = Properties()
        var members = Members()
        while let key = nextMember(&members) {
            switch key {
            case .timestamp:
                if peek() == UInt8(ascii: "\"") {
                    guard let text = string(), let date = TimestampParser.date(from: text) else { return nil }
                    p.timestamp = date
                } else {
                    guard let value = number(), let date = TimestampParser.date(epoch: value) else { return nil }
                    p.timestamp = date
                }
            case .altitude: guard nullableNumber(&p.altitude) else { return nil }
            case .speed: guard nullableNumber(&p.speed) else { return nil }
            case .course: guard nullableNumber(&p.course) else { return nil }
            case .horizontalAccuracy: guard nullableNumber(&p.horizontalAccuracy) else { return nil }
            case .verticalAccuracy: guard nullableNumber(&p.verticalAccuracy) else { return nil }
            case .batteryLevel: guard nullableNumber(&p.batteryLevel) else { return nil }
            case .batteryState: guard nullableString(&p.batteryState) else { return nil }
            case .activity: guard nullableString(&p.activity) else { return nil }
            case .simulatedBySoftware: guard nullableBool(&p.simulatedBySoftware) else { return nil }
            case .producedByAccessory: guard nullableBool(&p.producedByAccessory) else { return nil }
            case .impossibleSpeed: guard nullableBool(&p.impossibleSpeed) else { return nil }
            case .waymarkKind: return nil   // a gap marker (or another kind): the general decoder reads those
            case .action, .type: return nil  // an Overland app event, visit or trip summary: a device event
            case .motion:
                guard consume(UInt8(ascii: "[")) else { return nil }
                p.hasMotion = true
                if !consume(UInt8(ascii: "]")) {
                    guard let firstMotion = string() else { return nil }
                    p.motion = firstMotion
                    while consume(UInt8(ascii: ",")) { guard skipValue(depth: 1) else { return nil } }
                    guard consume(UInt8(ascii: "]")) else { return nil }
                }
            default:
                guard skipValue(depth: 0) else { return nil }
            }
        }
        return members.isComplete ? p : nil
    }

    // MARK: keys

    private enum Key: Int {
        case locations, geometry, properties, coordinates, timestamp, altitude, speed, course
        case horizontalAccuracy, verticalAccuracy, batteryLevel, batteryState, motion, activity, waymarkKind, action, type
        case simulatedBySoftware, producedByAccessory, impossibleSpeed, other
    }

    private static let keys: [(bytes: [UInt8], key: Key)] = {
        let names: [(String, Key)] = [
            ("locations", .locations), ("geometry", .geometry), ("properties", .properties), ("coordinates", .coordinates),
            ("timestamp", .timestamp), ("altitude", .altitude), ("speed", .speed), ("course", .course),
            ("horizontal_accuracy", .horizontalAccuracy), ("vertical_accuracy", .verticalAccuracy),
            ("battery_level", .batteryLevel), ("battery_state", .batteryState), ("motion", .motion), ("activity", .activity),
            (NativeBatchFormat.kindProperty, .waymarkKind), ("action", .action), ("type", .type),
            ("simulated_by_software", .simulatedBySoftware), ("produced_by_accessory", .producedByAccessory),
            ("impossible_speed", .impossibleSpeed),
        ]
        return names.map { (Array($0.0.utf8), $0.1) }
    }()

    /// Where the reading of one object's members stands (see ``nextMember(_:)``).
    private struct Members {
        var first = true
        /// The known keys read so far, one bit per ``Key``.
        var seen: UInt32 = 0
        /// True once the closing `}` was read; false when the loop stopped at malformed text.
        var isComplete = false
    }

    /// The next member's key of an object whose `{` is consumed, with its `:` consumed; nil after the
    /// closing `}` (then `members.isComplete`) or at text that is not such an object or repeats a known key
    /// (a repeated key, at any level, is left to the general decoder).
    private mutating func nextMember(_ members: inout Members) -> Key? {
        if consume(UInt8(ascii: "}")) {
            members.isComplete = true
            return nil
        }
        if !members.first { guard consume(UInt8(ascii: ",")) else { return nil } }
        members.first = false
        guard let key = key(), key == .other || members.seen & (1 << key.rawValue) == 0 else { return nil }
        members.seen |= 1 << key.rawValue
        return key
    }

    /// A key and its colon; nil for an invalid or escaped key.
    private mutating func key() -> Key? {
        guard let range = rawString(), consume(UInt8(ascii: ":")) else { return nil }
        let length = range.count
        for (bytes, key) in Self.keys where bytes.count == length {
            if bytes.withUnsafeBytes({ memcmp($0.baseAddress!, b.baseAddress! + range.lowerBound, length) }) == 0 { return key }
        }
        return .other
    }

    // MARK: values

    private mutating func skipWhitespace() {
        while i < b.count {
            switch b[i] {
            case 0x20, 0x0A, 0x0D, 0x09: i += 1
            default: return
            }
        }
    }

    private mutating func consume(_ byte: UInt8) -> Bool {
        skipWhitespace()
        guard i < b.count, b[i] == byte else { return false }
        i += 1
        return true
    }

    private mutating func peek() -> UInt8? {
        skipWhitespace()
        return i < b.count ? b[i] : nil
    }

    /// The byte range of a string's contents; nil for escapes, control characters, non-ASCII bytes
    /// (Foundation drops a leading U+FEFF from strings and keys; the general path keeps that behaviour)
    /// or no string.
    private mutating func rawString() -> Range<Int>? {
        guard consume(UInt8(ascii: "\"")) else { return nil }
        let start = i
        while i < b.count {
            let c = b[i]
            if c == UInt8(ascii: "\"") {
                i += 1
                return start..<(i - 1)
            }
            if c == UInt8(ascii: "\\") || c < 0x20 || c >= 0x80 { return nil }
            i += 1
        }
        return nil
    }

    private mutating func string() -> String? {
        guard let range = rawString() else { return nil }
        return String(decoding: UnsafeRawBufferPointer(rebasing: b[range]), as: UTF8.self)
    }

    private mutating func literal(_ text: StaticString) -> Bool {
        skipWhitespace()
        let n = text.utf8CodeUnitCount
        guard i + n <= b.count, memcmp(b.baseAddress! + i, text.utf8Start, n) == 0 else { return false }
        i += n
        return true
    }

    private mutating func nullableNumber(_ value: inout Double?) -> Bool {
        if literal("null") { value = nil; return true }
        guard let v = number() else { return false }
        value = v
        return true
    }

    /// `true`, `false` or `null` (nil); anything else is left to the general decoder (which ignores it).
    private mutating func nullableBool(_ value: inout Bool?) -> Bool {
        if literal("null") { value = nil; return true }
        if literal("true") { value = true; return true }
        if literal("false") { value = false; return true }
        return false
    }

    private mutating func nullableString(_ value: inout String?) -> Bool {
        if literal("null") { value = nil; return true }
        guard let s = string() else { return false }
        value = s
        return true
    }

    /// A JSON number (strict grammar), finite; nil otherwise.
    private mutating func number() -> Double? {
        skipWhitespace()
        let start = i
        var negative = false
        if i < b.count, b[i] == UInt8(ascii: "-") { negative = true; i += 1 }
        var mantissa: UInt64 = 0, digits = 0, exponent = 0
        let intStart = i
        while i < b.count, b[i] &- 48 < 10 {
            if digits < 19 { mantissa = mantissa * 10 + UInt64(b[i] - 48); digits += mantissa == 0 ? 0 : 1 } else { exponent += 1 }
            i += 1
        }
        let intDigits = i - intStart
        guard intDigits > 0, !(intDigits > 1 && b[intStart] == UInt8(ascii: "0")) else { return nil }
        if i < b.count, b[i] == UInt8(ascii: ".") {
            i += 1
            let fracStart = i
            while i < b.count, b[i] &- 48 < 10 {
                if digits < 19 { mantissa = mantissa * 10 + UInt64(b[i] - 48); digits += mantissa == 0 ? 0 : 1; exponent -= 1 }
                i += 1
            }
            guard i > fracStart else { return nil }
        }
        var hasExponent = false
        if i < b.count, b[i] | 0x20 == UInt8(ascii: "e") {
            hasExponent = true
            i += 1
            if i < b.count, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") { i += 1 }
            let expStart = i
            while i < b.count, b[i] &- 48 < 10 { i += 1 }
            guard i > expStart else { return nil }
        }
        // Exact fast path (Clinger): ≤ 15 significant digits and |exponent| ≤ 22.
        if !hasExponent, digits <= 15, mantissa < (1 << 53), exponent >= -22, exponent <= 0 {
            let value = Double(mantissa) / Self.powersOfTen[-exponent]
            return negative ? -value : value
        }
        let length = i - start
        guard length < 64 else { return nil }
        var buffer = [CChar](repeating: 0, count: length + 1)
        for j in 0..<length { buffer[j] = CChar(bitPattern: b[start + j]) }
        let value = strtod(buffer, nil)
        return value.isFinite ? value : nil
    }

    private static let powersOfTen: [Double] = (0...22).map { pow(10, Double($0)) }

    /// Skips any JSON value (nesting at most 64 deep).
    private mutating func skipValue(depth: Int) -> Bool {
        guard depth < 64, let c = peek() else { return false }
        switch c {
        case UInt8(ascii: "\""): return rawString() != nil
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            let close = c == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]")
            i += 1
            if consume(close) { return true }
            repeat {
                if close == UInt8(ascii: "}") { guard rawString() != nil, consume(UInt8(ascii: ":")) else { return false } }
                guard skipValue(depth: depth + 1) else { return false }
            } while consume(UInt8(ascii: ","))
            return consume(close)
        case UInt8(ascii: "t"): return literal("true")
        case UInt8(ascii: "f"): return literal("false")
        case UInt8(ascii: "n"): return literal("null")
        default: return number() != nil
        }
    }
}
