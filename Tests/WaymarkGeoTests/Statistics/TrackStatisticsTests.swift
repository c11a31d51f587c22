import Foundation
import Testing
@testable import WaymarkGeo

@Suite("Track statistics")
struct TrackStatisticsTests {
    @Test("a straight line at 10 m/s gives 6 km, 600 s moving and 10 m/s average and maximum")
    func straightLine() throws {
        let stats = TrackStatistics(track: SyntheticTrack.line(speed: 10, seconds: 600).track)
        #expect(stats.pointCount == 601)
        #expect(stats.segmentCount == 1)
        #expect(abs(stats.distance2D - 6000) < 6000 * 0.003)
        #expect(stats.distance3D == stats.distance2D)
        #expect(stats.duration == 600)
        #expect(stats.movingTime == 600)
        #expect(stats.stoppedTime == 0)
        let average = try #require(stats.averageMovingSpeed)
        let maximum = try #require(stats.maximumSpeed)
        #expect(abs(average - 10) < 0.03)
        #expect(abs(maximum - 10) < 0.03)
        #expect(stats.startTime == SyntheticTrack.start)
        #expect(stats.endTime == SyntheticTrack.start.addingTimeInterval(600))
    }

    @Test("distance equals the sum of geodesic hop lengths")
    func distanceMatchesGeodesic() {
        let track = SyntheticTrack.line(speed: 7, seconds: 300)
        let geodesic = zip(track.points, track.points.dropFirst())
            .map { Geodesic.wgs84.inverse($0.coordinate, $1.coordinate).distance }
            .reduce(0, +)
        let stats = TrackStatistics(track: track.track)
        #expect(abs(stats.distance2D - geodesic) < geodesic * 1e-4)
    }

    @Test("hops longer than a kilometre use the geodesic")
    func longHopsUseGeodesic() throws {
        let a = try Coordinate(latitude: 46, longitude: 14)
        let b = try Coordinate(latitude: 46.4, longitude: 14.6)
        let stats = TrackStatistics(points: [Waypoint(coordinate: a), Waypoint(coordinate: b)])
        #expect(stats.distance2D == Geodesic.wgs84.inverse(a, b).distance)
    }

    @Test("one GPS spike does not set the maximum speed")
    func spikeIgnored() throws {
        var track = SyntheticTrack()
        for i in 0...300 {
            // Point 150 jumps 300 m sideways: raw hop speeds of about 300 m/s.
            track.add(x: i == 150 ? 300 : 0, y: 5 * Double(i), t: Double(i))
        }
        let stats = TrackStatistics(track: track.track)
        let maximum = try #require(stats.maximumSpeed)
        #expect(maximum < 5.1)
        #expect(maximum > 4.9)
        #expect(stats.movingTime == 300)
    }

    @Test("a sustained sprint does set the maximum speed")
    func sustainedSprint() throws {
        var track = SyntheticTrack()
        var y = 0.0
        for i in 0...300 {
            track.add(x: 0, y: y, t: Double(i))
            y += (100..<110).contains(i) ? 12 : 4
        }
        let maximum = try #require(TrackStatistics(track: track.track).maximumSpeed)
        #expect(abs(maximum - 12) < 0.05)
    }

    @Test("a stop with GPS drift counts as stopped time")
    func stopsCounted() throws {
        var rng = SeededGenerator(seed: 7)
        var track = SyntheticTrack()
        var t = 0.0, y = 0.0
        for _ in 0..<100 { track.add(x: 0, y: y, t: t); y += 2; t += 1 }
        var drift = (x: 0.0, y: 0.0)
        for _ in 0..<120 {
            track.add(x: drift.x, y: y + drift.y, t: t)
            drift.x += rng.gaussian(sigma: 0.15)
            drift.y += rng.gaussian(sigma: 0.15)
            t += 1
        }
        for _ in 0...100 { track.add(x: 0, y: y, t: t); y += 2; t += 1 }
        let stats = TrackStatistics(track: track.track)
        let moving = try #require(stats.movingTime), stopped = try #require(stats.stoppedTime)
        #expect(abs(moving - 200) <= 4)
        #expect(abs(stopped - 120) <= 4)
        #expect(moving + stopped == stats.duration)
        let average = try #require(stats.averageMovingSpeed)
        #expect(abs(average - 2) < 0.1)
    }

    @Test("elevation gain and loss ignore noise but count real climbs in full")
    func noisyClimb() throws {
        var rng = SeededGenerator(seed: 42)
        var track = SyntheticTrack()
        // Climb 100 m over 200 points, descend 50 m over 100 points; noise ±2 m.
        for i in 0...300 {
            let truth = i <= 200 ? Double(i) * 0.5 : 100 - Double(i - 200) * 0.5
            track.add(x: 0, y: Double(i) * 3, t: Double(i), elevation: truth + Double.random(in: -2...2, using: &rng))
        }
        let stats = TrackStatistics(track: track.track)
        let gain = try #require(stats.elevationGain), loss = try #require(stats.elevationLoss)
        #expect(abs(gain - 100) < 4)
        #expect(abs(loss - 50) < 4)
        let elevations = track.points.compactMap(\.elevation)
        let plainSum = zip(elevations, elevations.dropFirst()).map { max(0, $1 - $0) }.reduce(0, +)
        #expect(plainSum > 150, "summing every wiggle would inflate the climb")
        #expect(try #require(stats.minimumElevation) < 0)
        #expect(try #require(stats.maximumElevation) > 100)
        #expect(stats.distance3D > stats.distance2D)
    }

    @Test("a steady climb is counted exactly and small wiggles count nothing")
    func hysteresisEdges() throws {
        let climb = (0...100).map { Waypoint(coordinate: SyntheticTrack.origin, elevation: Double($0)) }
        #expect(TrackStatistics(points: climb).elevationGain == 100)
        let wiggle = (0...100).map { Waypoint(coordinate: SyntheticTrack.origin, elevation: $0 % 2 == 0 ? 10 : 14) }
        let flat = TrackStatistics(points: wiggle)
        #expect(flat.elevationGain == 0)
        #expect(flat.elevationLoss == 0)
    }

    @Test("distance and time do not bridge the gap between segments")
    func segmentsNotBridged() throws {
        var first = SyntheticTrack(), second = SyntheticTrack()
        for i in 0...10 { first.add(x: 0, y: Double(i), t: Double(i)) }
        for i in 0...10 { second.add(x: 5000, y: Double(i), t: 3600 + Double(i)) }
        let stats = TrackStatistics(track: Track(segments: [first.segment, second.segment]))
        #expect(stats.segmentCount == 2)
        #expect(abs(stats.distance2D - 20) < 0.05)
        #expect(stats.duration == 20)
        let start = try #require(stats.startTime), end = try #require(stats.endTime)
        #expect(end.timeIntervalSince(start) == 3610)
        #expect(try #require(stats.maximumSpeed) < 1.01)
    }

    @Test("points without time give distance but no time or speed")
    func untimed() throws {
        var track = SyntheticTrack()
        for i in 0...10 { track.add(x: Double(i) * 10, y: 0, t: nil) }
        let stats = TrackStatistics(track: track.track)
        #expect(abs(stats.distance2D - 100) < 0.3)
        #expect(stats.duration == nil)
        #expect(stats.movingTime == nil)
        #expect(stats.averageMovingSpeed == nil)
        #expect(stats.maximumSpeed == nil)
        #expect(stats.startTime == nil)
        #expect(stats.elevationGain == nil)
    }

    @Test("a track whose points all share one time has zero duration and no speeds")
    func frozenClock() throws {
        var track = SyntheticTrack()
        for i in 0...10 { track.add(x: 0, y: Double(i) * 10, t: 5) }
        let stats = TrackStatistics(track: track.track)
        #expect(stats.duration == 0)
        #expect(stats.movingTime == 0)
        #expect(stats.startTime == stats.endTime)
        #expect(stats.maximumSpeed == nil)
        #expect(stats.averageMovingSpeed == nil)
        #expect(abs(stats.distance2D - 100) < 0.3)
    }

    @Test("duplicate and backwards timestamps do not create impossible speeds")
    func badTimestamps() throws {
        var track = SyntheticTrack()
        for i in 0...60 {
            let t = i == 30 ? 29.0 : (i == 40 ? 10.0 : Double(i))   // a duplicate and a jump back
            track.add(x: 0, y: 3 * Double(i), t: t)
        }
        let stats = TrackStatistics(track: track.track)
        #expect(stats.duration == 60)
        #expect(abs(try #require(stats.maximumSpeed) - 3) < 0.05)
        #expect(abs(stats.distance2D - 180) < 0.6)
    }

    @Test("a short segment uses the median of its few speeds")
    func shortSegment() throws {
        var track = SyntheticTrack()
        track.add(x: 0, y: 0, t: 0)
        track.add(x: 0, y: 4, t: 1)
        track.add(x: 0, y: 10, t: 2)
        let stats = TrackStatistics(track: track.track)
        #expect(abs(try #require(stats.maximumSpeed) - 5) < 0.02)
    }

    @Test("bounds across the antimeridian take the narrow box")
    func antimeridianBounds() throws {
        let points = try [179.5, -179.8, 179.9].map { Waypoint(coordinate: try Coordinate(latitude: 10, longitude: $0)) }
        let box = try #require(TrackStatistics(points: points).bounds)
        #expect(box.minLongitude == 179.5)
        #expect(box.maxLongitude == -179.8)
        let plain = try #require(TrackStatistics(track: SyntheticTrack.line(speed: 1, seconds: 10).track).bounds)
        #expect(plain.minLongitude == SyntheticTrack.origin.longitude)
        #expect(plain.minLongitude <= plain.maxLongitude)
    }

    @Test("feeding the accumulator point by point gives the same result as the whole track")
    func streamingMatchesWhole() {
        var rng = SeededGenerator(seed: 3)
        var a = SyntheticTrack(), b = SyntheticTrack()
        for i in 0...200 { a.add(x: rng.gaussian(sigma: 2), y: Double(i) * 4, t: Double(i), elevation: rng.gaussian(sigma: 8)) }
        for i in 0...50 { b.add(x: 900, y: Double(i), t: 400 + Double(i) * 2, elevation: 20) }
        let track = Track(segments: [a.segment, b.segment])
        var accumulator = TrackStatisticsAccumulator()
        for segment in track.segments {
            accumulator.beginSegment()
            for p in segment.points { accumulator.add(p.coordinate, elevation: p.elevation, time: p.time) }
        }
        #expect(accumulator.statistics == TrackStatistics(track: track))
        #expect(TrackStatistics(document: GPXDocument(tracks: [track, track])).pointCount == 2 * 252)
    }
}

@Suite("Track statistics from fixes")
struct TrackStatisticsFixTests {
    @Test("fixes feed the accumulator with altitude and timestamp")
    func fixes() throws {
        var accumulator = TrackStatisticsAccumulator()
        for p in SyntheticTrack.line(speed: 4, seconds: 60).points {
            accumulator.add(Fix(coordinate: p.coordinate, altitude: 100, timestamp: try #require(p.time)))
        }
        let stats = accumulator.statistics
        #expect(stats.duration == 60)
        #expect(abs(try #require(stats.averageMovingSpeed) - 4) < 0.02)
        #expect(stats.maximumElevation == 100)
        #expect(stats.elevationGain == 0)
    }
}

@Suite("Track statistics elevation spikes")
struct TrackStatisticsSpikeTests {
    @Test("a single-point elevation spike adds no climb")
    func elevationSpike() throws {
        let points = (0...50).map { Waypoint(coordinate: SyntheticTrack.origin, elevation: $0 == 25 ? 360 : 300) }
        let stats = TrackStatistics(points: points)
        #expect(stats.elevationGain == 0)
        #expect(stats.elevationLoss == 0)
        #expect(stats.maximumElevation == 360, "the raw extremes are still reported")
    }

    @Test("the first and last elevations of a segment still count")
    func endpointsCount() throws {
        let points = [100.0, 100, 100, 100, 120].map { Waypoint(coordinate: SyntheticTrack.origin, elevation: $0) }
        #expect(TrackStatistics(points: points).elevationGain == 20)
        let two = [100.0, 110].map { Waypoint(coordinate: SyntheticTrack.origin, elevation: $0) }
        #expect(TrackStatistics(points: two).elevationGain == 10)
    }
}
