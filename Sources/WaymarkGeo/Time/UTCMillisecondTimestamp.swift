/// `YYYY-MM-DDThh:mm:ss.sssZ`: a UTC timestamp with milliseconds, written without formatters.
///
/// The writer behind the server's timestamps and the benchmark's request templates. Four-digit
/// years only (0000–9999); callers decide what to do outside them. (WaymarkTransport's
/// `NativeBatchFormat.timestamp` writes the same text with code of its own, which also writes
/// other years, for the server to refuse.)
///
/// ```swift
/// UTCMillisecondTimestamp.string(millis: 1_750_000_000_123)   // "2025-06-15T15:06:40.123Z"
/// ```
///
/// Pure functions; safe from any thread.
public enum UTCMillisecondTimestamp {
    /// Bytes in a timestamp.
    public static let length = 24

    /// Writes the timestamp of `millis` (milliseconds since 1970) into `out[offset ..< offset + 24]`;
    /// returns false, writing nothing, when the year is outside 0…9999.
    @discardableResult
    public static func write(millis: Int64, into out: inout [UInt8], at offset: Int) -> Bool {
        let seconds = millis >= 0 ? millis / 1000 : (millis - 999) / 1000
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let (year, month, day) = CivilDate.date(days: Int(days))
        guard (0...9999).contains(year) else { return false }
        let secondOfDay = Int(seconds - days * 86_400), milli = Int(millis - seconds * 1000)
        func put(_ value: Int, _ width: Int, _ at: Int) {
            var v = value
            for j in stride(from: width - 1, through: 0, by: -1) {
                out[offset + at + j] = UInt8(ascii: "0") + UInt8(v % 10)
                v /= 10
            }
        }
        put(year, 4, 0); put(month, 2, 5); put(day, 2, 8)
        put(secondOfDay / 3600, 2, 11); put(secondOfDay / 60 % 60, 2, 14); put(secondOfDay % 60, 2, 17); put(milli, 3, 20)
        for (at, byte) in [(4, "-"), (7, "-"), (10, "T"), (13, ":"), (16, ":"), (19, "."), (23, "Z")] as [(Int, Unicode.Scalar)] {
            out[offset + at] = UInt8(ascii: byte)
        }
        return true
    }

    /// The timestamp of `millis` as a string, or nil when the year is outside 0…9999.
    public static func string(millis: Int64) -> String? {
        var bytes = [UInt8](repeating: 0, count: length)
        guard write(millis: millis, into: &bytes, at: 0) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }
}
