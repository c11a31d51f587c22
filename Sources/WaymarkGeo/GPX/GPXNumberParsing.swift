import Foundation

/// Fast parsing of the numbers found in GPX text (internal).
///
/// Decimal strings with at most 19 significant digits whose value fits the
/// exact fast path (mantissa ≤ 2^53, power of ten ≤ 10^22) are converted with
/// a single correctly rounded multiplication or division (Clinger's fast path);
/// everything else falls back to the standard library's correctly rounded
/// `Double(_: String)`. The result is therefore always the double nearest to
/// the decimal value, bit for bit the same as `Double(String)`.
enum GPXNumberParsing {
    /// 10^e for 0 ≤ e ≤ 22, the powers of ten that doubles represent exactly.
    @inline(__always)
    static func exactPowerOfTen(_ e: Int) -> Double {
        switch e {
        case 0: return 1e0
        case 1: return 1e1
        case 2: return 1e2
        case 3: return 1e3
        case 4: return 1e4
        case 5: return 1e5
        case 6: return 1e6
        case 7: return 1e7
        case 8: return 1e8
        case 9: return 1e9
        case 10: return 1e10
        case 11: return 1e11
        case 12: return 1e12
        case 13: return 1e13
        case 14: return 1e14
        case 15: return 1e15
        case 16: return 1e16
        case 17: return 1e17
        case 18: return 1e18
        case 19: return 1e19
        case 20: return 1e20
        case 21: return 1e21
        default: return 1e22
        }
    }

    /// Parses an XML Schema decimal or double (`-12.5`, `+3`, `.5`, `1e-5`), surrounding whitespace allowed.
    ///
    /// Returns nil for anything else, including `NaN`, `INF` and empty input.
    static func parseDouble(_ p: UnsafePointer<UInt8>, _ count: Int) -> Double? {
        if let v = parseShortDecimal(p, count) { return v }
        return parseGeneral(p, count)
    }

    /// The fast path for the common GPX case: `-?digits(.digits)?`, at most 15 digits, no
    /// whitespace or exponent. Nil means "not this shape", not "invalid".
    @inline(__always)
    static func parseShortDecimal(_ p: UnsafePointer<UInt8>, _ count: Int) -> Double? {
        guard count > 0 && count <= 17 else { return nil }
        var i = 0
        let negative = p[0] == UInt8(ascii: "-")
        if negative { i = 1 }
        var mantissa: UInt64 = 0
        var digits = 0
        var fraction = -1
        while i < count {
            let d = p[i] &- UInt8(ascii: "0")
            if d < 10 {
                mantissa = mantissa &* 10 &+ UInt64(d)
                digits += 1
            } else if p[i] == UInt8(ascii: ".") && fraction < 0 {
                fraction = i
            } else {
                return nil
            }
            i += 1
        }
        guard digits > 0 && digits <= 15 else { return nil }
        let scale = fraction < 0 ? 0 : count - fraction - 1
        let v = Double(mantissa) / exactPowerOfTen(scale)
        return negative ? -v : v
    }

    private static func parseGeneral(_ p: UnsafePointer<UInt8>, _ count: Int) -> Double? {
        var s = 0, e = count
        while s < e && XMLTokenizer.isSpace(p[s]) { s += 1 }
        while e > s && XMLTokenizer.isSpace(p[e - 1]) { e -= 1 }
        guard s < e else { return nil }
        var i = s
        var negative = false
        if p[i] == UInt8(ascii: "-") || p[i] == UInt8(ascii: "+") { negative = p[i] == UInt8(ascii: "-"); i += 1 }
        var mantissa: UInt64 = 0
        var significant = 0
        var digits = 0
        var exponent = 0
        var truncated = false
        while i < e, case let d = p[i] &- UInt8(ascii: "0"), d < 10 {
            if mantissa == 0 && d == 0 { digits += 1; i += 1; continue }
            if significant < 19 { mantissa = mantissa &* 10 &+ UInt64(d); significant += 1 }
            else { exponent += 1; if d != 0 { truncated = true } }
            digits += 1
            i += 1
        }
        if i < e && p[i] == UInt8(ascii: ".") {
            i += 1
            while i < e, case let d = p[i] &- UInt8(ascii: "0"), d < 10 {
                digits += 1
                i += 1
                if mantissa == 0 && d == 0 { exponent -= 1; continue }
                if significant < 19 { mantissa = mantissa &* 10 &+ UInt64(d); significant += 1; exponent -= 1 }
                else if d != 0 { truncated = true }
            }
        }
        guard digits > 0 else { return nil }
        if i < e && (p[i] | 0x20) == UInt8(ascii: "e") {
            i += 1
            var expNegative = false
            if i < e && (p[i] == UInt8(ascii: "-") || p[i] == UInt8(ascii: "+")) { expNegative = p[i] == UInt8(ascii: "-"); i += 1 }
            var explicit = 0
            var expDigits = 0
            while i < e, case let d = p[i] &- UInt8(ascii: "0"), d < 10 {
                if explicit < 100_000 { explicit = explicit * 10 + Int(d) }
                expDigits += 1
                i += 1
            }
            guard expDigits > 0 else { return nil }
            exponent += expNegative ? -explicit : explicit
        }
        guard i == e else { return nil }
        if mantissa == 0 { return negative ? -0.0 : 0.0 }
        if !truncated && mantissa <= 1 << 53 && exponent >= -22 && exponent <= 22 {
            let m = Double(mantissa)
            let v = exponent < 0 ? m / exactPowerOfTen(-exponent) : m * exactPowerOfTen(exponent)
            return negative ? -v : v
        }
        let text = String(decoding: UnsafeBufferPointer(start: p + s, count: e - s), as: UTF8.self)
        guard let v = Double(text), v.isFinite else { return nil }
        return v
    }

    /// Parses an integer, optionally written with a zero fraction (`5`, `+5`, `5.0`); nil otherwise.
    static func parseInteger(_ p: UnsafePointer<UInt8>, _ count: Int) -> Int? {
        guard let v = parseDouble(p, count), v == v.rounded(), abs(v) < 1e15 else { return nil }
        return Int(v)
    }
}
