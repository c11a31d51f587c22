import Foundation
import WaymarkEngine
import WaymarkGeo

extension Scenario {
    /// Reads a scenario from JSON, checking every field.
    ///
    /// - throws: ``SimulatorError`` naming the field path (`user.actions[2].do`) and what was expected,
    ///   including fields the format does not know (usually typos).
    public static func decode(from data: Data) throws(SimulatorError) -> Scenario {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let raw: Any
        do {
            raw = try JSONSerialization.jsonObject(with: data)
        } catch {
            throw SimulatorError(.invalidScenario, "not valid JSON; expected a JSON object (\(error.localizedDescription))")
        }
        guard let object = raw as? [String: Any] else {
            throw SimulatorError(.invalidScenario, "expected a JSON object at the top level")
        }
        guard let version = object["version"] as? Int else {
            throw SimulatorError(.invalidScenario, "missing or not an integer; expected \"version\": 1", at: "version")
        }
        guard version == 1 else {
            throw SimulatorError(.unsupportedVersion, "version \(version) is not supported; expected 1", at: "version")
        }
        let scenario: Scenario
        do {
            scenario = try decoder.decode(Scenario.self, from: data)
        } catch let error as DecodingError {
            throw SimulatorError(decoding: error)
        } catch {
            throw SimulatorError(.invalidScenario, "\(error)")
        }
        try checkUnknownFields(original: object, scenario: scenario)
        try scenario.validate()
        return scenario
    }

    /// Reads a scenario file.
    public static func load(contentsOf url: URL) throws(SimulatorError) -> Scenario {
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw SimulatorError(.io, "cannot read \(url.path): \(error.localizedDescription)")
        }
        var scenario = try decode(from: data)
        // A relative GPX path is relative to the scenario file, not to the working directory.
        if let gpx = scenario.route?.gpx, !gpx.hasPrefix("/") {
            scenario.route?.gpx = url.deletingLastPathComponent().appendingPathComponent(gpx).path
        }
        return scenario
    }

    /// Fields present in the input but not in the format are reported (re-encoding drops them).
    private static func checkUnknownFields(original: [String: Any], scenario: Scenario) throws(SimulatorError) {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        guard let data = try? encoder.encode(scenario),
              let known = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else { return }
        try compare(original, known, path: "")
    }

    private static func compare(_ original: Any, _ known: Any, path: String) throws(SimulatorError) {
        if let o = original as? [String: Any], let k = known as? [String: Any] {
            for key in o.keys.sorted() {
                let child = path.isEmpty ? key : "\(path).\(key)"
                guard let kv = k[key] else {
                    if o[key] is NSNull { continue }
                    throw SimulatorError(.invalidScenario, "unknown field; expected one of: \(k.keys.sorted().joined(separator: ", "))",
                                         at: child)
                }
                try compare(o[key]!, kv, path: child)
            }
        } else if let o = original as? [Any], let k = known as? [Any], o.count == k.count {
            for i in o.indices { try compare(o[i], k[i], path: "\(path)[\(i)]") }
        }
    }
}

extension SimulatorError {
    /// Converts a decoding error into a message naming the field path and what was expected.
    init(decoding error: DecodingError) {
        func path(_ keys: [any CodingKey]) -> String {
            var out = ""
            for key in keys {
                if let i = key.intValue { out += "[\(i)]" } else { out += out.isEmpty ? key.stringValue : ".\(key.stringValue)" }
            }
            return out
        }
        switch error {
        case .keyNotFound(let key, let context):
            let parent = path(context.codingPath)
            self.init(.invalidScenario, "required field is missing", at: parent.isEmpty ? key.stringValue : "\(parent).\(key.stringValue)")
        case .typeMismatch(let type, let context):
            self.init(.invalidScenario, "wrong type; expected \(Self.describe(type))", at: path(context.codingPath))
        case .valueNotFound(let type, let context):
            self.init(.invalidScenario, "value is null; expected \(Self.describe(type))", at: path(context.codingPath))
        case .dataCorrupted(let context):
            self.init(.invalidScenario, Self.friendly(context.debugDescription, field: context.codingPath.last?.stringValue),
                      at: path(context.codingPath))
        @unknown default:
            self.init(.invalidScenario, "\(error)")
        }
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is Double.Type, is Int.Type, is UInt64.Type: "a number"
        case is String.Type: "a string"
        case is Bool.Type: "true or false"
        default: "\(type)".hasPrefix("Array") ? "an array" : "an object"
        }
    }

    private static func friendly(_ text: String, field: String?) -> String {
        // "Cannot initialize X from invalid String value y" → name the allowed values.
        let enums: [(String, [String])] = [
            ("LocationAuthorizationStatus", LocationNames.statuses), ("Install", ["fresh", "existing"]),
            ("PermissionSetting", ["notDetermined", "granted", "denied"]), ("Answer", ["allow", "allowOnce", "deny"]),
            ("Kind", field == "do" ? UserAction.Kind.allCases.map(\.rawValue) : MotionActivity.Kind.allCases.map(\.rawValue)),
            ("IOSProfile", IOSProfile.allCases.map(\.rawValue)), ("Mode", ["derived", "scripted"]),
            ("UsageDescription", DeviceSetup.UsageDescription.allCases.map(\.rawValue)),
            ("BackgroundMode", DeviceSetup.BackgroundMode.allCases.map(\.rawValue)),
            ("AppUsage", DeviceSetup.AppUsage.allCases.map(\.rawValue)),
            ("PromptKind", PromptKind.allCases.map(\.rawValue)),
        ]
        for (name, values) in enums where text.contains(name) && text.contains("invalid") {
            let found = text.split(separator: " ").last.map(String.init) ?? "?"
            return "invalid value \(found); expected one of: \(values.joined(separator: ", "))"
        }
        return text
    }
}

private enum LocationNames {
    static let statuses = ["notDetermined", "restricted", "denied", "authorizedWhenInUse", "authorizedAlways"]
}
