import Foundation
import Testing
import WaymarkEngine
import WaymarkGeo
@testable import WaymarkSimulator

@Suite("Geofencing: a two-hour ride past 5,000 fences")
struct GeofencingRideTests {
    static let corpus = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("WaymarkGeoTests/Fixtures/corpus/gpxpy")

    /// The korita–zbevnica track (15 km), its timestamps scaled to a two-hour ride (about 2 m/s).
    static func twoHourRide() throws -> Trajectory {
        let document = try GPXDocument(contentsOf: corpus.appendingPathComponent("korita-zbevnica.gpx"))
        let points = document.tracks.flatMap(\.segments).flatMap(\.points).filter { $0.time != nil }
        let t0 = try #require(points.first?.time), t1 = try #require(points.last?.time)
        let scale = 7200 / t1.timeIntervalSince(t0)
        return Trajectory(timedWaypoints: points.map {
            Waypoint(coordinate: $0.coordinate, time: t0.addingTimeInterval($0.time!.timeIntervalSince(t0) * scale))
        })
    }

    /// 5,000 circles of 100–500 m around the ride: centres offset from random points of the route
    /// by up to the radius plus 400 m (so some are crossed, some grazed, most missed), and 40 that
    /// the ride starts inside.
    static func fences(along ride: Trajectory, seed: UInt64) -> [Fence] {
        var rng = SplitMix64(seed: seed)
        return (0..<5000).map { i in
            let radius = Double.random(in: 100...500, using: &rng)
            let t = i < 40 ? 0 : Double.random(in: 0...ride.endTime, using: &rng)
            let offset = i < 40 ? Double.random(in: 0...(radius - 80), using: &rng)
                : Double.random(in: 0...(radius + 400), using: &rng)
            let center = Geodesy.destination(from: ride.position(at: t), bearing: Double.random(in: 0..<360, using: &rng),
                                             distance: offset)
            return Fence(id: "f\(i)", shape: .circle(center: center, radiusMeters: radius), triggers: .all)
        }
    }

    @Test("recall ≥ 99% (radius ≥ 150 m) and precision ≥ 99%; slot use never over budget")
    func ride() throws {
        let trajectory = try Self.twoHourRide()
        let fences = Self.fences(along: trajectory, seed: 42)
        let scenario = GeofenceScenario.make(route: ScenarioRoute(start: trajectory.position(at: 0), legs: []),
                                             duration: trajectory.endTime + 180)
        var sim = try Simulation(scenario: scenario, seed: 7, app: GeofencingTestApp(fences: fences), trajectory: trajectory)
        var overBudget = 0, maxUsed = 0
        GeofenceScenario.run(&sim, until: sim.endTime, step: 5) { sim in
            let used = sim.monitoredRegionIdentifiers.filter { $0.hasPrefix("waymark.") }.count
            maxUsed = max(maxUsed, used)
            if used > 20 || sim.monitoredRegionIdentifiers.count > 20 { overBudget += 1 }
        }
        let app = GeofencingTestApp.app(of: sim)
        let firstDecision = try #require(sim.fixes.first { ($0.horizontalAccuracy ?? .infinity) <= 50 }?.timestamp)
        let truth = GroundTruth(fences: fences, simulation: sim, from: firstDecision.timeIntervalSince(sim.epoch))
        let centers = Dictionary(uniqueKeysWithValues: fences.map { f -> (String, Coordinate) in
            guard case .circle(let c, _) = f.shape else { fatalError() }
            return (f.id, c)
        })
        let score = truth.score(app.delivered.filter { $0.kind != .dwell }, simulation: sim, minimumRadius: 150, centers: centers)
        print("geofence ride: \(score.strictCrossings) crossings, recall \(score.recall), precision \(score.precision), events \(app.delivered.count)")
        #expect(score.strictCrossings > 300)   // the ride really crosses many fences
        #expect(score.recall >= 0.99, "recall \(score.recall): missed \(score.missed.prefix(10))")
        #expect(score.precision >= 0.99, "precision \(score.precision): false \(score.falseEvents.prefix(10))")
        #expect(overBudget == 0)
        #expect(maxUsed == 20)
        #expect(Set(app.delivered.map { "\($0.fenceID)#\($0.sequence)" }).count == app.delivered.count)
        #expect(!app.delivered.contains { $0.fenceID < "f40" && $0.fenceID.count == 3 && $0.kind == .enter && $0.sequence == 1 })
    }
}
