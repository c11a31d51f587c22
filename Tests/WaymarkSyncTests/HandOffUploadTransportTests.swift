import Foundation
import Testing
import WaymarkEngine
@testable import WaymarkSync

/// A running transport that answers from a script, or holds a send until its task is cancelled.
actor RunningDouble: UploadTransport {
    var sent: [String] = []
    var holds = false
    var answer: UploadResponse = .status(200, body: Array(#"{"result":"ok","stored":1}"#.utf8))
    /// Set when a held send has started, so a test can cancel it then.
    var holding: [String] = []

    func hold() { holds = true }

    func send(_ request: UploadRequest) async -> UploadResponse {
        sent.append(request.key)
        guard holds else { return answer }
        holding.append(request.key)
        while !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(2))
        }
        return .cancelled
    }
}

/// A continuing transport that records hand-offs and answers sends of keys it holds.
actor ContinuingDouble: ContinuingUploadTransport {
    var handedOff: [String] = []
    var sent: [String] = []
    /// Keys the system holds a transfer for, and the outcome each will give.
    var held: [String: UploadResponse] = [:]

    func preload(_ key: String, _ response: UploadResponse) { held[key] = response }

    func holdsTransfer(for key: String) async -> Bool { held[key] != nil || running.contains(key) }

    func hasOutcome(for key: String) async -> Bool { held[key] != nil }

    /// Keys whose transfer the system still runs (a discretionary one, waiting).
    var running: Set<String> = []

    func preloadRunning(_ key: String) { running.insert(key) }

    func handOff(_ request: UploadRequest) async {
        guard held[request.key] == nil else { return }
        handedOff.append(request.key)
        held[request.key] = .status(200, body: Array(#"{"result":"ok","stored":2}"#.utf8))
    }

    func send(_ request: UploadRequest) async -> UploadResponse {
        sent.append(request.key)
        return held.removeValue(forKey: request.key) ?? .connectionFailed("nothing held for \(request.key)")
    }
}

@Suite("HandOffUploadTransport (review 2, M6: send while running, hand off only what is left)")
struct HandOffUploadTransportTests {
    static func request(_ key: String) -> UploadRequest {
        UploadRequest(key: key, body: Array("{}".utf8), token: "tok")
    }

    @Test("while the process runs, a batch goes out at once through the running transport, and the system gets nothing")
    func runningSendsAtOnce() async {
        let running = RunningDouble(), continuing = ContinuingDouble()
        let transport = HandOffUploadTransport(running: running, continuing: continuing)
        let response = await transport.send(Self.request("b1"))
        #expect(response.isAcknowledgement)
        #expect(await running.sent == ["b1"])
        #expect(await continuing.handedOff.isEmpty)
        #expect(await continuing.sent.isEmpty)
    }

    @Test("a running send cancelled at suspension is handed to the system, and the next send takes the system's outcome without uploading again")
    func cancelledSendIsHandedOff() async throws {
        let running = RunningDouble(), continuing = ContinuingDouble()
        await running.hold()
        let transport = HandOffUploadTransport(running: running, continuing: continuing)
        let send = Task { await transport.send(Self.request("b1")) }
        while await running.holding.isEmpty { try await Task.sleep(for: .milliseconds(2)) }
        send.cancel()
        #expect(await send.value == .cancelled)
        #expect(await continuing.handedOff == ["b1"], "the batch goes on in the system while the app is suspended")

        let again = await transport.send(Self.request("b1"))
        #expect(again.isAcknowledgement, "the system's outcome is picked up")
        #expect(await running.sent == ["b1"], "no second upload through the running session")
        #expect(await continuing.sent == ["b1"])
    }

    @Test("a transfer the system already holds (an earlier process handed it off) is waited for, not sent again")
    func heldTransferIsPickedUp() async {
        let running = RunningDouble(), continuing = ContinuingDouble()
        await continuing.preload("b7", .status(200, body: Array(#"{"result":"ok","stored":5}"#.utf8)))
        let transport = HandOffUploadTransport(running: running, continuing: continuing)
        let response = await transport.send(Self.request("b7"))
        #expect(response.isAcknowledgement)
        #expect(await running.sent.isEmpty)
        #expect(await continuing.handedOff.isEmpty, "nothing is started twice")
    }

    @Test("when the route says the app is about to be suspended, the batch goes straight to the system")
    func routeHandsOff() async {
        let running = RunningDouble(), continuing = ContinuingDouble()
        let transport = HandOffUploadTransport(running: running, continuing: continuing, route: { .handOff })
        let response = await transport.send(Self.request("b2"))
        #expect(response.isAcknowledgement)
        #expect(await running.sent.isEmpty)
        #expect(await continuing.handedOff == ["b2"])
        #expect(await continuing.sent == ["b2"])
    }

    @Test("a send that starts in an already cancelled task is handed off, not dropped")
    func cancelledBeforeStart() async {
        let running = RunningDouble(), continuing = ContinuingDouble()
        let transport = HandOffUploadTransport(running: running, continuing: continuing)
        let send = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await transport.send(Self.request("b3"))
        }
        #expect(await send.value == .cancelled)
        #expect(await running.sent.isEmpty)
        #expect(await continuing.handedOff == ["b3"])
    }

    /// A background driver over a store holding `fixes` fixes, whose running send is held; returns
    /// once that send is out, with the id of the background task it holds.
    static func backgroundDriver(fixes: Int, configuration: UploadQueue.Configuration = .init())
        async throws -> (store: RideStore, running: RunningDouble, continuing: ContinuingDouble, driver: UploadDriver, task: Int) {
        let store = try RideStore.inMemory()
        let ride = try store.startRide(at: TestFixes.start)
        try store.append(TestFixes.ride(count: fixes), to: ride.id)
        let running = RunningDouble(), continuing = ContinuingDouble()
        await running.hold()
        let executor = UploadExecutor(store: store, transport: HandOffUploadTransport(running: running, continuing: continuing),
                                      credentials: DeviceCredentials(token: "tok"))
        let log = CommandLog()
        let driver = try UploadDriver(executor: executor, configuration: configuration, seed: 5, foreground: false,
                                      commands: { await log.append($0) })
        await driver.flush()
        while await running.holding.isEmpty { try await Task.sleep(for: .milliseconds(2)) }
        let begun = await log.commands.compactMap { command -> Int? in
            if case .beginBackgroundTask(let id) = command { return id } else { return nil }
        }
        let id = try #require(begun.first, "a background send holds a background task")
        return (store, running, continuing, driver, id)
    }

    @Test("through the upload driver: a background send cut by the background task's expiry is handed off, the batch stays pending and is then acknowledged from the system's outcome")
    func driverExpiryHandsOff() async throws {
        let (store, running, continuing, driver, id) = try await Self.backgroundDriver(fixes: 30)
        await driver.handle(.backgroundTaskExpired(id: id))
        while await continuing.handedOff.isEmpty { try await Task.sleep(for: .milliseconds(2)) }
        #expect(await continuing.handedOff.count == 1)
        #expect(try store.fixCount() == 30, "nothing is deleted before an acknowledgement")

        // The app wakes again: the pending batch's next send takes the system's outcome.
        await driver.handle(.willEnterForeground)
        await driver.flush()
        for await status in driver.statuses where status.backlog.isEmpty && status.phase == .idle { break }
        await driver.stop()
        #expect(try store.fixCount() == 0)
        #expect(await running.sent.count == 1, "the handed-off batch was not uploaded a second time")
        let handedOff = await continuing.handedOff
        #expect(await continuing.sent == handedOff)
    }

    @Test("at suspension the rest of the backlog goes to the system too, in one larger batch, several transfers at once; all acknowledged later from the system's outcomes")
    func backlogHandedOffAtSuspension() async throws {
        let (store, running, continuing, driver, id) = try await Self.backgroundDriver(
            fixes: 300, configuration: .init(maxBatchPoints: 60, handOffBatchPoints: 1_000))
        await driver.handle(.backgroundTaskExpired(id: id))
        while await continuing.handedOff.count < 2 { try await Task.sleep(for: .milliseconds(2)) }
        let backlog = try store.backlog()
        #expect(backlog.pending.map(\.points).sorted() == [60, 240], "the batch in flight and one larger batch of the rest")
        #expect(!backlog.hasUnbatched)
        #expect(await continuing.handedOff.count == 2)
        #expect(try store.fixCount() == 300, "nothing deleted before an acknowledgement")

        await driver.handle(.willEnterForeground)
        await driver.flush()
        for await status in driver.statuses where status.backlog.isEmpty && status.phase == .idle { break }
        await driver.stop()
        #expect(try store.fixCount() == 0)
        #expect(await running.sent.count == 1, "nothing handed off was uploaded again through the running session")
    }

    @Test("a transport that cannot carry transfers on after the process (no continuing part): nothing is re-batched at suspension")
    func noContinuingNoHandOff() async throws {
        let store = try RideStore.inMemory()
        let ride = try store.startRide(at: TestFixes.start)
        try store.append(TestFixes.ride(count: 300), to: ride.id)
        let running = RunningDouble()
        await running.hold()
        let executor = UploadExecutor(store: store, transport: running, credentials: DeviceCredentials(token: "tok"))
        #expect(executor.continuing == nil)
        #expect(try await executor.handOffBacklog(maxPoints: 1_000, maxBytes: 1 << 21, at: TestFixes.start).isEmpty)
        #expect(try store.backlog().pending.isEmpty, "no batch formed")
    }

    @Test("a transfer the system still runs (discretionary, waiting) does not hold up a running process: the batch goes out now, and the system's copy is absorbed by its key")
    func runningTransferDoesNotBlock() async {
        let running = RunningDouble(), continuing = ContinuingDouble()
        await continuing.preloadRunning("b9")
        let transport = HandOffUploadTransport(running: running, continuing: continuing)
        let response = await transport.send(Self.request("b9"))
        #expect(response.isAcknowledgement)
        #expect(await running.sent == ["b9"])
        #expect(await continuing.sent.isEmpty, "the send did not wait on the system's transfer")
    }
}
