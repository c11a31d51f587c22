import Foundation
import WaymarkSimulator
import WaymarkSync

/// An `UploadClock` on a `SimulatedDevice`'s virtual time: an `UploadDriver` built with it
/// reads the simulation's wall-clock time and wakes for its deadlines as the device advances, like
/// an `Engine` built with `device.clock`.
///
/// ```swift
/// let driver = try UploadDriver(executor: executor, clock: device.uploadClock)
/// await device.advance(by: 60)      // a retry due in 45 s runs
/// ```
public struct SimulatedUploadClock: UploadClock {
    /// The device's virtual clock.
    public let clock: SimulatedClock
    /// The wall-clock time of virtual time zero.
    public let epoch: Date

    /// A clock on `clock`'s virtual time, with virtual zero at `epoch`.
    public init(clock: SimulatedClock, epoch: Date) {
        self.clock = clock
        self.epoch = epoch
    }

    public var now: Date { epoch.addingTimeInterval(Self.seconds(clock.now.offset)) }

    public func sleep(until deadline: Date) async throws {
        let offset = Duration.milliseconds(Int64((deadline.timeIntervalSince(epoch) * 1000).rounded(.up)))
        try await clock.sleep(until: SimulatedClock.Instant(offset: offset), tolerance: nil)
    }

    static func seconds(_ duration: Duration) -> Double {
        let parts = duration.components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}

extension SimulatedDevice {
    /// An `UploadClock` on this device's virtual time, for an `UploadDriver` driven by it.
    public nonisolated var uploadClock: SimulatedUploadClock { SimulatedUploadClock(clock: clock, epoch: epoch) }
}
