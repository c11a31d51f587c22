/// Energy spent by each consumer of PLATFORM.md §9, in relative units.
///
/// ```swift
/// let report = simulation.energy
/// print(report.total, report[.gnss])
/// ```
public struct EnergyReport: Hashable, Sendable, Codable {
    /// The consumers of the energy table.
    public enum Consumer: String, Hashable, Sendable, Codable, CaseIterable, CodingKeyRepresentable {
        /// The GNSS receiver.
        case gnss
        /// Wi-Fi positioning.
        case wifi
        /// Cell positioning (also reduced accuracy).
        case cell
        /// Significant-change monitoring.
        case significantChange
        /// Region monitoring.
        case regionMonitoring
        /// The motion coprocessor.
        case motion
        /// CPU wakes to deliver fixes.
        case cpuWake
        /// Radio wakes and payload of uploads.
        case radio
        /// The app itself while it runs.
        case app
    }

    /// Energy by consumer.
    public private(set) var byConsumer: [Consumer: Double] = [:]

    /// An empty report.
    public init() {}

    /// Energy spent by one consumer.
    public subscript(_ consumer: Consumer) -> Double { byConsumer[consumer] ?? 0 }

    /// Energy spent in total.
    public var total: Double { Consumer.allCases.reduce(0) { $0 + self[$1] } }

    mutating func add(_ amount: Double, to consumer: Consumer) {
        guard amount > 0 else { return }
        byConsumer[consumer, default: 0] += amount
    }
}
