import Foundation

/// The test server's state: devices, stored points, dedupe bookkeeping and scripted faults.
actor IngestLedger {
    /// A stored point; coordinates in units of 1e-7 degrees (about 1 cm), since Foundation's
    /// JSON number parsing on Linux may differ from the sent text in the last digits.
    struct Point: Hashable, Sendable {
        var timestamp: String
        var longitudeE7: Int64
        var latitudeE7: Int64

        init(timestamp: String, longitude: Double, latitude: Double) {
            self.timestamp = timestamp
            longitudeE7 = Int64((longitude * 1e7).rounded())
            latitudeE7 = Int64((latitude * 1e7).rounded())
        }
    }

    /// A gap marker as it arrived (timestamps as sent).
    struct Gap: Hashable, Sendable {
        var ride: String
        var start: String
        var end: String
        var reason: String
    }

    enum Outcome { case committed(rejected: [(index: Int, message: String)]), tooLarge(Int), refused(Int) }

    private var tokens: [String: String] = [:]
    private var stored: [String: [Point]] = [:]
    private var storedTimes: [String: Set<String>] = [:]
    private var keys: Set<String> = []
    private var faults: [String: [IngestTestServer.Fault]] = [:]
    private var faultDecider: [String: @Sendable (Int) -> IngestTestServer.Fault?] = [:]
    private var requestCounts: [String: Int] = [:]
    /// Requests whose key was already committed (absorbed replays).
    private(set) var replays: [String: Int] = [:]
    /// Points that arrived again under a different key (a client that re-batched sent data).
    private(set) var crossBatchDuplicates: [String: Int] = [:]
    /// 413 above this many points.
    var maxPoints: Int?
    /// Answer this status when a batch contains one of these timestamps.
    var refusedTimestamps: [String: Int] = [:]
    /// Accept the batch but leave out points with these timestamps, listing them under `rejected`.
    var rejectedInReply: [String: String] = [:]
    /// Gap markers stored per device (once each).
    private var storedGaps: [String: Set<Gap>] = [:]
    /// Each request that reached the commit step: body bytes and number of points.
    private var requestLog: [String: [(bytes: Int, points: Int)]] = [:]
    /// Replies held by `holdAfterCommitUntilNextRequest`, released by the device's next request.
    private var holds: [String: [AsyncStream<Void>.Continuation]] = [:]

    func rejectInReply(_ timestamp: String, message: String) {
        rejectedInReply[timestamp] = message
    }

    func gaps(device: String) -> Set<Gap> { storedGaps[device] ?? [] }

    func received(device: String, bytes: Int, points: Int) {
        requestLog[device, default: []].append((bytes, points))
    }

    func requestSizes(device: String) -> [(bytes: Int, points: Int)] { requestLog[device] ?? [] }

    /// What to do when a reply of the device is held (`holdAfterCommitUntilNextRequest`).
    private var whenHeld: [String: @Sendable () -> Void] = [:]

    /// Sets what happens as a reply of `device` is held: typically moving the client's clock past its
    /// timeout, so the client gives up at once without real time passing.
    func whenHeld(device: String, _ action: @escaping @Sendable () -> Void) {
        whenHeld[device] = action
    }

    /// A reply of `device` is now held.
    func held(device: String) {
        whenHeld[device]?()
    }

    /// A stream that ends when the device's next request arrives.
    func holdSignal(device: String) -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream<Void>.makeStream()
        holds[device, default: []].append(continuation)
        return stream
    }

    func register(token: String, device: String) {
        tokens[token] = device
    }

    func revoke(token: String) {
        tokens[token] = nil
    }

    func setMaxPoints(_ max: Int?) {
        maxPoints = max
    }

    func refuse(_ timestamp: String, with status: Int) {
        refusedTimestamps[timestamp] = status
    }

    /// Queues faults for the next requests of the token's device, in order.
    func inject(_ list: [IngestTestServer.Fault], token: String) {
        faults[tokens[token] ?? token, default: []] += list
    }

    /// Decides a fault for each request of this device from its request number (1-based); nil stops.
    func decideFaults(device: String, _ decide: (@Sendable (Int) -> IngestTestServer.Fault?)?) {
        faultDecider[device] = decide
    }

    /// The content type and idempotency key of the last request.
    private(set) var lastHeaders: (contentType: String?, key: String?)?

    func saw(contentType: String?, key: String?) { lastHeaders = (contentType, key) }

    /// How many faults of each kind were served, all devices together.
    private(set) var faultCounts: [String: Int] = [:]

    func points(device: String) -> [Point] {
        return stored[device] ?? []
    }

    func stats(device: String) -> (requests: Int, replays: Int, crossBatchDuplicates: Int) {
        return (requestCounts[device] ?? 0, replays[device] ?? 0, crossBatchDuplicates[device] ?? 0)
    }

    func nextFault(for token: String) -> IngestTestServer.Fault? {
        let device = tokens[token] ?? token
        for hold in holds.removeValue(forKey: device) ?? [] { hold.finish() }
        requestCounts[device, default: 0] += 1
        let fault: IngestTestServer.Fault?
        if var list = faults[device], !list.isEmpty {
            fault = list.removeFirst()
            faults[device] = list
        } else {
            fault = faultDecider[device]?(requestCounts[device]!)
        }
        if let fault { faultCounts[Self.kind(fault), default: 0] += 1 }
        return fault
    }

    static func kind(_ fault: IngestTestServer.Fault) -> String {
        switch fault {
        case .status(let code): "\(code)"
        case .dropAfterCommit: "dropAfterCommit"
        case .holdAfterCommitUntilNextRequest: "holdAfterCommit"
        }
    }

    func device(for token: String) -> String? { tokens[token] }

    func commit(_ points: [Point], gaps: [Gap] = [], device: String, key: String?) -> Outcome {
        if let maxPoints, points.count > maxPoints { return .tooLarge(maxPoints) }
        if let code = points.lazy.compactMap({ self.refusedTimestamps[$0.timestamp] }).first { return .refused(code) }
        let rejected = points.enumerated().compactMap { i, p in self.rejectedInReply[p.timestamp].map { (index: i, message: $0) } }
        if let key {
            guard keys.insert(device + "|" + key).inserted else {
                replays[device, default: 0] += 1
                return .committed(rejected: rejected)
            }
        }
        storedGaps[device, default: []].formUnion(gaps)
        for point in points where rejectedInReply[point.timestamp] == nil {
            if storedTimes[device, default: []].insert(point.timestamp).inserted {
                stored[device, default: []].append(point)
            } else {
                crossBatchDuplicates[device, default: 0] += 1
            }
        }
        return .committed(rejected: rejected)
    }
}
