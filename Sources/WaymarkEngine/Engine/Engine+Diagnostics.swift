import Foundation
import WaymarkGeo

/// What the app's setup lacks, as an ``Engine`` state, and why the process was launched
/// (``launches``). What the setup lacks: each ``ConfigurationProblem`` says what to
/// add to the Info.plist and what breaks without it. A device setting that stops location work in
/// the background (Background App Refresh off, Low Power Mode on) is reported the same way, as
/// ``ConfigurationProblem/backgroundAppRefreshOff``, read when the engine starts, at each launch
/// and each return to the foreground.
///
/// The engine reads the app's declarations from its ``Device`` when it starts
/// (``Device/infoPlist()``) and checks them against what the app uses: the configured
/// ``EngineCore/Configuration/capabilities``, plus what the app turns out to use (a request for
/// Always or motion, a ride that records in the background). A problem is published instead of a
/// crash or a silent hang:
/// - a missing usage description makes the request end as
///   ``PermissionResult/misconfigured(missingUsageDescription:)`` at once (iOS would show no prompt
///   and never answer);
/// - without the `location` background mode the live device leaves `allowsBackgroundLocationUpdates`
///   off (setting it would crash the app), so a ride records only in the foreground.
///
/// ```swift
/// for await problems in engine.diagnostics.problems where !problems.isEmpty {
///     for problem in problems { logger.fault("\(problem.message)") }
/// }
/// ```
///
/// A `Sendable` handle; use it from any task.
public struct EngineDiagnostics: Sendable {
    let engine: Engine

    /// Every change of the problem list, with replay (the current list first; empty when nothing is
    /// missing or the device cannot read the declarations).
    public var problems: ReplaySequence<[ConfigurationProblem]> { engine.problemStates.values }

    /// The current problems.
    public var current: [ConfigurationProblem] {
        get async { await engine.problemStates.current ?? [] }
    }

    /// Why the process was launched: one value at the launch and one more when a location event
    /// settles its cause (see ``LaunchAttribution``), with replay of the latest.
    public var launches: ReplaySequence<LaunchAttribution> { engine.launchAttributions.values }

    /// The latest attribution of this process's launch; nil before the launch event.
    public var launch: LaunchAttribution? {
        get async { await engine.launchAttributions.current }
    }

    /// How many device events the engine has handled so far, each with its commands performed and
    /// its updates published.
    public var eventsHandled: Int {
        get async { await engine.eventsHandled }
    }

    /// Returns once the engine has handled `count` device events (``eventsHandled``): true; false
    /// when the engine stops, or the waiting task is cancelled, first.
    ///
    /// For tests that drive the device themselves: after making it deliver events, wait for the
    /// engine to catch up instead of yielding or sleeping. Over a simulated device,
    /// `SimulatedDevice.settle(_:)` (WaymarkSimulator) does this for every event it delivered.
    ///
    /// ```swift
    /// let before = await engine.diagnostics.eventsHandled
    /// await device.deliver(.locations([fix]))                 // your test device's way to report one event
    /// _ = await engine.diagnostics.waitUntilHandled(before + 1)
    /// ```
    public func waitUntilHandled(_ count: Int) async -> Bool {
        await engine.waitUntilHandled(count)
    }
}

extension Engine {
    func waitUntilHandled(_ count: Int) async -> Bool {
        if eventsHandled >= count { return true }
        if stopped { return false }
        let id = handledWaiters.newID()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                if Task.isCancelled {
                    continuation.resume(returning: false)
                } else {
                    handledWaiters.add(id, target: count, current: eventsHandled, continuation)
                }
            }
        } onCancel: {
            Task { await self.cancelHandledWaiter(id) }
        }
    }

    /// Resumes the waiters whose count is reached (true), or every waiter once stopped (false).
    func resumeHandledWaiters() {
        let done = stopped ? handledWaiters.takeAll() : handledWaiters.takeReached(eventsHandled)
        for continuation in done { continuation.resume(returning: !stopped) }
    }

    private func cancelHandledWaiter(_ id: Int) {
        handledWaiters.take(id)?.resume(returning: false)
    }

    /// Reads the app's declarations once, at start: adopts its usage descriptions when the
    /// configuration gave none, and publishes the problems.
    func readDeclarations() async {
        guard let declared = await device.infoPlist() else { return }
        declarations = declared
        core.adoptDeclaredUsageDescriptions(declared.declaredUsageDescriptions)
        await publishProblems(at: nil)
    }

    /// The app uses `more`: publishes the problems again if that needs something undeclared.
    func noteUse(_ more: AppCapabilities) async {
        let merged = uses.union(more)
        guard merged != uses else { return }
        uses = merged
        await publishProblems(at: nil)
    }

    /// Reads whether iOS may run the app in the background for location events (at start, each
    /// launch and each return to the foreground) and publishes the problems if that changed; the
    /// field log hears of every change. `time` is the event's (nil at start: the device's time).
    func readBackgroundAppRefresh(at time: Date?) async {
        let available = await device.backgroundAppRefreshAvailable()
        let now: Date
        if let time { now = time } else { now = await device.now() }
        notes.level = fieldLog.level
        fieldLog.record(notes.backgroundLocation(available: available, at: now))
        guard available != backgroundAppRefresh else { return }
        backgroundAppRefresh = available
        await publishProblems(at: now)
    }

    /// Publishes the problems when they changed, and writes them to the field log at `time` (the
    /// device's time when nil).
    private func publishProblems(at time: Date?) async {
        var problems = declarations.map { InfoPlistCheck.problems(in: $0, for: uses) } ?? []
        if backgroundAppRefresh == false { problems.append(.backgroundAppRefreshOff) }
        guard problems != publishedProblems else { return }
        let now: Date
        if let time { now = time } else { now = await appCallTime() }
        fieldLog.record(notes.problems(problems, at: now))
        publishedProblems = problems
        await problemStates.publish(problems)
    }

    /// What a permission request uses.
    static func capabilities(for requests: [PermissionRequest]) -> AppCapabilities {
        AppCapabilities(locationAlways: requests.contains(.locationAlwaysUpgrade), motion: requests.contains(.motion))
    }
}
