import Foundation

/// The phone's network and the server at its far end, as a scenario's `world.network` describes them:
/// when there is connectivity, how the server answers an upload at a given time, and what the radio
/// costs. A pure value: the same upload at the same time always gets the same answer.
///
/// The simulation owns one (``Simulation/network``). Uploads do not go through the device seam; a real
/// upload queue meets this network through ``SimulatedNetworkTransport``, which `SimulatedPhone` (WaymarkSimulatedPhone)
/// puts in front of the transport it is given.
///
/// ```swift
/// let network = SimulatedNetwork(World.Network(offline: [TimeWindow(from: 300, to: 400)]))
/// network.isOnline(at: 350)                  // false
/// network.verdict(bytes: 2_000, at: 10)      // .delivered
/// ```
///
/// A `Sendable` value type.
public struct SimulatedNetwork: Hashable, Sendable {
    /// What the network and the server do with one upload.
    public enum Verdict: Hashable, Sendable {
        /// No connectivity: the upload fails at once and never leaves the phone.
        case offline
        /// The upload reaches the server, which answers as it would.
        case delivered
        /// The simulated server refuses the upload with this HTTP status and stores nothing (413 for a
        /// body over `maxBodyBytes`, or a rule's non-2xx status).
        case refused(status: Int)
        /// The server never answers and stores nothing: the upload times out.
        case unanswered
        /// The server stores the upload, but its reply never arrives: the upload times out.
        case replyLost
    }

    /// The scenario's description; nil is always online, with a server that accepts everything.
    public let description: World.Network?

    /// Makes the network a scenario describes.
    public init(_ description: World.Network?) {
        self.description = description
    }

    /// Whether there is connectivity at `t` (seconds from the start).
    public func isOnline(at t: Double) -> Bool {
        !(description?.offline ?? []).contains { $0.contains(t) }
    }

    /// The first time at or after `t` with connectivity; nil when an open-ended offline window never ends.
    public func nextOnline(atOrAfter t: Double) -> Double? {
        var time = t
        // Each step leaves one window for good (a window's end is outside it), so this ends.
        for _ in 0...(description?.offline?.count ?? 0) {
            guard let window = description?.offline?.first(where: { $0.contains(time) }) else { return time }
            guard let end = window.to else { return nil }
            time = end
        }
        return isOnline(at: time) ? time : nil
    }

    /// What happens to an upload of `bytes` bytes sent at `t` (seconds from the start). Connectivity is
    /// checked first, then the body's size, then the first rule whose window holds `t`, then the
    /// server's default status.
    public func verdict(bytes: Int, at t: Double) -> Verdict {
        guard isOnline(at: t) else { return .offline }
        let server = description?.server
        if let max = server?.maxBodyBytes, bytes > max { return .refused(status: 413) }
        let rule = server?.rules?.first { $0.window.contains(t) }
        if rule?.timeout == true { return .unanswered }
        if rule?.replyLost == true { return .replyLost }
        let status = rule?.status ?? server?.defaultStatus ?? 200
        return (200..<300).contains(status) ? .delivered : .refused(status: status)
    }
}
