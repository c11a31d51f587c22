import Foundation

extension GPXDocument {
    /// The document as GPX 1.1 bytes (UTF-8); see ``GPXWriter`` for the conventions.
    ///
    /// For example:
    ///
    /// ```swift
    /// let doc = try GPXDocument(contentsOf: URL(fileURLWithPath: "old-1.0.gpx"))
    /// try doc.gpxData().write(to: URL(fileURLWithPath: "new-1.1.gpx"))
    /// ```
    public func gpxData() -> Data {
        var writer = GPXWriter()
        do {
            try write(to: &writer)
        } catch {
            preconditionFailure("writing to memory cannot fail: \(error)")
        }
        return writer.data
    }

    /// Writes the document as GPX 1.1 to `url`, streaming.
    ///
    /// - throws: ``GeoError`` with code `.io` when the file cannot be created or written.
    public func write(to url: URL) throws(GeoError) {
        guard FileManager.default.createFile(atPath: url.path, contents: nil),
              let handle = FileHandle(forWritingAtPath: url.path) else {
            throw GeoError(.io, "cannot create \(url.path)")
        }
        defer { try? handle.close() }
        var writer = GPXWriter(to: handle)
        try write(to: &writer)
    }

    /// Whether any point carries data that goes into the `gpxtpx`/`pwr` extensions.
    var usesTypedExtensions: Bool {
        func typed(_ p: Waypoint) -> Bool {
            p.speed != nil || p.course != nil || p.extensions.heartRate != nil || p.extensions.cadence != nil
                || p.extensions.temperature != nil || p.extensions.waterTemperature != nil || p.extensions.power != nil
        }
        return waypoints.contains(where: typed) || routes.contains { $0.points.contains(where: typed) }
            || tracks.contains { $0.segments.contains { $0.points.contains(where: typed) } }
    }

    func write(to writer: inout GPXWriter) throws(GeoError) {
        try writer.begin(creator: creator, metadata: metadata, declareExtensions: usesTypedExtensions)
        for point in waypoints { try writer.waypoint(point) }
        for route in routes {
            try writer.beginRoute(route.info)
            for point in route.points { try writer.routePoint(point) }
            try writer.endRoute()
        }
        for track in tracks {
            try writer.beginTrack(track.info)
            for segment in track.segments {
                try writer.beginSegment()
                for point in segment.points { try writer.trackPoint(point) }
                try writer.endSegment(extensions: segment.extensions)
            }
            try writer.endTrack()
        }
        try writer.end(extensions: extensions)
    }
}
