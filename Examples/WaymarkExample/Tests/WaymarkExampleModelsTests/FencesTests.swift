import Foundation
import Testing
import WaymarkEngine
import WaymarkGeo
import WaymarkSimulator
@testable import WaymarkExampleModels

/// The Fences tab: fences added in the app, their enter and exit events listed newest first.
@Suite("Fences tab")
@MainActor
struct FencesTests {
    @Test("a ride through a fence lists its enter and exit, newest first, and the log is stored", arguments: LocationBackend.allCases)
    func rideThroughAFence(backend: LocationBackend) async throws {
        let scenario = Scenarios.existing(.authorizedAlways, motion: .granted,
                                          route: Scenarios.eastbound(speed: 6, seconds: 400, after: 20), duration: 600)
        let phone = try SimulatedPhone(scenario: scenario, backend: backend)
        await phone.launch()
        let app = phone.app
        try await app.fences.addFence(named: "Bakery", at: Scenarios.east(1_200), radiusMeters: 150)
        #expect(app.fences.state.fences.map(\.name) == ["Bakery"])
        _ = try await phone.whileAdvancing(limit: 30) { await app.ride.start() }
        await phone.advance(until: { app.fences.state.events.count >= 2 }, limit: 500)

        let events = app.fences.state.events
        #expect(events.map(\.title) == ["Left Bakery", "Entered Bakery"])
        #expect(events.map(\.event.kind) == [.exit, .enter])
        #expect(events.allSatisfy { $0.detail == "live" })
        let enter = try #require(events.last?.event.time.timeIntervalSince(await phone.sim.epoch))
        let boundary: Double = 20 + 1_050 / 6   // 1,050 m east at 6 m/s after 20 s
        #expect(abs(enter - boundary) < 20, "entered at \(enter) s")
        #expect(app.fences.state.fences.first?.presence == .outside)
        #expect(phone.store.state.fenceLog.map(\.kind) == [.exit, .enter])
        #expect(phone.store.state.geofences?.fences.keys.sorted() == app.fences.state.fences.map(\.id))
    }

    @Test("the server's fences arrive when the server is set, beside the app's own; 304 while unchanged; a new set replaces only the server's")
    func serverFences() async throws {
        let scenario = Scenarios.existing(.authorizedAlways, motion: .granted,
                                          route: Scenarios.eastbound(speed: 6, seconds: 400, after: 20), duration: 600)
        let phone = try SimulatedPhone(scenario: scenario)
        await phone.server.setFences([("school", "School", Scenarios.east(1_200), 150)])
        await phone.launch()
        let app = phone.app
        try await app.fences.addFence(named: "Bakery", at: Scenarios.east(600), radiusMeters: 100)
        await app.setServer(ServerSettings(url: "http://127.0.0.1:8080", token: "wmd_test"))
        #expect(app.fences.state.fences.map(\.name) == ["Bakery", "School"])
        #expect(app.fences.state.fences.map(\.fromServer) == [false, true])
        #expect(app.fences.state.serverStatus == "1 fence from the server")
        // The rider crosses both: the server's fence reports like the app's own.
        _ = try await phone.whileAdvancing(limit: 30) { await app.ride.start() }
        await phone.advance(until: { app.fences.state.events.count >= 4 }, limit: 500)
        #expect(Set(app.fences.state.events.map(\.title)) == ["Entered Bakery", "Left Bakery", "Entered School", "Left School"])
        // A server fence is removed on the server, not in the app.
        await app.fences.removeFence(id: "school")
        #expect(app.fences.state.fences.map(\.name) == ["Bakery", "School"])
        #expect(app.fences.state.problem == "School is defined on the server: remove it there.")
        // The next start revalidates: 304 while unchanged, then the new set, which replaces only the server's fences.
        await app.setServer(ServerSettings(url: "http://127.0.0.1:8080", token: "wmd_test"))
        await phone.server.setFences([("gym", "Gym", Scenarios.east(2_000), 200)])
        await app.setServer(ServerSettings(url: "http://127.0.0.1:8080", token: "wmd_test"))
        let requests = await phone.server.fenceRequests
        #expect(requests.map(\.status) == [200, 304, 200])
        #expect(requests.map(\.request.ifNoneMatch) == [nil, "\"fences-1\"", "\"fences-1\""])
        #expect(app.fences.state.fences.map(\.name) == ["Bakery", "Gym"])
        #expect(phone.store.state.geofences?.fences.keys.sorted().contains("school") == false)
    }

    @Test("the stored log and fences come back at the next launch")
    func storedLogComesBack() async throws {
        let fence = Fence(id: "f1", shape: .circle(center: Scenarios.east(300), radiusMeters: 100), userData: ["name": "Gate"])
        let event = FenceEvent(fenceID: "f1", kind: .enter, time: Scenario.defaultStartTime, cause: .elapsed, sequence: 1,
                               userData: ["name": "Gate"])
        var geofences = GeofenceMonitor.PersistentState()
        geofences.fences = ["f1": fence]
        let phone = try SimulatedPhone(scenario: Scenarios.fresh(duration: 60),
                                       stored: StoredAppState(geofences: geofences, fenceLog: [event]))
        let fences = phone.app.fences
        #expect(fences.state.fences.map(\.name) == ["Gate"])
        #expect(fences.state.events.map(\.title) == ["Entered Gate"])
        await phone.launch()
        await phone.advance(seconds: 5)
        #expect(fences.state.events.map(\.id) == ["f1#1"])
    }

    @Test("an invalid fence is refused with a message and nothing changes")
    func invalidFence() async throws {
        let phone = try SimulatedPhone(scenario: Scenarios.fresh(duration: 60))
        await phone.launch()
        let fences = phone.app.fences
        await #expect(throws: GeoError.self) {
            try await fences.addFence(named: "Nowhere", at: Scenarios.origin, radiusMeters: -5)
        }
        #expect(fences.state.fences.isEmpty)
        #expect(fences.state.problem != nil)
    }
}
