import Foundation
import Testing
import WaymarkSimulator
import WaymarkTransport

/// `UploadResponse.attempt(within:on:_:)`, the timeout both foreground transports use, on a clock the
/// test drives: no real time passes.
@Suite("An upload attempt against a timeout on a clock you drive", .timeLimit(.minutes(1)))
struct UploadTimeoutTests {
    /// An attempt that answers only when the test says, and ignores cancellation (as a slow HTTP stack may).
    final class Gate: Sendable {
        let (opened, open) = AsyncStream.makeStream(of: UploadResponse.self)
        let (started, start) = AsyncStream.makeStream(of: Void.self)
        func wait() async -> UploadResponse {
            start.yield()
            // An unstructured task is not cancelled with its caller: this attempt really ignores it.
            let opened = opened
            return await Task {
                for await response in opened { return response }
                return .connectionFailed("gate closed")
            }.value
        }
        /// Returns once an attempt is waiting at the gate (its deadline was taken before it began).
        func waitForAttempt() async { for await _ in started { return } }
    }

    static let ok = UploadResponse.status(200, body: Array(#"{"result":"ok"}"#.utf8))

    @Test("the attempt's answer when it comes before the deadline")
    func answerFirst() async throws {
        let clock = SimulatedClock(startingAt: 0)
        #expect(await UploadResponse.attempt(within: .seconds(30), on: clock) { Self.ok } == Self.ok)
    }

    @Test("timed out when the clock passes the deadline first, without waiting for an attempt that never stops")
    func deadlineFirst() async throws {
        let clock = SimulatedClock(startingAt: 0)
        let gate = Gate()
        defer { gate.open.finish() }
        let send = Task { await UploadResponse.attempt(within: .seconds(30), on: clock) { await gate.wait() } }
        await gate.waitForAttempt()
        clock.advance(by: .seconds(29))
        clock.advance(by: .seconds(1))
        #expect(await send.value == .timedOut)
    }

    @Test("the deadline is 30 s, not less: an answer at 29.999 s wins, and nothing is timed out before")
    func answerJustBeforeTheDeadline() async throws {
        let clock = SimulatedClock(startingAt: 0)
        let gate = Gate()
        defer { gate.open.finish() }
        let send = Task { await UploadResponse.attempt(within: .seconds(30), on: clock) { await gate.wait() } }
        await gate.waitForAttempt()
        clock.advance(by: .milliseconds(29_999))
        #expect(clock.now.offset == .milliseconds(29_999))
        gate.open.yield(Self.ok)
        #expect(await send.value == Self.ok, "a deadline shorter than 30 s would have answered .timedOut")
    }

    @Test("the deadline is 30 s, not more: timed out exactly when the clock reaches 30 s")
    func timedOutAtThirtySeconds() async throws {
        let clock = SimulatedClock(startingAt: 0)
        let gate = Gate()
        defer { gate.open.finish() }
        let send = Task { await UploadResponse.attempt(within: .seconds(30), on: clock) { await gate.wait() } }
        await gate.waitForAttempt()
        clock.advance(by: .seconds(30))   // exactly the deadline: a longer one would keep waiting (the time limit fails the test)
        #expect(await send.value == .timedOut)
    }

    @Test("the foreground transport waits 30 s by default")
    func defaultTimeout() throws {
        #expect(try URLSessionUploadTransport(server: URL(string: "http://127.0.0.1:9")!).timeout == .seconds(30))
    }

    @Test("timed out at once when the clock was moved past the deadline before the timer started waiting")
    func movedEarly() async throws {
        let clock = SimulatedClock(startingAt: 0)
        let gate = Gate()
        defer { gate.open.finish() }
        let response = await UploadResponse.attempt(within: .seconds(30), on: clock) {
            clock.advance(by: .seconds(31))   // inside the attempt: the deadline was taken before it began
            return await gate.wait()
        }
        #expect(response == .timedOut)
    }

    @Test("cancelled when the caller is cancelled, even if the attempt ignores it")
    func cancelled() async throws {
        let clock = SimulatedClock(startingAt: 0)
        let gate = Gate()
        defer { gate.open.finish() }
        let send = Task { await UploadResponse.attempt(within: .seconds(30), on: clock) { await gate.wait() } }
        send.cancel()
        #expect(await send.value == .cancelled)
    }
}
