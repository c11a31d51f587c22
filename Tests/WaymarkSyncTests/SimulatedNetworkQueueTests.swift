import Foundation
import Testing
import WaymarkEngine
import WaymarkGeo
import WaymarkSimulator
@testable import WaymarkSync
import WaymarkSimulatedPhone
import WaymarkCLI

/// The real upload queue meets the scenario's network through `SimulatedNetworkTransport` (which
/// `SimulatedPhone` puts in front of the transport it is given), on virtual time: too large a body gets
/// 413 and the queue splits it, a refusal and a silent server are retried after backoff, a lost reply is
/// retried under the same key and absorbed by the server as a replay. What gets through reaches a real
/// HTTP test server, which must end with every recorded point exactly once.
@Suite("The real queue behind the simulated network")
struct SimulatedNetworkQueueTests {
    @Test("413s split, refusals and silences retried, lost replies absorbed: every point stored once",
          arguments: [UInt64(2), 5, 9])
    func queueMeetsTheNetwork(seed: UInt64) async throws {
        let server = try await IngestTestServer.start()
        defer { server.stop() }
        await server.state.register(token: "tok", device: "sim-\(seed)")
        let path = TestFixes.temporaryStorePath()
        defer { TestFixes.removeStore(at: path) }
        var rng = SplitMix64(seed: seed &* 0x9E37_79B9_7F4A_7C15 &+ 5)
        var (scenario, _) = SimulatedRideRun.commute(seed: seed, rng: &rng)
        // The ride's first minutes, cut into windows: lost replies, refusals, a silent server.
        var world = scenario.world ?? World()
        var network = world.network ?? World.Network()
        network.offline = nil
        network.server = World.Server(maxBodyBytes: 3_000, rules: [
            World.Server.Rule(window: TimeWindow(from: 60, to: 150), replyLost: true),
            World.Server.Rule(window: TimeWindow(from: 150, to: 240), status: 503),
            World.Server.Rule(window: TimeWindow(from: 240, to: 330), timeout: true),
        ])
        world.network = network
        scenario.world = world
        let sim = try Simulation(scenario: scenario, seed: seed,
                                 app: EngineApp(script: EngineApp.Script(startsRide: true, rideID: "ride-\(seed)")))
        let transport = try HTTPUploadTransport(server: server.baseURL, timeout: .seconds(30))
        var phone = try SimulatedPhone(simulation: sim, storePath: path, transport: transport,
                                       credentials: DeviceCredentials(token: "tok"), deviceID: "sim-\(seed)",
                                       uploads: UploadQueue.Configuration(maxBatchPoints: 60, maxBatchAge: 30), seed: seed)
        var t = 0.0
        while t < sim.endTime {
            t = min(t + 15, sim.endTime)
            try await phone.advance(to: t)
        }
        try await phone.finishOnline()
        #expect(try phone.store.backlog().isEmpty)

        // The queue met every kind of answer the scenario's server gives.
        let responses = phone.sends.map(\.response)
        #expect(responses.contains { if case .status(413, _) = $0 { true } else { false } }, "seed \(seed)")
        #expect(responses.contains { if case .status(503, _) = $0 { true } else { false } }, "seed \(seed)")
        #expect(responses.filter { $0 == .timedOut }.count >= 2, "seed \(seed): silent server and lost replies")
        // Answers from the simulated network came in their windows; a lost reply still reached the server.
        for send in phone.sends {
            let at = send.at.timeIntervalSince(sim.epoch)
            if case .status(503, _) = send.response { #expect((150..<240).contains(at)) }
            if send.response == .timedOut { #expect((60..<150).contains(at) || (240..<330).contains(at)) }
        }
        let stats = await server.state.stats(device: "sim-\(seed)")
        #expect(stats.replays >= 1, "seed \(seed): a batch whose reply was lost was sent again and absorbed")
        #expect(stats.crossBatchDuplicates == 0)
        // Every recorded point is on the server exactly once, and no request over the limit got there.
        let stored = await server.state.points(device: "sim-\(seed)")
        #expect(stored.count == phone.recorded.count && Set(stored.map(\.timestamp)).count == stored.count)
        #expect(await server.state.requestSizes(device: "sim-\(seed)").allSatisfy { $0.bytes <= 3_000 })
        // Each upload was accounted in the simulation: counted, with radio energy for those that left the phone.
        #expect(phone.simulation.stats.uploads == phone.sends.count)
        #expect(phone.simulation.energy[.radio] > 0)
        #expect(phone.simulation.log.entries.contains { $0.note?.hasPrefix("upload of") == true && $0.note!.hasSuffix("refused with HTTP 413") })
    }
}
