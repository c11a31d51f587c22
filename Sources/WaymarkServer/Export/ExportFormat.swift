import Foundation
import WaymarkGeo

/// A streamed export format of a device's positions: GPX 1.1, GeoJSON or CSV.
///
/// Rendering is split into a header, one chunk per position and a footer so that an export
/// is written page by page and never holds a whole ride in memory.
public enum ExportFormat: String, Sendable, CaseIterable {
    /// GPX 1.1: one track, a new segment after every pause longer than the ride gap and at every
    /// gap marker the phone uploaded. A point with honesty marks carries them as GPX extensions in
    /// Waymark's namespace (``gpxNamespace``): `<extensions><waymark:simulated>true</waymark:simulated>
    /// <waymark:accessory>false</waymark:accessory><waymark:impossibleSpeed>true</waymark:impossibleSpeed>
    /// </extensions>`, the first two only when the origin is known, the last only when set.
    case gpx

    /// The XML namespace of the GPX export's extension elements (prefix `waymark`).
    public static let gpxNamespace = "urn:x-waymark:gpx-fix:1"
    /// A GeoJSON FeatureCollection of Point features with the position's properties (those of the
    /// API's position, honesty marks included).
    case geojson
    /// Comma-separated values with a header row; times in ISO-8601 UTC, SI units. Client text
    /// that a spreadsheet would read as a formula is neutralised (see `csvTextCell(_:)`). The last
    /// three columns are the honesty marks: `simulated_by_software` and `produced_by_accessory`
    /// (`true`/`false`, empty when the origin is unknown) and `impossible_speed` (`true`/`false`).
    case csv

    /// The HTTP content type.
    public var contentType: String {
        switch self {
        case .gpx: "application/gpx+xml"
        case .geojson: "application/geo+json"
        case .csv: "text/csv; charset=utf-8"
        }
    }

    func header(deviceName: String) -> String {
        switch self {
        case .gpx:
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="waymark" xmlns="http://www.topografix.com/GPX/1/1" xmlns:waymark="\(Self.gpxNamespace)">
            <trk><name>\(xmlEscaped(deviceName))</name>
            """
        case .geojson: #"{"type":"FeatureCollection","features":["#
        case .csv: "timestamp,latitude,longitude,altitude_m,accuracy_m,speed_mps,course_deg,battery,charging,activity,"
            + "simulated_by_software,produced_by_accessory,impossible_speed\n"
        }
    }

    /// The text for `p`; `previous` is the position written before it (nil for the first);
    /// `gapMarked` when a stored gap marker starts between the two.
    func row(_ p: Position, previous: Position?, gapSeconds: TimeInterval, gapMarked: Bool = false) -> String {
        let f = p.fix
        let time = TimestampParser.format(f.timestamp)
        switch self {
        case .gpx:
            var text = ""
            if let previous {
                if gapMarked || f.timestamp.timeIntervalSince(previous.fix.timestamp) > gapSeconds {
                    text += "</trkseg>\n<trkseg>\n"
                }
            } else {
                text += "<trkseg>\n"
            }
            text += "<trkpt lat=\"\(f.coordinate.latitude)\" lon=\"\(f.coordinate.longitude)\">"
            if let ele = f.altitude { text += "<ele>\(ele)</ele>" }
            text += "<time>\(time)</time>"
            if f.sourceInformation != nil || f.impliesImpossibleSpeed {
                text += "<extensions>"
                if let info = f.sourceInformation {
                    text += "<waymark:simulated>\(info.isSimulatedBySoftware)</waymark:simulated>"
                        + "<waymark:accessory>\(info.isProducedByAccessory)</waymark:accessory>"
                }
                if f.impliesImpossibleSpeed { text += "<waymark:impossibleSpeed>true</waymark:impossibleSpeed>" }
                text += "</extensions>"
            }
            text += "</trkpt>\n"
            return text
        case .geojson:
            let data = (try? JSONReply.data(PositionFeature(position: p))) ?? Data()
            return (previous == nil ? "" : ",") + String(decoding: data, as: UTF8.self)
        case .csv:
            let fields: [String] = [
                time, "\(f.coordinate.latitude)", "\(f.coordinate.longitude)", text(f.altitude),
                text(f.horizontalAccuracy), text(f.speed), text(f.course), text(p.batteryLevel),
                p.isCharging.map { $0 ? "true" : "false" } ?? "", Self.csvTextCell(p.activity ?? ""),
                f.sourceInformation.map { "\($0.isSimulatedBySoftware)" } ?? "",
                f.sourceInformation.map { "\($0.isProducedByAccessory)" } ?? "", "\(f.impliesImpossibleSpeed)",
            ]
            return fields.joined(separator: ",") + "\n"
        }
    }

    func footer(wroteAny: Bool) -> String {
        switch self {
        case .gpx: (wroteAny ? "</trkseg>\n" : "") + "</trk>\n</gpx>\n"
        case .geojson: "]}\n"
        case .csv: ""
        }
    }

    private func text(_ value: Double?) -> String { value.map { "\($0)" } ?? "" }

    /// Characters that make a spreadsheet read a cell as a formula when they start it
    /// (`=`, `+`, `-`, `@`, TAB and CR, as OWASP lists them for CSV injection).
    static let formulaTriggers: Set<Unicode.Scalar> = ["=", "+", "-", "@", "\t", "\r"]

    /// A CSV cell holding text a client sent (the activity): the only free-text column, so the
    /// only one a client can turn into a formula. The numeric columns the server writes are not
    /// passed through here, so a negative altitude stays the number `-12.5`.
    ///
    /// Text starting with one of ``formulaTriggers`` gets a leading `'` and is quoted, with
    /// embedded quotes doubled (`=HYPERLINK("x")` becomes `"'=HYPERLINK(""x"")"`), so Excel,
    /// LibreOffice and Google Sheets show it as text instead of evaluating it (OWASP's advice).
    /// Other text is quoted only when it holds `,`, `"`, CR or LF (RFC 4180). The checks look at
    /// Unicode scalars, not characters, so a quote or comma followed by a combining mark is still
    /// seen (a CSV reader splits on the scalar).
    static func csvTextCell(_ s: String) -> String {
        let scalars = s.unicodeScalars
        let formula = scalars.first.map { formulaTriggers.contains($0) } ?? false
        guard formula || scalars.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else {
            return s
        }
        var cell = String.UnicodeScalarView()
        cell.append("\"")
        if formula { cell.append("'") }
        for scalar in scalars {
            if scalar == "\"" { cell.append("\"") }
            cell.append(scalar)
        }
        cell.append("\"")
        return String(cell)
    }

    private func xmlEscaped(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
