import Foundation
import Testing
import WaymarkEngine
import WaymarkGeo
@testable import WaymarkSimulator

@Suite("realistic position error")
struct PositionErrorTests {
    /// Errors (metres) of every GNSS fix against the truth, with the reported accuracy.
    static func gnssErrors(seed: UInt64, urban: Bool = false) throws -> [(error: Double, accuracy: Double)] {
        let world = urban ? World(urbanAreas: [BoundingCircle(center: Fixture.origin, radiusMeters: 50_000)]) : nil
        var sim = try StandardUpdateTests.started(LocationConfiguration(pausesLocationUpdatesAutomatically: false),
                                                  route: Fixture.eastbound(speed: 8, seconds: 3600), world: world, seed: seed)
        sim.run(until: 3600)
        return sim.fixes.filter { $0.source == .gnss }.map { fix in
            (Geodesy.haversineDistance(fix.coordinate, sim.truePosition(at: fix.timestamp)), fix.horizontalAccuracy ?? 0)
        }
    }

    @Test("about 68% of fixes lie within their reported accuracy", arguments: [false, true])
    func accuracyConsistency(urban: Bool) throws {
        var inside = 0, total = 0
        for seed in UInt64(1)...8 {
            for sample in try Self.gnssErrors(seed: seed, urban: urban) {
                total += 1
                if sample.error <= sample.accuracy { inside += 1 }
            }
        }
        let fraction = Double(inside) / Double(total)
        #expect(total > 20_000)
        #expect(abs(fraction - 0.68) < 0.05, "fraction within reported accuracy: \(fraction)")
    }

    @Test("the error is correlated from one fix to the next, not white noise")
    func correlated() throws {
        let errors = try Self.gnssErrors(seed: 3).map(\.error)
        // Lag-1 autocorrelation: about exp(-1 s / 30 s) ≈ 0.97 for the process; near 0 for white noise.
        let x = Array(errors.dropLast()), y = Array(errors.dropFirst())
        let mx = x.reduce(0, +) / Double(x.count), my = y.reduce(0, +) / Double(y.count)
        var sxy = 0.0, sxx = 0.0, syy = 0.0
        for i in x.indices {
            sxy += (x[i] - mx) * (y[i] - my)
            sxx += (x[i] - mx) * (x[i] - mx)
            syy += (y[i] - my) * (y[i] - my)
        }
        #expect(sxy / (sxx * syy).squareRoot() > 0.8)
    }

    @Test("the Doppler course scatters around the true course by the velocity noise's angle (about 2° at 8 m/s)")
    func courseNoise() throws {
        var sim = try StandardUpdateTests.started(LocationConfiguration(pausesLocationUpdatesAutomatically: false),
                                                  route: Fixture.eastbound(speed: 8, seconds: 600), seed: 5)
        sim.run(until: 600)
        let errors = sim.fixes.filter { $0.source == .gnss }.compactMap { $0.course.map { $0 - 90 } }
        try #require(errors.count > 400)
        let sigma = (errors.reduce(0) { $0 + $1 * $1 } / Double(errors.count)).squareRoot()
        #expect(sigma > 1.5 && sigma < 2.8, "course error \(sigma)° (expected atan(0.3 / 8) ≈ 2.1°)")
    }

    @Test("the simulator knows the true position at every instant")
    func truth() throws {
        let sim = try Simulation(scenario: Fixture.opened(route: Fixture.eastbound(speed: 10, seconds: 100)))
        let halfway = sim.truePosition(at: sim.date(50))
        #expect(abs(Geodesy.haversineDistance(Fixture.origin, halfway) - 500) < 0.5)
        #expect(abs(Geodesy.haversineDistance(Fixture.origin, sim.truePosition(at: sim.date(500))) - 1000) < 0.5)
    }

    @Test("the seeded generator gives the same sequence for the same seed and stream only")
    func seeded() {
        var a = SeededRandom(seed: 9, stream: "x"), b = SeededRandom(seed: 9, stream: "x"), c = SeededRandom(seed: 9, stream: "y")
        let sa = (0..<5).map { _ in a.next() }
        #expect(sa == (0..<5).map { _ in b.next() })
        #expect(sa != (0..<5).map { _ in c.next() })
        var n = SeededRandom(seed: 1)
        let normals = (0..<20_000).map { _ in n.normal() }
        let mean = normals.reduce(0, +) / 20_000
        let variance = normals.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / 20_000
        #expect(abs(mean) < 0.03 && abs(variance - 1) < 0.05)
    }
}
