import Foundation

/// Reads GeoJSON (RFC 7946) points and lines into waypoints, tracks and routes.
///
/// The input may be a `FeatureCollection`, a single `Feature` or a bare geometry.
/// - `Point` becomes a waypoint and `MultiPoint` one waypoint per position.
/// - `LineString` becomes a track with one segment, or a route when the feature's
///   `kind` property is `"route"` (as ``GeoJSONWriter`` writes it).
/// - `MultiLineString` becomes a track with one segment per line.
/// - Features with a `null` geometry are skipped; other geometry types are an error.
/// - Positions are `[longitude, latitude]` with an optional elevation (metres); any
///   further numbers are ignored. `coordTimes` (see ``GeoJSONWriter``) or, failing
///   that, `coordinateProperties.times` (newer togeojson) gives point times; `name`, `cmt`, `desc`, `src`, `type`, `number`, `sym` and `time` fill
///   the matching fields.
///
/// ```swift
/// let document = try GeoJSONReader.document(from: data)
/// ```
///
/// This reads the whole document into memory; for large files use
/// ``GeoJSONFeatureReader``, which streams a `FeatureCollection` feature by feature with the
/// same conversion rules and reports errors with line and column.
///
/// Pure functions; safe to call from any thread.
public enum GeoJSONReader {
    /// The waypoints, routes and tracks in `data`, in input order by kind.
    ///
    /// - throws: ``GeoError`` with code ``GeoError/Code/invalidGeoJSON`` whose message
    ///   starts with the JSON path of the problem, for example
    ///   `features[3].geometry.coordinates[12]: expected [longitude, latitude]`.
    public static func document(from data: Data) throws(GeoError) -> GPXDocument {
        let root: JSONValue
        do {
            root = try JSONDecoder().decode(JSONValue.self, from: data)
        } catch {
            throw GeoError(.invalidGeoJSON, "not valid JSON: \(Self.describe(error))")
        }
        var reader = GeoJSONDocumentBuilder()
        try reader.read(root: root)
        return reader.document
    }

    /// Reads the GeoJSON file at `url`.
    ///
    /// - throws: ``GeoError`` with code ``GeoError/Code/io`` when the file cannot be
    ///   read, or ``GeoError/Code/invalidGeoJSON`` as ``document(from:)`` does.
    public static func document(contentsOf url: URL) throws(GeoError) -> GPXDocument {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw GeoError(.io, "\(url.path): cannot read the file: \(error.localizedDescription)")
        }
        do {
            return try document(from: data)
        } catch {
            throw GeoError(error.code, "\(url.path): \(error.message)")
        }
    }

    private static func describe(_ error: any Error) -> String {
        if case DecodingError.dataCorrupted(let context) = error {
            let underlying = context.underlyingError.map { " (\($0.localizedDescription))" } ?? ""
            return context.debugDescription + underlying
        }
        return "\(error)"
    }
}
