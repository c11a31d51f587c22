extension TrackSegment {
    /// This segment simplified with ``RamerDouglasPeucker`` at `toleranceMeters` metres; endpoints kept.
    public func simplified(toleranceMeters: Double) -> TrackSegment {
        TrackSegment(points: RamerDouglasPeucker.simplify(points, toleranceMeters: toleranceMeters),
                     extensions: extensions)
    }

    /// This segment reduced with ``VisvalingamWhyatt`` to at most `targetCount` (≥ 2) points; endpoints kept.
    public func simplified(targetCount: Int) -> TrackSegment {
        TrackSegment(points: VisvalingamWhyatt.simplify(points, targetCount: targetCount), extensions: extensions)
    }
}

extension Track {
    /// This track with every segment simplified with ``RamerDouglasPeucker`` at `toleranceMeters` metres.
    public func simplified(toleranceMeters: Double) -> Track {
        Track(info: info, segments: segments.map { $0.simplified(toleranceMeters: toleranceMeters) })
    }
}

extension Route {
    /// This route simplified with ``RamerDouglasPeucker`` at `toleranceMeters` metres; endpoints kept.
    public func simplified(toleranceMeters: Double) -> Route {
        Route(info: info, points: RamerDouglasPeucker.simplify(points, toleranceMeters: toleranceMeters))
    }
}
