import Foundation
import Testing
import WaymarkGeo
@testable import WaymarkEngine

@Suite("Device seam values")
struct SeamCodingTests {
    static let fix = Fix(coordinate: Coordinate(uncheckedLatitude: 46.05, longitude: 14.5), horizontalAccuracy: 8,
                         timestamp: Date(timeIntervalSince1970: 1_700_000_000), source: .gnss)

    static let events: [DeviceEvent] = [
        .authorizationChanged(LocationAuthorization(status: .authorizedWhenInUse, accuracy: .reduced)),
        .locations([fix, fix]),
        .locationError(.locationUnknown),
        .locationUpdatesPaused,
        .regionState(identifier: "home", state: .inside),
        .regionMonitoringFailed(identifier: "x", reason: .tooManyRegions),
        .significantChange(fix),
        .motionActivity(MotionActivity(.cycling, confidence: .medium)),
        .remoteRegistration(.token("ab12")),
        .remoteRegistration(.failed(reason: "offline")),
        .launched(reason: .location),
        .networkReachability(online: false),
    ]

    @Test("every event survives a JSON round trip, so logs can be replayed", arguments: events)
    func eventRoundTrip(event: DeviceEvent) throws {
        let timed = TimedDeviceEvent(time: Date(timeIntervalSince1970: 10), event: event)
        let data = try JSONEncoder().encode(timed)
        #expect(try JSONDecoder().decode(TimedDeviceEvent.self, from: data) == timed)
    }

    @Test("commands survive a JSON round trip")
    func commandRoundTrip() throws {
        let commands: [DeviceCommand] = [
            .requestNotificationAuthorization([.alert, .sound]),
            .startUpdatingLocation(LocationConfiguration(desiredAccuracy: .hundredMeters, distanceFilterMeters: 25,
                                                         activityType: .fitness,
                                                         allowsBackgroundLocationUpdates: true)),
            .startMonitoring(MonitoredRegion(identifier: "w", center: Self.fix.coordinate, radiusMeters: 150)),
            .beginBackgroundTask(id: 1),
        ]
        let data = try JSONEncoder().encode(commands)
        #expect(try JSONDecoder().decode([DeviceCommand].self, from: data) == commands)
    }

    @Test("a fresh location configuration matches CLLocationManager's defaults")
    func configurationDefaults() {
        let config = LocationConfiguration()
        #expect(config.desiredAccuracy == .best)
        #expect(config.distanceFilterMeters == nil)
        #expect(config.pausesLocationUpdatesAutomatically)
        #expect(!config.allowsBackgroundLocationUpdates)
    }

    @Test("motion confidence is ordered low < medium < high")
    func confidenceOrder() {
        #expect(MotionActivity.Confidence.low < .medium)
        #expect(MotionActivity.Confidence.medium < .high)
        #expect(!(MotionActivity.Confidence.high < .low))
    }
}
