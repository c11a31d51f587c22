import Foundation

extension Engine {
    /// The field log: what the engine decided, persistent, levelled and rotated, to export for a
    /// support request (see ``FieldLog`` and <doc:ReadingTheFieldLog>).
    ///
    /// ```swift
    /// let file = try await engine.log.export(since: .now.addingTimeInterval(-86_400))
    /// engine.log.setLevel(.debug)          // while chasing a problem
    /// ```
    ///
    /// The log passed to ``init(device:clock:configuration:memory:geofences:ride:log:)``. Hand the
    /// same one to WaymarkSync's `UploadDriver` so upload outcomes land beside the engine's decisions.
    public nonisolated var log: FieldLog { fieldLog }
}
