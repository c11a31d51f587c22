import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `read(2)` under a name that does not clash with ``GPXInput/read(into:capacity:)``.
@inline(__always)
private func posixRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    read(fd, buffer, count)
}

/// Where the reader's bytes come from: a file read in chunks, or bytes in memory.
///
/// Delivers UTF-8: UTF-16 (LE/BE) and ISO-8859-1 inputs are transcoded chunk by
/// chunk, so memory stays constant for any input size. Internal.
final class GPXInput {
    enum Encoding { case utf8, utf16LE, utf16BE, latin1 }

    private enum Origin {
        case file(Int32)
        case memory(Data, offset: Int)
    }

    private var origin: Origin
    private(set) var encoding: Encoding = .utf8
    /// Raw bytes read from the origin but not yet delivered (before transcoding).
    private var pending: [UInt8] = []
    private var pendingStart = 0
    private var originExhausted = false
    let chunkSize: Int
    /// The name used in error messages.
    let name: String?

    init(url: URL, chunkSize: Int) throws(GeoError) {
        let path = url.path
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else {
            let reason = String(cString: strerror(errno))
            throw GeoError(.io, "cannot open \(path): \(reason)")
        }
        origin = .file(fd)
        self.chunkSize = max(chunkSize, 4096)
        name = path
        try detectEncoding()
    }

    init(data: Data, name: String?, chunkSize: Int) throws(GeoError) {
        origin = .memory(data, offset: 0)
        self.chunkSize = max(chunkSize, 4096)
        self.name = name
        try detectEncoding()
    }

    deinit {
        if case .file(let fd) = origin { close(fd) }
    }

    /// Reads raw bytes from the origin into `pending` until at least `count` are pending or the end is reached.
    private func fillPending(atLeast count: Int) throws(GeoError) {
        if pendingStart > 0 && pendingStart == pending.count {
            pending.removeAll(keepingCapacity: true)
            pendingStart = 0
        }
        while pending.count - pendingStart < count && !originExhausted {
            let got = try readOrigin(into: &pending, max: chunkSize)
            if got == 0 { originExhausted = true }
        }
    }

    private func readOrigin(into array: inout [UInt8], max: Int) throws(GeoError) -> Int {
        switch origin {
        case .file(let fd):
            let old = array.count
            array.append(contentsOf: repeatElement(0, count: max))
            var n = 0
            repeat {
                n = array.withUnsafeMutableBytes { posixRead(fd, $0.baseAddress! + old, max) }
            } while n < 0 && errno == EINTR
            if n < 0 {
                array.removeLast(max)
                throw GeoError(.io, "cannot read \(name ?? "input"): \(String(cString: strerror(errno)))")
            }
            array.removeLast(max - n)
            return n
        case .memory(let data, let offset):
            let n = min(max, data.count - offset)
            if n > 0 {
                let start = data.startIndex + offset
                array.append(contentsOf: data[start..<(start + n)])
            }
            origin = .memory(data, offset: offset + n)
            return n
        }
    }

    /// Looks at the first bytes: byte-order marks, UTF-16 without BOM, and the XML declaration's encoding.
    private func detectEncoding() throws(GeoError) {
        try fillPending(atLeast: 512)
        let b = pending
        if b.count >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF {
            pendingStart = 3
        } else if b.count >= 2 && b[0] == 0xFF && b[1] == 0xFE {
            encoding = .utf16LE; pendingStart = 2
        } else if b.count >= 2 && b[0] == 0xFE && b[1] == 0xFF {
            encoding = .utf16BE; pendingStart = 2
        } else if b.count >= 2 && b[0] == 0x3C && b[1] == 0x00 {
            encoding = .utf16LE
        } else if b.count >= 2 && b[0] == 0x00 && b[1] == 0x3C {
            encoding = .utf16BE
        } else if let declared = Self.declaredEncoding(b) {
            switch declared {
            case "utf-8", "utf8", "us-ascii", "ascii", "utf-16", "utf16":
                break
            case "iso-8859-1", "latin1", "latin-1", "iso8859-1", "iso_8859-1", "windows-1252", "cp1252":
                encoding = .latin1
            default:
                throw GeoError(.encoding, "unsupported encoding \"\(declared)\"; expected UTF-8, UTF-16 or ISO-8859-1",
                               at: SourceLocation(file: name, line: 1, column: 1))
            }
        }
    }

    /// The lower-cased `encoding` pseudo-attribute of an ASCII XML declaration, if any.
    static func declaredEncoding(_ b: [UInt8]) -> String? {
        guard b.count > 5, b[0] == 0x3C, b[1] == 0x3F else { return nil }
        guard let close = b.firstIndex(of: 0x3E) else { return nil }
        let decl = String(decoding: b[0..<close], as: UTF8.self).lowercased()
        guard let r = decl.range(of: "encoding") else { return nil }
        var rest = decl[r.upperBound...].drop { $0 == " " || $0 == "=" || $0 == "\t" }
        guard let quote = rest.first, quote == "\"" || quote == "'" else { return nil }
        rest = rest.dropFirst()
        guard let end = rest.firstIndex(of: quote) else { return nil }
        return String(rest[..<end])
    }

    /// Writes up to `capacity` bytes of UTF-8 at `dest`; returns how many (0 only at the end of input).
    func read(into dest: UnsafeMutablePointer<UInt8>, capacity: Int) throws(GeoError) -> Int {
        precondition(capacity >= 8)
        switch encoding {
        case .utf8:
            if pendingStart == pending.count, case .file(let fd) = origin, !originExhausted {
                var n = 0
                repeat { n = posixRead(fd, dest, capacity) } while n < 0 && errno == EINTR
                if n < 0 { throw GeoError(.io, "cannot read \(name ?? "input"): \(String(cString: strerror(errno)))") }
                if n == 0 { originExhausted = true }
                return n
            }
            try fillPending(atLeast: 1)
            let n = min(capacity, pending.count - pendingStart)
            if n > 0 {
                pending.withUnsafeBytes { src in
                    dest.update(from: src.baseAddress!.assumingMemoryBound(to: UInt8.self) + pendingStart, count: n)
                }
                pendingStart += n
            }
            return n
        case .latin1:
            try fillPending(atLeast: 1)
            var out = 0
            while pendingStart < pending.count && out + 2 <= capacity {
                let c = pending[pendingStart]
                pendingStart += 1
                if c < 0x80 { dest[out] = c; out += 1 } else {
                    dest[out] = 0xC0 | (c >> 6); dest[out + 1] = 0x80 | (c & 0x3F); out += 2
                }
            }
            return out
        case .utf16LE, .utf16BE:
            return try transcodeUTF16(into: dest, capacity: capacity)
        }
    }

    private func transcodeUTF16(into dest: UnsafeMutablePointer<UInt8>, capacity: Int) throws(GeoError) -> Int {
        let little = encoding == .utf16LE
        var out = 0
        while out + 4 <= capacity {
            try fillPending(atLeast: 4)
            let available = pending.count - pendingStart
            if available < 2 {
                if available == 1 && out == 0 {
                    throw GeoError(.encoding, "UTF-16 input ends in the middle of a code unit")
                }
                break
            }
            func unit(_ i: Int) -> UInt32 {
                let a = UInt32(pending[i]), b = UInt32(pending[i + 1])
                return little ? (a | b << 8) : (a << 8 | b)
            }
            var scalar = unit(pendingStart)
            var used = 2
            if scalar >= 0xD800 && scalar <= 0xDBFF {
                guard available >= 4 else {
                    if out == 0 { throw GeoError(.encoding, "UTF-16 input ends inside a surrogate pair") }
                    break
                }
                let low = unit(pendingStart + 2)
                guard low >= 0xDC00 && low <= 0xDFFF else {
                    throw GeoError(.encoding, "invalid UTF-16: high surrogate not followed by a low surrogate")
                }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                used = 4
            } else if scalar >= 0xDC00 && scalar <= 0xDFFF {
                throw GeoError(.encoding, "invalid UTF-16: unpaired low surrogate")
            }
            pendingStart += used
            if scalar < 0x80 {
                dest[out] = UInt8(scalar); out += 1
            } else if scalar < 0x800 {
                dest[out] = UInt8(0xC0 | scalar >> 6); dest[out + 1] = UInt8(0x80 | scalar & 0x3F); out += 2
            } else if scalar < 0x10000 {
                dest[out] = UInt8(0xE0 | scalar >> 12); dest[out + 1] = UInt8(0x80 | (scalar >> 6) & 0x3F)
                dest[out + 2] = UInt8(0x80 | scalar & 0x3F); out += 3
            } else {
                dest[out] = UInt8(0xF0 | scalar >> 18); dest[out + 1] = UInt8(0x80 | (scalar >> 12) & 0x3F)
                dest[out + 2] = UInt8(0x80 | (scalar >> 6) & 0x3F); dest[out + 3] = UInt8(0x80 | scalar & 0x3F)
                out += 4
            }
        }
        return out
    }
}
