import Foundation
import WaymarkTransport

/// An `UploadTransport` that puts a ``SimulatedNetwork`` in front of a real transport: a real upload
/// queue meets the scenario's offline windows, 413s, refusals, silent server and lost replies, on the
/// simulation's virtual time, and what gets through reaches the real server.
///
/// The network judges each upload at the time the queue sends it (`send(_:at:)`; a queue running on
/// virtual time, such as `VirtualTimeUploader`, passes its own). Every upload is logged as a
/// ``Transmission``, so the simulation can charge the radio's energy (``Simulation/recordTransmission(_:)``).
///
/// ```swift
/// let transport = SimulatedNetworkTransport(network: sim.network, epoch: sim.epoch, server: http)
/// let response = await transport.send(request, at: sim.date(120))   // .timedOut in a "timeout" window
/// for transmission in await transport.takeTransmissions() { sim.recordTransmission(transmission) }
/// ```
///
/// `Sendable`; the log is an actor.
public struct SimulatedNetworkTransport: UploadTransport {
    /// One upload as the network saw it.
    public struct Transmission: Hashable, Sendable {
        /// When it was sent (virtual time).
        public var at: Date
        /// The body's size (for a fence fetch, the reply's).
        public var bytes: Int
        /// What the network did with it.
        public var verdict: SimulatedNetwork.Verdict
    }

    /// The network that judges each upload.
    public let network: SimulatedNetwork
    /// The simulation's start (second 0 of the scenario's windows).
    public let epoch: Date
    /// The real transport behind the network (HTTP to a server, or a test double).
    public let server: any UploadTransport
    private let log = TransmissionLog()

    /// Makes the transport.
    /// - Parameters:
    ///   - network: the scenario's network (``Simulation/network``).
    ///   - epoch: the simulation's start (``Simulation/epoch``).
    ///   - server: where the uploads the network lets through go.
    public init(network: SimulatedNetwork, epoch: Date, server: any UploadTransport) {
        self.network = network
        self.epoch = epoch
        self.server = server
    }

    /// Sends at the time of the previous upload (the epoch before any): a caller that knows the time
    /// should use ``send(_:at:)``.
    public func send(_ request: UploadRequest) async -> UploadResponse {
        await send(request, at: await log.lastTime ?? epoch)
    }

    /// Sends `request` as the network behaves at `time`; see ``SimulatedNetwork/verdict(bytes:at:)``.
    public func send(_ request: UploadRequest, at time: Date) async -> UploadResponse {
        // A format that sends its point in the query (the OsmAnd protocol) sends those bytes too.
        let bytes = request.body.count + (request.query.isEmpty ? 0 : request.url(appendingQueryTo: "").utf8.count)
        let verdict = network.verdict(bytes: bytes, at: time.timeIntervalSince(epoch))
        await log.append(Transmission(at: time, bytes: bytes, verdict: verdict))
        switch verdict {
        case .offline:
            return .connectionFailed("offline (simulated network)")
        case .refused(let status):
            let message = status == 413
                ? "simulated server: a request of \(bytes) bytes is over maxBodyBytes"
                : "simulated server: HTTP \(status) from a scenario rule"
            return .status(status, body: Self.errorBody(status: status, message: message))
        case .unanswered:
            return .timedOut
        case .replyLost:
            _ = await server.send(request, at: time)
            return .timedOut
        case .delivered:
            return await server.send(request, at: time)
        }
    }

    /// Fetches one page of fences from `server` as the network behaves at `time`: offline, a refusal, a
    /// silent server or a lost reply fail the request (a GET stores nothing, so a lost reply is a failure
    /// like any other); otherwise the server answers. A delivered request is logged as a ``Transmission``
    /// of the reply's size (the radio's energy), one that never left the phone as one of 0 bytes.
    public func fetchFences(_ request: FenceListRequest, at time: Date, from server: any FenceListTransport) async -> FenceListResponse {
        let verdict = network.verdict(bytes: 0, at: time.timeIntervalSince(epoch))
        switch verdict {
        case .offline:
            await log.append(Transmission(at: time, bytes: 0, verdict: verdict))
            return .failed("offline (simulated network)")
        case .refused(let status):
            await log.append(Transmission(at: time, bytes: 0, verdict: verdict))
            let body = Self.errorBody(status: status, message: "simulated server: HTTP \(status) from a scenario rule")
            return .status(status, body: body)
        case .unanswered, .replyLost:
            await log.append(Transmission(at: time, bytes: 0, verdict: verdict))
            return .failed("timed out (simulated network)")
        case .delivered:
            let response = await server.fetchFences(request)
            let bytes = if case .page(let body, _) = response { body.count } else { 0 }
            await log.append(Transmission(at: time, bytes: bytes, verdict: verdict))
            return response
        }
    }

    /// The uploads logged since the last call, in order.
    public func takeTransmissions() async -> [Transmission] {
        await log.take()
    }

    /// A WaymarkServer-shaped error body.
    static func errorBody(status: Int, message: String) -> [UInt8] {
        let object: [String: Any] = ["error": ["code": status == 413 ? "payloadTooLarge" : "simulated", "message": message]]
        return Array((try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data())
    }
}

/// The transport's log of uploads.
actor TransmissionLog {
    private var pending: [SimulatedNetworkTransport.Transmission] = []
    private(set) var lastTime: Date?

    func append(_ transmission: SimulatedNetworkTransport.Transmission) {
        pending.append(transmission)
        lastTime = transmission.at
    }

    func take() -> [SimulatedNetworkTransport.Transmission] {
        defer { pending = [] }
        return pending
    }
}
