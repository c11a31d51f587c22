import Foundation
@testable import WaymarkGeo

/// Helpers shared by the GPX tests.
enum GPXTestSupport {
    static var fixtures: URL { Bundle.module.resourceURL!.appendingPathComponent("Fixtures") }

    static var corpusFiles: [URL] {
        let corpus = fixtures.appendingPathComponent("corpus")
        let dirs = (try? FileManager.default.contentsOfDirectory(at: corpus, includingPropertiesForKeys: nil)) ?? []
        return dirs.flatMap { dir in
            ((try? FileManager.default.contentsOfDirectory(at: dir, includingPropertiesForKeys: nil)) ?? [])
                .filter { $0.pathExtension == "gpx" }
        }.sorted { $0.path < $1.path }
    }

    /// `dir/name.gpx` relative to the corpus folder.
    static func corpusName(_ url: URL) -> String {
        "\(url.deletingLastPathComponent().lastPathComponent)/\(url.lastPathComponent)"
    }

    /// Reads GPX text in memory.
    static func document(_ xml: String, lenient: Bool = false) throws(GeoError) -> GPXDocument {
        try GPXDocument(data: Data(xml.utf8), name: "test.gpx", options: GPXReadOptions(lenient: lenient))
    }

    /// Every event of GPX bytes.
    static func events(_ data: Data, options: GPXReadOptions = GPXReadOptions()) throws(GeoError) -> [GPXEvent] {
        var reader = try GPXReader(data: data, name: "test.gpx", options: options)
        var out: [GPXEvent] = []
        while let e = try reader.next() { out.append(e) }
        return out
    }

    /// The error reading `xml` throws, if any.
    static func error(_ xml: String) -> GeoError? {
        do {
            _ = try document(xml)
            return nil
        } catch {
            return error
        }
    }

    /// A GPX 1.1 document with one segment of the given `<trkpt>` bodies.
    static func track(_ points: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1">
        <trk><trkseg>
        \(points)
        </trkseg></trk>
        </gpx>
        """
    }
}
