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
        await apply(core.deadlineReached(at: deadline), at: deadline)
    }

    /// Acts on every deadline due at or before `date` now, in order, without waiting for the
    /// clock to wake the timer, and returns once their commands have reached the device.
    ///
    /// The engine calls this before each device event, so an overdue deadline (the app was
    /// suspended while its timer slept) is handled at its own time, before the newer event.
    /// Drivers that advance virtual time (a simulated phone in tests) call it after each step
    /// so the engine has done everything due by then before time moves on; otherwise the
    /// timer's task may run only after the simulation has gone further.
    public func handleDeadlines(through date: Date) async {
        await fireDueDeadlines(through: date)
        // A timer task may have started the same deadline's step just before; wait for it too.
        await effects?.value
    }

    /// Handles each deadline due by `date`, in order (the run loop's part of ``handleDeadlines(through:)``:
    /// the event that follows is applied behind any step still in flight anyway).
    func fireDueDeadlines(through date: Date) async {
        while !stopped, let deadline = timerDeadline, deadline <= date {
            timer?.cancel()
            timer = nil
            timerDeadline = nil
            await apply(core.deadlineReached(at: deadline), at: deadline)
        }
    }

    private static func sleep<C: Clock<Duration>>(_ clock: C, seconds: Double) async throws {
        try await clock.sleep(until: clock.now.advanced(by: .seconds(seconds)), tolerance: nil)
    }
}
