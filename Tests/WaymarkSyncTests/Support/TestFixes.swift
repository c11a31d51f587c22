import Foundation
import GRDB
import WaymarkGeo
@testable import WaymarkSync

/// Synthetic recorded fixes and temporary store files for the sync tests.
enum TestFixes {
    static let start = Date(timeIntervalSince1970: 1_750_000_000)

    /// `count` fixes one second apart along a line east of Ljubljana, from `start`.
    static func ride(count: Int, from first: Date = start, everySeconds: Double = 1) -> [Fix] {
        (0..<count).map { (i: Int) -> Fix in
            let step = Double(i)
            let coordinate = Coordinate(uncheckedLatitude: 46.05 + step * 0.00003, longitude: 14.5 + step * 0.00004)
            let altitude: Double = 295 + Double(i % 7)
            let accuracy: Double = 5 + Double(i % 4)
            let time = first.addingTimeInterval(step * everySeconds)
            return Fix(coordinate: coordinate, altitude: altitude, horizontalAccuracy: accuracy, verticalAccuracy: 4,
                       speed: 5.5, course: Double(i % 360), timestamp: time, source: .gnss)
        }
    }

    /// A fresh path for a store file in a new temporary directory.
    static func temporaryStorePath() -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("waymark-sync-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir.appendingPathComponent("rides.sqlite").path
    }

    static func removeStore(at path: String) {
        try? FileManager.default.removeItem(at: URL(fileURLWithPath: path).deletingLastPathComponent())
    }

    /// Appends fixes as a store before v7 (no `flags` column) wrote them: the v1 columns only.
    static func appendAsBeforeV7(_ fixes: [Fix], to ride: RideID, in store: RideStore) throws {
        let format = NativeBatchFormat()
        try store.db.write { db in
            for fix in fixes {
                try db.execute(sql: """
                    INSERT INTO fixes (ride_id, timestamp_ms, latitude, longitude, altitude, horizontal_accuracy,
                        vertical_accuracy, speed, course, source, payload_bytes) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """, arguments: [ride.rawValue, StoreTime.millis(fix.timestamp), fix.coordinate.latitude,
                                     fix.coordinate.longitude, fix.altitude, fix.horizontalAccuracy, fix.verticalAccuracy,
                                     fix.speed, fix.course, fix.source.rawValue, format.featureBytes(fix)])
            }
        }
    }
}
