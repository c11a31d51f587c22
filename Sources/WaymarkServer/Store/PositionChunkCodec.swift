import Foundation
import WaymarkGeo

/// A stored point as a chunk keeps it: the position and when the server received it.
struct ChunkPoint: Hashable, Sendable {
    var position: Position
    var receivedMillis: Int64
    /// The storage key: the fix time in whole milliseconds.
    var millis: Int64 { position.timestampMillis }
}

/// A chunk that cannot be read: what is wrong and at which byte.
struct PositionChunkError: Error, CustomStringConvertible {
    let offset: Int
    let reason: String
    var description: String { "position chunk: \(reason) at byte \(offset)" }
}

/// The compact form of one device's points that PostgreSQL keeps its history in (``PostgresStore/compactHistory(before:)``).
///
/// A chunk holds up to ``maximumPoints`` points of one device within one UTC day, sorted by time with no
/// time twice, column by column:
/// - the times as a first value and increasing deltas;
/// - every number as a decimal when it is one: a value that a power of ten from 10⁰ to 10⁹ turns into an
///   integer *exactly* (the integer divided by the power gives back the same bits) is stored as the integer's
///   difference from the previous one, so a phone's `46.0512345` costs two or three bytes; any other value
///   (more digits, as iOS reports, or `-0.0`) as the XOR of its bits with the previous value's when that is
///   short (nearby values share sign, exponent and the high mantissa), else as its 8 raw bytes. Decoding
///   gives back every value bit for bit;
/// - a missing value (no altitude, unknown battery) as a presence bitmap, or nothing when all or none are present;
/// - the charging flag, the activity and source names as runs, and the receive times as runs of the times or
///   of their offsets from the fix times, whichever is shorter.
///
/// Every integer is a LEB128 varint, signed ones zigzag-coded. Decoding checks every length, range and
/// order and throws ``PositionChunkError`` naming the byte, never trapping on damaged input.
///
/// The first byte is the version. Version 1 is the columns above. Version 2 adds one last column, each
/// point's honesty marks (`Fix.packedFlags`: origin known, simulated by software, produced by an
/// accessory, implies an impossible speed) as runs. The encoder writes version 1 for points that carry
/// no mark, the same bytes as before marks existed, and version 2 otherwise; the decoder reads both, so
/// chunks written before the marks existed read as points with an unknown origin and no flag.
enum PositionChunkCodec {
    /// The version of chunks whose points carry no honesty mark (and of every chunk written before marks existed).
    static let version: UInt8 = 1
    /// The version with the honesty-mark column.
    static let flagsVersion: UInt8 = 2
    /// The highest value of `Fix.packedFlags` (four bits).
    static let maximumFlags: UInt64 = 15
    /// The most points one chunk holds; a day with more is split over several chunks.
    static let maximumPoints = 4096
    /// The powers of ten a decimal column may be scaled by (exact doubles).
    static let powers: [Double] = [1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9]
    /// The largest time from 1970 a chunk holds, in milliseconds (about the year 5138): a `Date` keeps every
    /// millisecond up to it exactly.
    static let timeLimit: Int64 = 100_000_000_000_000

    /// Encodes points sorted by time with no time twice (at most ``maximumPoints``).
    static func encode(_ points: [ChunkPoint]) -> [UInt8] {
        precondition(!points.isEmpty && points.count <= maximumPoints, "a chunk holds 1...\(maximumPoints) points")
        var out = ChunkWriter()
        out.bytes.reserveCapacity(points.count * 16 + 16)
        let flags = points.map { UInt64($0.position.fix.packedFlags) }
        let chunkVersion = flags.contains { $0 != 0 } ? flagsVersion : version
        out.byte(chunkVersion)
        out.varint(UInt64(points.count))
        var previous = points[0].millis
        out.signed(previous)
        for point in points.dropFirst() {
            precondition(point.millis > previous, "chunk points must be sorted by time with no time twice")
            out.varint(UInt64(point.millis - previous))
            previous = point.millis
        }
        // Receive times as runs of one of two forms, whichever is shorter: the times themselves (a batch
        // shares one) or their offsets from the fix times (one point per request arrives a steady delay after it).
        var byTime = ChunkWriter(), byOffset = ChunkWriter()
        byTime.runs(signedDeltas(points.map(\.receivedMillis)))
        byOffset.runs(points.map { zigzag($0.receivedMillis &- $0.millis) })
        let offsets = byOffset.bytes.count < byTime.bytes.count
        out.byte(offsets ? 1 : 0)
        out.bytes += offsets ? byOffset.bytes : byTime.bytes
        let fixes = points.map(\.position.fix)
        out.decimals(fixes.map(\.coordinate.latitude))
        out.decimals(fixes.map(\.coordinate.longitude))
        for column in [fixes.map(\.altitude), fixes.map(\.horizontalAccuracy), fixes.map(\.verticalAccuracy),
                       fixes.map(\.speed), fixes.map(\.course), points.map(\.position.batteryLevel)] {
            out.optionalDecimals(column)
        }
        out.runs(points.map { $0.position.isCharging.map { $0 ? 2 : 1 } ?? 0 })
        out.names(points.map(\.position.activity))
        out.names(fixes.map { $0.source.rawValue })
        if chunkVersion == flagsVersion { out.runs(flags) }
        return out.bytes
    }

    /// Decodes a chunk of `deviceID`'s points.
    static func decode(_ bytes: [UInt8], deviceID: String) throws -> [ChunkPoint] {
        var input = ChunkReader(bytes: bytes)
        let times = try input.header()
        let count = times.count
        let received: [Int64]
        switch try input.byte() {
        case 0: received = undoSignedDeltas(try input.runs(count: count))
        case 1: received = zip(times, try input.runs(count: count)).map { $0 &+ unzigzag($1) }
        case let form: throw input.error("unknown receive-time form \(form)")
        }
        let latitudes = try input.decimals(count: count), longitudes = try input.decimals(count: count)
        var optional: [[Double?]] = []
        for _ in 0..<6 { optional.append(try input.optionalDecimals(count: count)) }
        let charging = try input.runs(count: count)
        let activities = try input.names(count: count), sources = try input.names(count: count)
        let flags = input.version == flagsVersion ? try input.runs(count: count) : Array(repeating: 0, count: count)
        guard input.offset == bytes.count else { throw input.error("\(bytes.count - input.offset) bytes after the last column") }
        var points: [ChunkPoint] = []
        points.reserveCapacity(count)
        for i in 0..<count {
            guard (-90...90).contains(latitudes[i]), (-180...180).contains(longitudes[i]) else {
                throw PositionChunkError(offset: bytes.count, reason: "point \(i) lies outside latitude/longitude range")
            }
            guard charging[i] <= 2 else { throw PositionChunkError(offset: bytes.count, reason: "point \(i) has charging code \(charging[i])") }
            guard let source = sources[i] else { throw PositionChunkError(offset: bytes.count, reason: "point \(i) has no source") }
            guard flags[i] <= maximumFlags, flags[i] & 1 != 0 || flags[i] & 6 == 0 else {
                throw PositionChunkError(offset: bytes.count, reason: "point \(i) has flags \(flags[i])")
            }
            var fix = Fix(coordinate: Coordinate(uncheckedLatitude: latitudes[i], longitude: longitudes[i]),
                          altitude: optional[0][i], horizontalAccuracy: optional[1][i], verticalAccuracy: optional[2][i],
                          speed: optional[3][i], course: optional[4][i],
                          timestamp: Date(millisecondsSince1970: times[i]), source: Fix.Source(rawValue: source) ?? .unknown)
            fix.packedFlags = Int(flags[i])
            let position = Position(deviceID: deviceID, fix: fix, batteryLevel: optional[5][i],
                                    isCharging: charging[i] == 0 ? nil : charging[i] == 2, activity: activities[i])
            points.append(ChunkPoint(position: position, receivedMillis: received[i]))
        }
        return points
    }

    /// The times of a chunk's points, without decoding the rest (the duplicate check of ingest).
    static func timestamps(_ bytes: [UInt8]) throws -> [Int64] {
        var input = ChunkReader(bytes: bytes)
        return try input.header()
    }

    /// The decimal places (0...9) at which `value` is an exact scaled integer, as the integer; nil when none.
    static func scaled(_ value: Double, places: Int) -> Int64? {
        let power = powers[places]
        let k = (value * power).rounded()
        guard k.isFinite, abs(k) < 9.0e15 else { return nil }
        let integer = Int64(k)
        return (Double(integer) / power).bitPattern == value.bitPattern ? integer : nil
    }

    static func signedDeltas(_ values: [Int64]) -> [UInt64] {
        var previous: Int64 = 0
        return values.map { value in
            defer { previous = value }
            return zigzag(value &- previous)
        }
    }

    static func undoSignedDeltas(_ values: [UInt64]) -> [Int64] {
        var previous: Int64 = 0
        return values.map { value in
            previous = previous &+ unzigzag(value)
            return previous
        }
    }

    static func zigzag(_ value: Int64) -> UInt64 { UInt64(bitPattern: (value << 1) ^ (value >> 63)) }
    static func unzigzag(_ value: UInt64) -> Int64 { Int64(bitPattern: value >> 1) ^ -Int64(bitPattern: value & 1) }
}

/// Appends a chunk's bytes.
struct ChunkWriter {
    var bytes: [UInt8] = []

    mutating func byte(_ value: UInt8) { bytes.append(value) }

    mutating func varint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    mutating func signed(_ value: Int64) { varint(PositionChunkCodec.zigzag(value)) }

    /// The bytes of `value` as a varint.
    static func length(_ value: UInt64) -> Int { max(1, (64 - value.leadingZeroBitCount + 6) / 7) }

    /// Values as (value, run length) pairs after the number of runs.
    mutating func runs(_ values: [UInt64]) {
        var runs: [(value: UInt64, length: Int)] = []
        for value in values {
            if let last = runs.last, last.value == value { runs[runs.count - 1].length += 1 } else { runs.append((value, 1)) }
        }
        varint(UInt64(runs.count))
        for run in runs {
            varint(run.value)
            varint(UInt64(run.length))
        }
    }

    /// The places byte, then each value as a tagged delta of its scaled integer or as raw bits.
    mutating func decimals(_ values: [Double]) {
        var places = 0
        for value in values where places < 9 {
            if let exact = (places...9).first(where: { PositionChunkCodec.scaled(value, places: $0) != nil }) { places = max(places, exact) }
        }
        byte(UInt8(places))
        var previous: Int64 = 0, previousBits: UInt64 = 0
        for value in values {
            let bits = value.bitPattern
            defer { previousBits = bits }
            if let integer = PositionChunkCodec.scaled(value, places: places) {
                varint(PositionChunkCodec.zigzag(integer - previous) << 1)
                previous = integer
            } else if case let xor = bits ^ previousBits, xor != 0, xor < 1 << 49 || xor.trailingZeroBitCount >= 16 {
                // Close to the value before (a coordinate a few metres on), its bits differ only low in the
                // mantissa: the XOR is a short varint. A value widened from a Float (iOS's speed and course)
                // ends in 29 zero bits: the XOR is stored without its trailing zeros.
                let shift = xor.trailingZeroBitCount
                if Self.length(xor) <= 1 + Self.length(xor >> UInt64(shift)) {
                    varint(3)
                    varint(xor)
                } else {
                    varint(5)
                    byte(UInt8(shift))
                    varint(xor >> UInt64(shift))
                }
            } else {
                varint(1)
                for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift))) }
            }
        }
    }

    /// A presence mode (0 none, 1 all, 2 a bitmap follows), then the present values as ``decimals(_:)``.
    mutating func optionalDecimals(_ values: [Double?]) {
        let present = values.compactMap { $0 }
        if present.isEmpty { return byte(0) }
        if present.count == values.count { byte(1) } else {
            byte(2)
            var map = [UInt8](repeating: 0, count: (values.count + 7) / 8)
            for (i, value) in values.enumerated() where value != nil { map[i / 8] |= 1 << UInt8(i % 8) }
            bytes += map
        }
        decimals(present)
    }

    /// A dictionary of the distinct names, then runs of indices into it (0: none).
    mutating func names(_ values: [String?]) {
        var dictionary: [String] = [], index: [String: UInt64] = [:]
        let codes: [UInt64] = values.map { value in
            guard let value else { return 0 }
            if let code = index[value] { return code }
            dictionary.append(value)
            index[value] = UInt64(dictionary.count)
            return UInt64(dictionary.count)
        }
        varint(UInt64(dictionary.count))
        for name in dictionary {
            let utf8 = Array(name.utf8)
            varint(UInt64(utf8.count))
            bytes += utf8
        }
        runs(codes)
    }
}

/// Reads a chunk's bytes, throwing ``PositionChunkError`` at the first inconsistency.
struct ChunkReader {
    let bytes: [UInt8]
    var offset = 0
    /// The chunk's version, once ``header()`` read it.
    var version: UInt8 = 0

    func error(_ reason: String) -> PositionChunkError { PositionChunkError(offset: offset, reason: reason) }

    mutating func byte() throws -> UInt8 {
        guard offset < bytes.count else { throw error("the chunk ends early") }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func varint() throws -> UInt64 {
        var value: UInt64 = 0
        for shift in stride(from: 0, through: 63, by: 7) {
            let b = try byte()
            let bits = UInt64(b & 0x7F)
            guard shift < 63 || bits <= 1 else { throw error("a number overflows 64 bits") }
            value |= bits << UInt64(shift)
            if b & 0x80 == 0 { return value }
        }
        throw error("a number is longer than 10 bytes")
    }

    mutating func signed() throws -> Int64 { PositionChunkCodec.unzigzag(try varint()) }

    /// A count no larger than `limit`.
    mutating func count(atMost limit: Int, of what: String) throws -> Int {
        let value = try varint()
        guard value <= UInt64(limit) else { throw error("\(what) \(value) exceeds \(limit)") }
        return Int(value)
    }

    /// The version, the point count and the times.
    mutating func header() throws -> [Int64] {
        let found = try byte()
        guard found == PositionChunkCodec.version || found == PositionChunkCodec.flagsVersion else {
            throw error("unknown chunk version \(found)")
        }
        version = found
        let count = try count(atMost: PositionChunkCodec.maximumPoints, of: "point count")
        guard count > 0 else { throw error("a chunk without points") }
        var times = [try signed()]
        times.reserveCapacity(count)
        for _ in 1..<count {
            let delta = try varint()
            let (next, overflow) = times[times.count - 1].addingReportingOverflow(Int64(truncatingIfNeeded: delta))
            guard delta > 0, delta < UInt64(Int64.max), !overflow else { throw error("times are not strictly increasing") }
            times.append(next)
        }
        // A `Date` holds these milliseconds exactly (a stored position's time is always far inside).
        guard times[0] >= -PositionChunkCodec.timeLimit, times[times.count - 1] <= PositionChunkCodec.timeLimit else {
            throw error("a time beyond ±\(PositionChunkCodec.timeLimit) ms from 1970")
        }
        return times
    }

    mutating func runs(count: Int) throws -> [UInt64] {
        let runCount = try self.count(atMost: count, of: "run count")
        var values: [UInt64] = []
        values.reserveCapacity(count)
        for _ in 0..<runCount {
            let value = try varint()
            let length = try self.count(atMost: count - values.count, of: "run length")
            guard length > 0 else { throw error("an empty run") }
            values += repeatElement(value, count: length)
        }
        guard values.count == count else { throw error("runs cover \(values.count) of \(count) points") }
        return values
    }

    mutating func decimals(count: Int) throws -> [Double] {
        let places = Int(try byte())
        guard places < PositionChunkCodec.powers.count else { throw error("decimal places \(places) out of range") }
        let power = PositionChunkCodec.powers[places]
        var previous: Int64 = 0
        var values: [Double] = []
        values.reserveCapacity(count)
        var previousBits: UInt64 = 0
        for _ in 0..<count {
            let tag = try varint()
            if tag & 1 == 1 {
                var bits: UInt64 = 0
                switch tag {
                case 1: for shift in stride(from: 0, to: 64, by: 8) { bits |= UInt64(try byte()) << UInt64(shift) }
                case 3: bits = try varint() ^ previousBits
                case 5:
                    let shift = try byte()
                    let shifted = try varint()
                    guard shift < 64, shifted.leadingZeroBitCount >= Int(shift) else { throw error("a shifted value overflows 64 bits") }
                    bits = (shifted << UInt64(shift)) ^ previousBits
                default: throw error("a malformed raw-value tag")
                }
                let value = Double(bitPattern: bits)
                guard value.isFinite else { throw error("a raw value that is not a finite number") }
                values.append(value)
                previousBits = bits
            } else {
                let (integer, overflow) = previous.addingReportingOverflow(PositionChunkCodec.unzigzag(tag >> 1))
                guard !overflow, integer.magnitude < 9_000_000_000_000_000 else { throw error("a scaled value out of range") }
                previous = integer
                values.append(Double(integer) / power)
                previousBits = values[values.count - 1].bitPattern
            }
        }
        return values
    }

    mutating func optionalDecimals(count: Int) throws -> [Double?] {
        switch try byte() {
        case 0: return [Double?](repeating: nil, count: count)
        case 1: return try decimals(count: count).map { $0 }
        case 2:
            let mapLength = (count + 7) / 8
            guard offset + mapLength <= bytes.count else { throw error("the chunk ends inside a presence bitmap") }
            let map = Array(bytes[offset..<offset + mapLength])
            offset += mapLength
            let present = (0..<count).filter { map[$0 / 8] & (1 << UInt8($0 % 8)) != 0 }
            guard !present.isEmpty, present.count < count else { throw error("a presence bitmap that should have been a mode") }
            let values = try decimals(count: present.count)
            var column = [Double?](repeating: nil, count: count)
            for (slot, value) in zip(present, values) { column[slot] = value }
            return column
        case let mode: throw error("unknown presence mode \(mode)")
        }
    }

    mutating func names(count: Int) throws -> [String?] {
        let size = try self.count(atMost: count, of: "name count")
        var dictionary: [String] = []
        for _ in 0..<size {
            let length = try self.count(atMost: bytes.count, of: "name length")
            guard length <= bytes.count - offset else { throw error("the chunk ends inside a name") }
            guard let name = UTF8Text.string(validating: bytes[offset..<offset + length]) else { throw error("a name that is not UTF-8") }
            offset += length
            dictionary.append(name)
        }
        return try runs(count: count).map { code in
            guard code <= UInt64(dictionary.count) else { throw error("name index \(code) beyond \(dictionary.count) names") }
            return code == 0 ? nil : dictionary[Int(code - 1)]
        }
    }
}
