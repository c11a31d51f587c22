import Foundation
import WaymarkGeo
@testable import WaymarkEngine

/// Shared values for the pure component tests: a time origin, fixes and authorizations.
enum T {
    static let origin = Date(timeIntervalSince1970: 1_767_254_400)
    static let place = Coordinate(uncheckedLatitude: 46.05, longitude: 14.50)

    /// The time `seconds` after the origin.
    static func at(_ seconds: Double) -> Date { origin.addingTimeInterval(seconds) }

    /// A fix measured at `seconds` with `accuracy` metres.
    static func fix(measuredAt seconds: Double, accuracy: Double?, source: Fix.Source = .gnss) -> Fix {
        Fix(coordinate: place, horizontalAccuracy: accuracy, timestamp: at(seconds), source: source)
    }

    static func auth(_ status: LocationAuthorizationStatus, servicesEnabled: Bool = true) -> DeviceEvent {
        .authorizationChanged(LocationAuthorization(status: status, servicesEnabled: servicesEnabled))
    }
}

/// Drives an ``EngineCore`` by hand and records everything it says.
struct CoreDriver {
    var core: EngineCore
    var commands: [DeviceCommand] = []
    var updates: [EngineUpdate] = []

    init(configuration: EngineCore.Configuration = .init(), memory: PermissionMemory = .init()) {
        core = EngineCore(configuration: configuration, memory: memory)
    }

    @discardableResult
    mutating func send(_ event: DeviceEvent, at seconds: Double) -> [DeviceCommand] {
        record(core.handle(event, at: T.at(seconds)))
    }

    @discardableResult
    mutating func request(_ requests: [PermissionRequest], batch: Int = 1, at seconds: Double) -> [DeviceCommand] {
        record(core.requestPermissions(requests, batch: batch, at: T.at(seconds)))
    }

    /// Fires the core's deadline if it is due by `seconds`.
    @discardableResult
    mutating func wake(at seconds: Double) -> [DeviceCommand] {
        guard let deadline = core.nextDeadline, deadline <= T.at(seconds) else { return [] }
        return record(core.deadlineReached(at: deadline))
    }

    private mutating func record(_ out: EngineOutput) -> [DeviceCommand] {
        commands += out.commands
        updates += out.updates
        return out.commands
    }

    var starts: Int { commands.filter { if case .startUpdatingLocation = $0 { true } else { false } }.count }
    var stops: Int { commands.filter { $0 == .stopUpdatingLocation }.count }

    var completedBatches: [[PermissionOutcome]] {
        updates.compactMap { if case .permission(.batchCompleted(_, let o)) = $0 { o } else { nil } }
    }

    var launchStates: [LaunchLocationState] {
        updates.compactMap { if case .launchLocation(let s) = $0 { s } else { nil } }
    }
}
