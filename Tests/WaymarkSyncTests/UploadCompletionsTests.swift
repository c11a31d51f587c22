import Foundation
import Testing
@testable import WaymarkTransport

/// The rendezvous between a background session's delegate and the sends that wait for it. The
/// "delegate" here is the test calling `transferFinished`, as URLSession would on its queue.
@Suite("Background transfers: finished while waited for, suspended, or before a relaunch", .timeLimit(.minutes(5)))   // a cancellable wait (settle, waitUntil…) that never ends fails instead of hanging
struct UploadCompletionsTests {
    static let ack = UploadResponse.status(200, body: Array(#"{"result":"ok"}"#.utf8))

    func waitUntilWaiting(_ completions: UploadCompletions, _ key: String) async {
        await completions.waitUntil(waiting: 1, for: key)
    }

    @Test("a send waiting for its transfer gets the outcome when the delegate reports it, and the record is consumed")
    func waitedFor() async throws {
        let temp = try TemporaryOutcomeStore()
        defer { temp.remove() }
        let completions = UploadCompletions(store: temp.store)
        let send = Task { await completions.outcome(for: "k") }
        await waitUntilWaiting(completions, "k")
        try completions.transferFinished(key: "k", response: Self.ack)
        #expect(await send.value == Self.ack)
        #expect(temp.store.outcome(for: "k") == nil, "delivered once: a later send uploads again")
    }

    @Test("a transfer that finished while the app was suspended or dead is returned at once after a relaunch, once")
    func finishedBeforeRelaunch() async throws {
        let temp = try TemporaryOutcomeStore()
        defer { temp.remove() }
        // The process that started the transfer is gone; iOS relaunches the app and the new
        // session's delegate records what the system finished meanwhile.
        try UploadCompletions(store: temp.store).transferFinished(key: "k", response: Self.ack)
        let relaunched = UploadCompletions(store: try UploadOutcomeStore(directory: temp.store.directory))
        #expect(relaunched.takeRecorded("k") == Self.ack)
        #expect(relaunched.takeRecorded("k") == nil)
    }

    @Test("outcome(for:) returns a recorded outcome at once instead of waiting")
    func recordedBeforeWaiting() async throws {
        let temp = try TemporaryOutcomeStore()
        defer { temp.remove() }
        let completions = UploadCompletions(store: temp.store)
        try completions.transferFinished(key: "k", response: .status(413, body: []))
        #expect(await completions.outcome(for: "k") == .status(413, body: []))
        #expect(await completions.waiting(for: "k") == 0)
    }

    @Test("a cancelled send returns .cancelled at once; the transfer's outcome waits on disk for the next send")
    func cancelledSend() async throws {
        let temp = try TemporaryOutcomeStore()
        defer { temp.remove() }
        let completions = UploadCompletions(store: temp.store)
        let send = Task { await completions.outcome(for: "k") }
        await waitUntilWaiting(completions, "k")
        send.cancel()
        #expect(await send.value == .cancelled)
        await completions.waitUntil(waiting: 0, for: "k")   // the cancelled send is gone
        try completions.transferFinished(key: "k", response: Self.ack)
        #expect(await completions.outcome(for: "k") == Self.ack)
    }

    @Test("two sends waiting for the same key both get the outcome")
    func twoWaiters() async throws {
        let temp = try TemporaryOutcomeStore()
        defer { temp.remove() }
        let completions = UploadCompletions(store: temp.store)
        let first = Task { await completions.outcome(for: "k") }
        let second = Task { await completions.outcome(for: "k") }
        await completions.waitUntil(waiting: 2, for: "k")
        try completions.transferFinished(key: "k", response: .timedOut)
        #expect(await first.value == .timedOut)
        #expect(await second.value == .timedOut)
    }

    @Test("when the outcome cannot be written, the waiting send still gets it and the error is reported")
    func unwritableStore() async throws {
        let temp = try TemporaryOutcomeStore()
        defer { temp.remove() }
        let completions = UploadCompletions(store: temp.store)
        let send = Task { await completions.outcome(for: "k") }
        await waitUntilWaiting(completions, "k")
        try FileManager.default.removeItem(at: temp.store.directory)
        #expect(throws: TransportError.self) { try completions.transferFinished(key: "k", response: Self.ack) }
        #expect(await send.value == Self.ack)
    }

    @Test("a late wake-up from an earlier transfer of the key does not erase a newer transfer's outcome")
    func lateWakeUp() async throws {
        let temp = try TemporaryOutcomeStore()
        defer { temp.remove() }
        let completions = UploadCompletions(store: temp.store)
        let send = Task { await completions.outcome(for: "k") }
        await waitUntilWaiting(completions, "k")
        // The second transfer's outcome is on disk; the first transfer's wake-up arrives only now.
        try temp.store.record(UploadOutcome(key: "k", response: Self.ack, finishedAt: Date()))
        await completions.deliver(key: "k", response: .status(503, body: []))
        #expect(await send.value == .status(503, body: []))
        #expect(completions.takeRecorded("k") == Self.ack, "the acknowledgement is still there for the next send")
    }

    @Test("outcomes of other keys do not wake a send")
    func otherKeys() async throws {
        let temp = try TemporaryOutcomeStore()
        defer { temp.remove() }
        let completions = UploadCompletions(store: temp.store)
        let send = Task { await completions.outcome(for: "k") }
        await waitUntilWaiting(completions, "k")
        try completions.transferFinished(key: "k.a", response: Self.ack)
        #expect(temp.store.outcome(for: "k.a") != nil)
        #expect(await completions.waiting(for: "k") == 1)
        try completions.transferFinished(key: "k", response: .cancelled)
        #expect(await send.value == .cancelled)
    }
}
