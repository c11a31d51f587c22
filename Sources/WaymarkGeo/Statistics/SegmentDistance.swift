/// The ellipsoid-accurate distance used by statistics and filters (internal helper).
///
/// Short hops (the overwhelming majority of track segments) use ``LocalApproximation``;
/// hops longer than ``localApproximationLimit`` use the WGS-84 ``Geodesic``, so a
/// sparse track is as accurate as a dense one without paying the geodesic's cost per point.
enum SegmentDistance {
    /// Longest hop, metres, measured with ``LocalApproximation`` instead of the geodesic.
    ///
    /// Until `LocalApproximation` publishes its own recommended limit this is our
    /// single place to change it.
    static let localApproximationLimit = 1_000.0

    /// Distance in metres between two points of a track.
    @inline(__always)
    static func distance(_ a: Coordinate, _ b: Coordinate) -> Double {
        let d = LocalApproximation.distance(a, b)
        return d <= localApproximationLimit ? d : Geodesic.wgs84.inverse(a, b).distance
    }
}
