import Foundation
import WaymarkGeo

extension FenceEngine {
    /// A fence reduced to what the evaluation loop reads: its box, and for a circle the
    /// centre, radius and the cosine of the centre's latitude (computed once).
    struct Entry: Sendable {
        var box: Box
        var circle: (center: Coordinate, radius: Double, projectionScale: Double, cosLatitude: Double)?
        var dwellSeconds: Double?
        /// A polygon's edges by latitude.
        var polygon: PolygonEdgeIndex?

        init(_ fence: ServerFence) {
            box = Box(fence.bounds)
            dwellSeconds = fence.dwellSeconds
            switch fence.shape {
            case .circle(let center, let radius):
                let cosLatitude = cos(center.latitude * .pi / 180)
                circle = (center, radius, cosLatitude * SegmentCrossing.metersPerDegree, cosLatitude)
            case .polygon(let shape):
                polygon = PolygonEdgeIndex(shape)
            }
        }
    }

    /// A fence's latitude/longitude box as a centre longitude and half-width, so a longitude is
    /// tested with one subtraction wrapped to ±180°.
    struct Box: Sendable {
        var minLatitude: Double, maxLatitude: Double
        var centerLongitude: Double, halfWidth: Double

        init(_ b: (minLat: Double, minLon: Double, maxLat: Double, maxLon: Double)) {
            minLatitude = b.minLat
            maxLatitude = b.maxLat
            centerLongitude = (b.minLon + b.maxLon) / 2
            halfWidth = (b.maxLon - b.minLon) / 2
        }

        @inline(__always)
        func contains(_ point: Coordinate) -> Bool {
            point.latitude >= minLatitude && point.latitude <= maxLatitude
                && (halfWidth >= 180 || abs(wrap(point.longitude - centerLongitude)) <= halfWidth)
        }

        /// Whether the segment's box overlaps this box (a necessary condition for it to cross the fence).
        @inline(__always)
        func touches(_ s: Segment) -> Bool {
            guard s.maxLatitude >= minLatitude, s.minLatitude <= maxLatitude else { return false }
            if halfWidth >= 180 { return true }
            let start = wrap(s.fromLongitude - centerLongitude), end = start + s.longitudeChange
            let low = min(start, end), high = max(start, end)
            // The segment's longitudes relative to the centre lie within ±360°: try the box a turn each way too.
            return (low <= halfWidth && high >= -halfWidth)
                || (high > 180 && low <= halfWidth + 360 && high >= 360 - halfWidth)
                || (low < -180 && low <= halfWidth - 360 && high >= -360 - halfWidth)
        }

        /// `degrees` wrapped to [−180°, 180°] (the short way round).
        @inline(__always)
        private func wrap(_ degrees: Double) -> Double {
            abs(degrees) <= 180 ? degrees : remainder(degrees, 360)
        }
    }

    /// A segment's latitude range, start longitude and signed longitude change (the short way).
    struct Segment {
        var minLatitude: Double, maxLatitude: Double
        var fromLongitude: Double, longitudeChange: Double

        init(from a: Coordinate, to b: Coordinate) {
            minLatitude = min(a.latitude, b.latitude)
            maxLatitude = max(a.latitude, b.latitude)
            fromLongitude = a.longitude
            longitudeChange = SegmentCrossing.longitudeDifference(b.longitude, a.longitude)
        }
    }

    /// The point being tested, with the cosine of its latitude computed on first use.
    struct Probe {
        let point: Coordinate
        private var cachedCosine: Double?

        init(_ point: Coordinate) { self.point = point }

        var cosLatitude: Double {
            mutating get {
                if let cachedCosine { return cachedCosine }
                let value = cos(point.latitude * .pi / 180)
                cachedCosine = value
                return value
            }
        }
    }
}
