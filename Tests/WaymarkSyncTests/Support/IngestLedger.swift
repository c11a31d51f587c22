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

    enum Outcome { case committed, tooLarge(Int), refused(Int) }

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
        case .delayAfterCommit: "timeoutAfterCommit"
        case .delayBeforeCommit: "delayBeforeCommit"
        }
    }

    func device(for token: String) -> String? { tokens[token] }

    func commit(_ points: [Point], device: String, key: String?) -> Outcome {
        if let maxPoints, points.count > maxPoints { return .tooLarge(maxPoints) }
        if let code = points.lazy.compactMap({ self.refusedTimestamps[$0.timestamp] }).first { return .refused(code) }
        if let key {
            guard keys.insert(device + "|" + key).inserted else {
                replays[device, default: 0] += 1
                return .committed
            }
        }
        for point in points {
            if storedTimes[device, default: []].insert(point.timestamp).inserted {
                stored[device, default: []].append(point)
            } else {
                crossBatchDuplicates[device, default: 0] += 1
            }
        }
        return .committed
    }
}
