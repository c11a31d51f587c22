import Foundation
import Testing
@testable import WaymarkGeo

/// A synthetic drive at 8 m/s, north then east after a gentle turn, 1 Hz, with
/// Gaussian noise of σ metres per axis; returns the truth and the noisy fixes.
private func noisyTrack(sigma: Double, seed: UInt64, origin: Coordinate = SyntheticTrack.origin)
    -> (truth: [Coordinate], fixes: [Fix]) {
    var rng = SeededGenerator(seed: seed)
    let plane = LocalProjection(origin: origin)
    var truth: [Coordinate] = [], fixes: [Fix] = []
    var x = 0.0, y = 0.0, heading = 0.0   // radians from north, clockwise
    for i in 0..<600 {
        let c = plane.coordinate(east: x, north: y)
        truth.append(c)
        let noisy = plane.coordinate(east: x + rng.gaussian(sigma: sigma), north: y + rng.gaussian(sigma: sigma))
        fixes.append(Fix(coordinate: noisy, horizontalAccuracy: sigma * 1.5096,
                         timestamp: SyntheticTrack.start.addingTimeInterval(Double(i))))
        if (200..<260).contains(i) { heading += .pi / 2 / 60 }
        x += 8 * sin(heading)
        y += 8 * cos(heading)
    }
    return (truth, fixes)
}

private func rmsError(_ estimate: [Fix], _ truth: [Coordinate]) -> Double {
    let squares = zip(estimate, truth).map { pow(Geodesic.wgs84.inverse($0.coordinate, $1).distance, 2) }
    return (squares.reduce(0, +) / Double(squares.count)).squareRoot()
}

@Suite("Kalman filter and smoother")
struct KalmanTests {
    @Test("the forward filter reduces position error on a noisy drive")
    func forwardReducesNoise() {
        let (truth, fixes) = noisyTrack(sigma: 6, seed: 1)
        let filtered = fixes.filtered(through: KalmanFilter(processNoise: 0.5))
        #expect(filtered.count == fixes.count)
        let raw = rmsError(fixes, truth), forward = rmsError(filtered, truth)
        #expect(raw > 7.5 && raw < 9.5, "σ = 6 m per axis gives about 8.5 m RMS")
        #expect(forward < raw * 0.7)
    }

    @Test("the RTS smoother beats the forward filter")
    func smootherBeatsFilter() {
        let (truth, fixes) = noisyTrack(sigma: 6, seed: 2)
        let forward = rmsError(fixes.filtered(through: KalmanFilter(processNoise: 0.5)), truth)
        let smoothed = KalmanSmoother(processNoise: 0.5).smooth(fixes)
        #expect(smoothed.count == fixes.count)
        #expect(rmsError(smoothed, truth) < forward * 0.85)
        #expect(rmsError(smoothed, truth) < rmsError(fixes, truth) * 0.5)
        // A smoother made from the filter's settings smooths exactly as one given them directly.
        let settings = KalmanFilter(processNoise: 0.5, defaultHorizontalAccuracy: 7, initialSpeedUncertainty: 3)
        let fromFilter = KalmanSmoother(settingsOf: settings)
        #expect(fromFilter.processNoise == 0.5 && fromFilter.defaultHorizontalAccuracy == 7 && fromFilter.initialSpeedUncertainty == 3)
        #expect(fromFilter.smooth(fixes) == KalmanSmoother(processNoise: 0.5, defaultHorizontalAccuracy: 7,
                                                            initialSpeedUncertainty: 3).smooth(fixes))
    }

    @Test("estimates speed and course from positions alone")
    func speedAndCourse() throws {
        let (_, fixes) = noisyTrack(sigma: 3, seed: 3)
        let smoothed = KalmanSmoother(processNoise: 0.5).smooth(fixes)
        let speeds = smoothed[20..<190].compactMap(\.speed) + smoothed[300..<580].compactMap(\.speed)
        #expect(speeds.count == 450)
        #expect(abs(speeds.reduce(0, +) / Double(speeds.count) - 8) < 0.2)
        #expect(speeds.allSatisfy { abs($0 - 8) < 1.2 })
        let early = smoothed[100], late = smoothed[500]
        let northish = try #require(early.course), eastish = try #require(late.course)
        #expect(northish < 5 || northish > 355)
        #expect(abs(eastish - 90) < 5)
    }

    @Test("reported accuracy shrinks below the fixes' own accuracy")
    func accuracyShrinks() throws {
        let (_, fixes) = noisyTrack(sigma: 6, seed: 4)
        let smoothed = KalmanSmoother(processNoise: 0.5).smooth(fixes)
        let smooth = try #require(smoothed[300].horizontalAccuracy), raw = try #require(fixes[300].horizontalAccuracy)
        #expect(smooth < raw * 0.7)
    }

    @Test("works across the antimeridian without jumping")
    func antimeridian() throws {
        let origin = try Coordinate(latitude: -16.8, longitude: 179.99)   // the track crosses 180°
        let (truth, fixes) = noisyTrack(sigma: 4, seed: 5, origin: origin)
        #expect(truth.contains { $0.longitude < 0 })
        let smoothed = KalmanSmoother(processNoise: 0.5).smooth(fixes)
        #expect(rmsError(smoothed, truth) < rmsError(fixes, truth) * 0.6)
    }

    @Test("an outlier gate in front of the smoother keeps a 500 m glitch out of the track")
    func pipelineWithOutlier() throws {
        var (truth, fixes) = noisyTrack(sigma: 5, seed: 6)
        let plane = LocalProjection(origin: truth[300])
        fixes[300].coordinate = plane.coordinate(east: 500, north: 0)   // claims the usual accuracy
        let gated = fixes.filtered(through: SpeedOutlierFilter(maximumSpeed: 40))
        #expect(gated.count == fixes.count - 1)
        let smoothed = KalmanSmoother(processNoise: 0.5).smooth(gated)
        var truthWithoutGlitch = truth
        truthWithoutGlitch.remove(at: 300)
        let worst = zip(smoothed, truthWithoutGlitch).map { Geodesic.wgs84.inverse($0.coordinate, $1).distance }.max() ?? 0
        #expect(worst < 15)
        let ungated = KalmanSmoother(processNoise: 0.5).smooth(fixes)
        #expect(Geodesic.wgs84.inverse(ungated[300].coordinate, truth[300]).distance > 30,
                "without the gate the glitch drags the estimate")
    }

    @Test("a single fix and an empty input are handled")
    func edgeCases() throws {
        #expect(KalmanSmoother().smooth([]).isEmpty)
        let one = Fix(coordinate: SyntheticTrack.origin, horizontalAccuracy: 12, timestamp: SyntheticTrack.start)
        let out = KalmanSmoother().smooth([one])
        #expect(out.first?.coordinate == one.coordinate)
        #expect(abs(try #require(out.first?.horizontalAccuracy) - 12) < 1e-9)
    }
}
