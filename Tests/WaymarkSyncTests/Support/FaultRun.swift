import Foundation
import WaymarkEngine
import WaymarkGeo
import WaymarkSimulator
@testable import WaymarkSync
import WaymarkSimulatedPhone
import WaymarkCLI

/// Plays one ``FaultSchedule`` against a real server: the app records fixes into a store file,
/// a ``VirtualTimeUploader`` uploads them; kills drop the queue and the store object and reopen the
/// file. Virtual time jumps from event to event and deadline to deadline.
struct FaultRun {
    struct Result {
        var recorded: [Fix] = []
        var requests = 0
        var kills = 0
        var lostAnswers = 0
        var finalBacklog = UploadBacklog()
        var storeFixes = 0
    }

    let schedule: FaultSchedule
    let server: IngestTestServer
    let configuration: UploadQueue.Configuration
    /// The transport's timeout, on a clock of the run's own: a held reply moves that clock past it, so
    /// the client gives up at once and no real time passes.
    static let timeout: Duration = .seconds(30)

    var device: String { "dev-\(schedule.seed)" }

    func run() async throws -> Result {
        let path = TestFixes.temporaryStorePath()
        defer { TestFixes.removeStore(at: path) }
        let ledger = server.state, device = device
        let token = "tok-\(schedule.seed)"
        await ledger.register(token: token, device: device)
        let clock = SimulatedClock(startingAt: 0)
        let transport = try HTTPUploadTransport(server: server.baseURL, timeout: Self.timeout, clock: clock)
        await ledger.whenHeld(device: device) { clock.advance(by: Self.timeout) }
        let (seed, p5, pd, pt) = (schedule.seed, schedule.p5xx, schedule.pDrop, schedule.pTimeout)
        await ledger.decideFaults(device: device) { n in
            FaultSchedule.serverFault(seed: seed, request: n, p5xx: p5, pDrop: pd, pTimeout: pt)
        }
        let credentials = DeviceCredentials(token: token) { old in
            let new = old + "+"
            await ledger.register(token: new, device: device)
            return new
        }
        var result = Result()
        var rng = SplitMix64(seed: schedule.seed ^ 0xA5A5)
        let pKill = schedule.pKillAfterSend
        let fixes = schedule.fixes()
        var nextFix = 0
        var online = true, suspended = false, foreground = true
        var timeline = schedule.timeline
        var uploader: VirtualTimeUploader?
        var store: RideStore? = try RideStore(path: path)
        let ride = try store!.startRide(at: schedule.start, policy: "cycling").id
        func makeUploader(_ store: RideStore, at now: Date, launched: Bool) throws -> VirtualTimeUploader {
            var u = try VirtualTimeUploader(store: store, transport: transport, credentials: credentials,
                                        configuration: configuration, deviceID: device, seed: rng.next(),
                                        now: now, foreground: foreground, online: online)
            u.killAfterSend = { Double.random(in: 0..<1, using: &rng) < pKill }
            _ = launched
            return u
        }
        uploader = try makeUploader(store!, at: schedule.start, launched: true)

        var now = schedule.start
        var steps = 0
        while true {
            steps += 1
            if steps > 200_000 { throw SyncError(.configuration, "seed \(schedule.seed): the run does not settle") }
            let deadline = suspended ? nil : uploader?.queue.nextDeadline
            guard let next = [timeline.first?.at, deadline].compactMap({ $0 }).min() else { break }
            now = max(now, next)
            uploader?.now = now
            var events: [UploadQueueEvent?] = [nil]
            if let first = timeline.first, first.at <= now {
                timeline.removeFirst()
                switch first.event {
                case .deliver:
                    // Suspended: iOS holds the fixes and hands them over, batched, on resume.
                    if suspended && uploader != nil { continue }
                    var batch: [Fix] = []
                    while nextFix < fixes.count, fixes[nextFix].timestamp <= now {
                        batch.append(fixes[nextFix])
                        nextFix += 1
                    }
                    // Dead: nothing measured in the meantime is recorded (the tracker marks a gap).
                    guard let s = store, uploader != nil, !batch.isEmpty else { continue }
                    try s.append(batch, to: ride)
                    result.recorded += batch
                    events = [.device(.locations([])), .backlogChanged(try s.backlog())]
                case .network(let state):
                    online = state
                    uploader?.offline = !state
                    if !suspended { events = [.device(.networkReachability(online: state))] }
                case .suspend:
                    suspended = true
                case .resume:
                    guard suspended else { continue }
                    suspended = false
                    timeline.insert((now, .deliver), at: 0)
                    uploader?.offline = !online
                    events = [.device(.networkReachability(online: online)), .device(.locations([]))]
                case .kill:
                    guard uploader != nil else { continue }
                    uploader = nil
                    store = nil
                    suspended = false
                    result.kills += 1
                case .relaunch:
                    guard uploader == nil else { continue }
                    let reopened = try RideStore(path: path)
                    store = reopened
                    foreground = false
                    uploader = try makeUploader(reopened, at: now, launched: true)
                    events = [.device(.launched(reason: .location)), .backlogChanged(try reopened.backlog())]
                case .background:
                    foreground = false
                    if !suspended { events = [.device(.didEnterBackground)] }
                case .foreground:
                    foreground = true
                    if !suspended { events = [.device(.willEnterForeground)] }
                case .expireCredentials:
                    await ledger.revoke(token: await credentials.token)
                }
            }
            guard var u = uploader, !suspended else { continue }
            var alive = true
            for event in events where alive { alive = try await u.feed(event) }
            result.requests += u.requests
            u.requests = 0
            if alive {
                uploader = u
            } else {
                // The process died before acting on the answer; it is relaunched a little later.
                result.lostAnswers += 1
                result.kills += 1
                uploader = nil
                store = nil
                let back = now.addingTimeInterval(Double.random(in: 5...120, using: &rng))
                let i = timeline.firstIndex { $0.at > back } ?? timeline.endIndex
                timeline.insert((back, .relaunch), at: i)
            }
        }
        // The rider is home: the app is opened, the network is fine, the server behaves.
        await ledger.decideFaults(device: device, nil)
        if uploader == nil {
            store = try RideStore(path: path)
            uploader = try makeUploader(store!, at: now, launched: true)
        }
        guard var u = uploader, let s = store else { return result }
        u.offline = false
        u.killAfterSend = nil
        try await u.feed(.device(.networkReachability(online: true)))
        try await u.feed(.device(.willEnterForeground))
        try await u.feed(.flush)
        try await u.drain(until: now.addingTimeInterval(24 * 3600))
        result.requests += u.requests
        result.finalBacklog = try s.backlog()
        result.storeFixes = try s.fixCount()
        return result
    }
}
