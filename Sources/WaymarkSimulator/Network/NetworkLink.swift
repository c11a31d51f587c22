import Foundation
import WaymarkEngine

/// The phone's side of the network (PLATFORM.md §10), owned by ``Simulation``: the reachability the
/// phone last observed, and the radio's energy bookkeeping. What the network and server do with a
/// request is ``SimulatedNetwork``'s business.
struct NetworkLink: Sendable {
    /// Whether the phone last observed connectivity (changes are noticed on the simulation's tick).
    private(set) var online: Bool
    private var radioLastUse = -Double.infinity

    /// A link that starts in the state `network` has at virtual second 0.
    init(_ network: SimulatedNetwork) {
        online = network.isOnline(at: 0)
    }

    /// Observes connectivity at `t`; returns the new state when it changed since the last observation.
    mutating func observe(_ network: SimulatedNetwork, at t: Double) -> Bool? {
        let current = network.isOnline(at: t)
        guard current != online else { return nil }
        online = current
        return current
    }

    /// The radio energy of sending `bytes` bytes at `t`: uploads closer together than the radio's tail
    /// share one wake; each kilobyte costs on top. `t` must not be before the previous send.
    mutating func energy(sending bytes: Int, at t: Double, constants: PlatformConstants) -> Double {
        let wake = t - radioLastUse > constants.radioTailSeconds ? constants.energy.radioWake : 0
        radioLastUse = max(radioLastUse, t)
        return wake + Double(bytes) / 1024 * constants.energy.radioPerKilobyte
    }
}
