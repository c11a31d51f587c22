import Foundation
import Testing
import WaymarkEngine
import WaymarkGeo
import WaymarkSimulator
@testable import WaymarkSync
import WaymarkSimulatedPhone

/// A fix's honesty marks on the phone: recorded by the engine from the simulated iPhone, kept in the ride
/// store, and sent in the native upload format.
@Suite("Honest fixes on the phone: recorded, stored, uploaded")
struct HonestFixUploadTests {
    /// Decodes every acknowledged body with the format's reference decoder and keeps the fixes.
    struct DecodingTransport: UploadTransport {
        actor Seen {
            var fixes: [Fix] = []
            var unreadable = 0
            func add(_ body: [UInt8]) {
                do { fixes += try NativeBatchFormat.decode(body).fixes } catch { unreadable += 1 }
            }
        }
        let seen = Seen()
        func send(_ request: UploadRequest) async -> UploadResponse {
            await seen.add(request.body)
            return .status(200, body: Array(#"{"result":"ok","rejected":[]}"#.utf8))
        }
    }

    @Test("fixes from a mock-location spell and an accessory spell reach the upload with their origin; the rest stay unknown")
    func uploaded() async throws {
        let path = TestFixes.temporaryStorePath()
        defer { TestFixes.removeStore(at: path) }
        let start = Coordinate(uncheckedLatitude: 46.05, longitude: 14.5)
        let scenario = Scenario(
            name: "honest", seed: 5, startTime: SimulatedRideRun.epoch, durationSeconds: 400,
            route: ScenarioRoute(start: start, legs: [.travel([Geodesy.destination(from: start, bearing: 90, distance: 2_000)],
                                                              speed: 5.5, activity: .cycling)]),
            device: DeviceSetup(install: .existing, location: .authorizedAlways, motion: .granted, backgroundModes: [.location]),
            user: UserBehaviour(actions: [UserAction(at: 0, .open)]),
            world: World(locationSource: World.LocationSource(simulatedBySoftware: [TimeWindow(from: 60, to: 120)],
                                                              externalAccessory: [TimeWindow(from: 200, to: 260)])))
        let sim = try Simulation(scenario: scenario, seed: 5, app: EngineApp(script: EngineApp.Script(startsRide: true, rideID: "r")))
        let transport = DecodingTransport()
        var phone = try SimulatedPhone(simulation: sim, storePath: path, transport: transport,
                                       credentials: DeviceCredentials(token: "tok"),
                                       uploads: UploadQueue.Configuration(maxBatchPoints: 50, maxBatchAge: 30))
        var t = 0.0
        while t < sim.endTime {
            t = min(t + 15, sim.endTime)
            try await phone.advance(to: t)
        }
        try await phone.finishOnline()
        let uploaded = await transport.seen.fixes
        #expect(await transport.seen.unreadable == 0)
        #expect(uploaded.count == phone.recorded.count)
        #expect(uploaded.map(\.sourceInformation) == phone.recorded.map(\.sourceInformation))
        #expect(uploaded.map(\.impliesImpossibleSpeed) == phone.recorded.map(\.impliesImpossibleSpeed))
        let epoch = sim.epoch
        for fix in uploaded {
            let t = fix.timestamp.timeIntervalSince(epoch)
            let expected: Fix.SourceInformation? = (60..<120).contains(t)
                ? Fix.SourceInformation(isSimulatedBySoftware: true, isProducedByAccessory: false)
                : (200..<260).contains(t) ? Fix.SourceInformation(isSimulatedBySoftware: false, isProducedByAccessory: true) : nil
            #expect(fix.sourceInformation == expected, "at \(t) s")
        }
        // The ride's distance filter at cycling speed records a fix every few seconds: about eight a minute.
        #expect(uploaded.filter { $0.sourceInformation?.isSimulatedBySoftware == true }.count >= 5)
        #expect(uploaded.filter { $0.sourceInformation?.isProducedByAccessory == true }.count >= 5)
    }
}
