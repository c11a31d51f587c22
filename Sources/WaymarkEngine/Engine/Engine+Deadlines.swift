import Foundation

extension Engine {
    /// Arms one timer for the core's next deadline, replacing a timer for another deadline.
    func rescheduleTimer() {
        let deadline = stopped ? nil : core.nextDeadline
        guard deadline != timerDeadline else { return }
        timer?.cancel()
        timerDeadline = deadline
        guard let deadline else { timer = nil; return }
        let device = device
        let clock = clock
        timer = Task {
            let seconds = deadline.timeIntervalSince(await device.now())
            if seconds > 0 {
                do { try await Self.sleep(clock, seconds: seconds) } catch { return }
            }
            await self.deadlineFired(deadline)
        }
    }

    /// The timer for `deadline` went off: wake the core at that time.
    func deadlineFired(_ deadline: Date) async {
        guard timerDeadline == deadline, !stopped else { return }
        timerDeadline = nil
        timer = nil
        await apply(core.deadlineReached(at: deadline))
    }

    private static func sleep<C: Clock<Duration>>(_ clock: C, seconds: Double) async throws {
        try await clock.sleep(until: clock.now.advanced(by: .seconds(seconds)), tolerance: nil)
    }
}
