import Foundation
import WaymarkGeo

extension DeviceFenceState {
    /// The `inside` map as JSON text `{"fenceID": enteredMillis}` for the store.
    var insideText: String {
        let object = inside.mapValues { $0.millisecondsSince1970 }
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    /// The `dwelled` set as JSON text (a sorted array) for the store.
    var dwelledText: String {
        let data = (try? JSONSerialization.data(withJSONObject: dwelled.sorted())) ?? Data("[]".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    /// A state read back from the store's columns.
    init(lastMillis: Int64?, lastLatitude: Double?, lastLongitude: Double?, insideText: String, dwelledText: String) {
        self.init()
        if let lastMillis, let lastLatitude, let lastLongitude {
            lastTimestamp = Date(millisecondsSince1970: lastMillis)
            lastCoordinate = Coordinate(uncheckedLatitude: lastLatitude, longitude: lastLongitude)
        }
        if let object = try? JSONSerialization.jsonObject(with: Data(insideText.utf8)) as? [String: NSNumber] {
            inside = object.mapValues { Date(millisecondsSince1970: $0.int64Value) }
        }
        if let list = try? JSONSerialization.jsonObject(with: Data(dwelledText.utf8)) as? [String] {
            dwelled = Set(list)
        }
    }

    /// Seeds the segment start from the device's last stored position when nothing was evaluated yet.
    mutating func seed(from last: Position?) {
        // A point flagged as implying an impossible speed is no reference (``FenceEngine``): no seed from it.
        guard lastTimestamp == nil, let last, !last.fix.impliesImpossibleSpeed else { return }
        lastTimestamp = last.fix.timestamp
        lastCoordinate = last.fix.coordinate
    }

    /// Forgets fences that no longer exist.
    mutating func prune(to engine: FenceEngine) {
        guard !inside.isEmpty || !dwelled.isEmpty else { return }
        inside = inside.filter { engine.hasFence(id: $0.key) }
        dwelled = dwelled.filter { engine.hasFence(id: $0) }
    }
}
