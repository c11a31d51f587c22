/// Writes track points as CSV, one row per point, as they come.
///
/// The first line is ``header``:
///
/// `track,segment,latitude,longitude,elevation,time,speed,course,hdop,vdop,pdop,satellites,fix,heart_rate,cadence,temperature,power`
///
/// - `track`, `segment`: zero-based indices of the track in the document and of the
///   segment in the track.
/// - `latitude`, `longitude`: WGS-84 degrees; `elevation`: metres.
/// - `time`: ISO-8601 in UTC, e.g. `2024-05-01T10:00:00Z`, with milliseconds
///   (`.250`) only when the time has a fraction of a second.
/// - `speed`: m/s; `course`: degrees from true north; `hdop`, `vdop`, `pdop`,
///   `satellites` and `fix` (`none`, `2d`, `3d`, `dgps`, `pps`) as in GPX.
/// - `heart_rate`: beats per minute; `cadence`: rpm; `temperature`: °C; `power`: W.
///
/// An unknown value is an empty field. No field ever needs quoting. Numbers use
/// the shortest text that reads back to the same value (`.` as decimal separator).
/// Lines end with `\n`. Memory stays at one row, so it suits streaming readers.
///
/// ```swift
/// var csv = CSVTrackWriter(output: "")
/// for (i, track) in document.tracks.enumerated() { csv.write(track, index: i) }
/// let text = csv.output
/// ```
///
/// A value type; `Sendable` when its output is.
public struct CSVTrackWriter<Output: TextOutputStream> {
    /// The header line, without its line break.
    public static var header: String {
        "track,segment,latitude,longitude,elevation,time,speed,course,hdop,vdop,pdop,satellites,fix,"
            + "heart_rate,cadence,temperature,power"
    }

    /// Where the text goes; holds the header and every row written so far.
    public private(set) var output: Output

    /// Starts a CSV file, writing the header line to `output`.
    public init(output: Output) {
        self.output = output
        self.output.write(Self.header + "\n")
    }

    /// Writes one row for `point`, the point of segment `segment` of track `track`.
    public mutating func write(_ point: Waypoint, track: Int, segment: Int) {
        var row = String(track) + "," + String(segment) + ","
        row += JSONText.number(point.coordinate.latitude) + "," + JSONText.number(point.coordinate.longitude) + ","
        row += Self.field(point.elevation) + ","
        row += (point.time.map(ISO8601UTC.string) ?? "") + ","
        row += Self.field(point.speed) + "," + Self.field(point.course) + ","
        row += Self.field(point.hdop) + "," + Self.field(point.vdop) + "," + Self.field(point.pdop) + ","
        row += (point.satellites.map(String.init) ?? "") + "," + (point.fix?.rawValue ?? "") + ","
        let ext = point.extensions
        row += (ext.heartRate.map(String.init) ?? "") + "," + (ext.cadence.map(String.init) ?? "") + ","
        row += Self.field(ext.temperature) + "," + Self.field(ext.power) + "\n"
        output.write(row)
    }

    /// Writes every point of `track`, which is track number `index` (zero-based).
    public mutating func write(_ track: Track, index: Int) {
        for (s, segment) in track.segments.enumerated() {
            for point in segment.points { write(point, track: index, segment: s) }
        }
    }

    private static func field(_ value: Double?) -> String {
        guard let value, value.isFinite else { return "" }
        return JSONText.number(value)
    }
}

extension CSVTrackWriter: Sendable where Output: Sendable {}

extension CSVTrackWriter where Output == String {
    /// Every track point of `document` as CSV text, header included.
    public static func string(for document: GPXDocument) -> String {
        var writer = CSVTrackWriter(output: "")
        for (i, track) in document.tracks.enumerated() { writer.write(track, index: i) }
        return writer.output
    }
}
