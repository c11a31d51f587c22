import Foundation
import Testing
import WaymarkEngine
import WaymarkGeo
import WaymarkSimulator
@testable import WaymarkSync
import WaymarkSimulatedPhone

/// Upload outcomes in the field log (issue #32 item 3): every answer the queue acts on (accepted,
/// accepted with points rejected, refused and split, rejected and kept aside, unauthorized, failed
/// and retried) is an entry, on the queue's time, with the engine's entries in the same files.
@Suite("Field log: upload outcomes", .timeLimit(.minutes(3)))
struct FieldLogUploadTests {
    /// Answers each send with the next scripted response (then acknowledges), and counts the sends.
    struct ScriptedTransport: UploadTransport {
        actor Script {
            var responses: [UploadResponse]
            var sent = 0
            init(_ responses: [UploadResponse]) { self.responses = responses }
            func next() -> UploadResponse {
                sent += 1
                return responses.isEmpty ? FieldLogUploadTests.ok : responses.removeFirst()
            }
        }
        let script: Script
        init(_ responses: [UploadResponse]) { script = Script(responses) }
        func send(_ request: UploadRequest) async -> UploadResponse { await script.next() }
    }

    static let ok = UploadResponse.status(200, body: Array(#"{"result":"ok","rejected":[]}"#.utf8))

    static func folder() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("waymark-uploadlog-\(UUID().uuidString)", isDirectory: true)
    }

    @Test("accepted, retried after a failure, refused and split, accepted with a point rejected, rejected for good, unauthorized")
    func outcomes() async throws {
        let dir = Self.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let log = FieldLog(.init(directory: dir, systemLog: false))
        let store = try RideStore.inMemory()
        let ride = try store.startRide(at: TestFixes.start)
        try store.append(TestFixes.ride(count: 40), to: ride.id)
        let partly = UploadResponse.status(200, body: Array(
            #"{"result":"ok","rejected":[{"index":1,"field":"properties.timestamp","message":"too old"}]}"#.utf8))
        let transport = ScriptedTransport([
            .status(503, body: Array(#"{"error":{"message":"maintenance"}}"#.utf8)),   // batch 1: failed, retried
            Self.ok,                                                                      // batch 1 accepted
            .status(413, body: []),                                                       // batch 2: split
            partly,                                                                       // half of it, one point rejected
            .status(400, body: Array(#"{"error":{"message":"bad coordinates"}}"#.utf8)),  // the other half (one point left? no: 5)
            .status(401, body: []),                                                       // batch 3: unauthorized
        ])
        var uploader = try VirtualTimeUploader(store: store, transport: transport, credentials: DeviceCredentials(token: "tok"),
                                               configuration: .init(maxBatchPoints: 10, maxBatchAge: 0, backoffBase: 1, backoffCap: 2,
                                                                    isolateRejectedPoints: false),
                                               seed: 3, now: TestFixes.start.addingTimeInterval(100), log: log)
        try await uploader.sendAll(maxSteps: 200)
        #expect(try store.backlog().isEmpty)
        let entries = await log.entries().filter { $0.category == .upload }
        let messages = entries.map(\.message)
        func has(_ prefix: String, _ level: FieldLogLevel) -> Bool {
            entries.contains { $0.message.hasPrefix(prefix) && $0.level == level }
        }
        #expect(has("upload failed (HTTP 503: maintenance): batch ", .warning), "\(messages)")
        #expect(messages.contains { $0.contains("attempt 1 in a row; retried in ") && $0.hasSuffix(" s, same key") })
        #expect(has("upload accepted: batch ", .info))
        #expect(has("upload refused (HTTP 413): batch ", .notice))
        #expect(messages.contains { $0.contains("split in two") })
        #expect(has("upload accepted with 1 of 5 points rejected by the server", .warning))
        #expect(messages.contains { $0.contains("#1 properties.timestamp: too old") })
        #expect(has("upload rejected: batch ", .error))
        #expect(messages.contains { $0.contains("HTTP 400: the server could not read the batch: bad coordinates") })
        #expect(has("upload unauthorized (HTTP 401): batch ", .warning))
        #expect(has("device credentials refreshed", .info))
        // One entry per answer the queue acted on, on the queue's (virtual) time.
        #expect(entries.filter { $0.message.hasPrefix("upload ") }.count == uploader.sends.count)
        for (entry, send) in zip(entries.filter { $0.message.hasPrefix("upload ") }, uploader.sends) {
            #expect(abs(entry.time.timeIntervalSince(send.at)) < 0.001)
            #expect(entry.message.contains("batch \(send.key) (\(send.points) point"))
        }
    }

    @Test("a simulated phone writes one log: the engine's launch, ride and fence entries beside the upload outcomes")
    func phoneLog() async throws {
        let path = TestFixes.temporaryStorePath()
        defer { TestFixes.removeStore(at: path) }
        var rng = SplitMix64(seed: 4)
        let (scenario, _) = SimulatedRideRun.commute(seed: 4, rng: &rng)
        let sim = try Simulation(scenario: scenario, seed: 4,
                                 app: EngineApp(script: EngineApp.Script(startsRide: true, rideID: "commute")))
        let log = FieldLog(.init(besideStoreAt: path, systemLog: false))
        var phone = try SimulatedPhone(simulation: sim, storePath: path, transport: ScriptedTransport([.timedOut]),
                                       credentials: DeviceCredentials(token: "tok"),
                                       uploads: .init(maxBatchPoints: 60, maxBatchAge: 60, backoffBase: 1, backoffCap: 5), seed: 4,
                                       log: log)
        var t = 0.0
        while t < sim.endTime {
            t = min(t + 15, sim.endTime)
            try await phone.advance(to: t)
        }
        try await phone.finishOnline()
        let status = await log.status
        #expect(status.files.first?.deletingLastPathComponent().path
                == URL(fileURLWithPath: path).deletingLastPathComponent().appendingPathComponent("WaymarkLog").path)
        let entries = await log.entries()
        #expect(entries.filter { $0.category == .launch && $0.message.hasPrefix("launched ") }.count == phone.launches,
                "one launch entry per process")
        #expect(entries.contains { $0.category == .launch && $0.message.contains("cause: opened by the user") })
        #expect(entries.contains { $0.category == .ride && $0.message.hasPrefix("ride 'commute' started by the rider") })
        #expect(entries.contains { $0.category == .system && $0.message.contains("Background App Refresh") })
        #expect(entries.contains { $0.category == .upload && $0.message.hasPrefix("upload failed (timed out)") })
        let accepted = entries.filter { $0.category == .upload && $0.message.hasPrefix("upload accepted: ") }
        #expect(accepted.count == phone.sends.filter { $0.response.isAcknowledgement }.count)
        #expect(!accepted.isEmpty)
    }
}
