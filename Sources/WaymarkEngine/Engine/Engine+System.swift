import Foundation

/// The app's lifecycle and network events, re-published by the engine for the parts of an app
/// that act on them too: above all WaymarkSync's `UploadDriver`, which sends when the network
/// returns, holds a background task when the app leaves the foreground and uses a location wake
/// to upload.
///
/// The device's event stream has one consumer, the engine; this is how everyone else hears what
/// it heard, in the same order and after the engine has handled each event. Subscribe before
/// ``Engine/run()`` (``ReplaySequence/subscribe()``): the events are not replayed.
///
/// ```swift
/// let system = await engine.system.events.subscribe()
/// Task { for await event in system { await driver.handle(event) } }
/// Task { await engine.run() }
/// ```
public struct EngineSystem: Sendable {
    let engine: Engine

    /// Network reachability, lifecycle (launched, background, foreground), background-task expiry,
    /// location wakes (a significant change, a region crossing, a delivery of fixes with the fixes
    /// left out) and a refused background activity session (an app may tell the rider that
    /// recording stops in the background until the app is opened), app-refresh wakes and their expiry
    /// (the ``Heartbeat``), as ``DeviceEvent/systemPart``
    /// keeps them; without replay.
    public var events: ReplaySequence<DeviceEvent> { engine.systemEvents.values }
}

extension DeviceEvent {
    /// The part of this event that concerns the app's lifecycle, its network or a location wake:
    /// network, lifecycle, background-task, location-wake and refused-session events as they are; a delivery of
    /// fixes as an empty one (only the fact that iOS ran the app for location matters); nil for
    /// anything else. What ``EngineSystem/events`` publishes.
    public var systemPart: DeviceEvent? {
        switch self {
        case .networkReachability, .didEnterBackground, .willEnterForeground, .launched, .backgroundTaskExpired,
             .significantChange, .regionEntered, .regionExited, .backgroundActivitySessionRefused,
             .appRefresh, .appRefreshExpired:
            self
        case .locations:
            .locations([])
        default:
            nil
        }
    }
}
