import Foundation
import WaymarkGeo
import WaymarkEngine

extension Scenario {
    /// Checks values the JSON shape cannot: version, ranges, legs, windows.
    ///
    /// - throws: ``SimulatorError`` naming the field path.
    public func validate() throws(SimulatorError) {
        func fail(_ path: String, _ message: String) -> SimulatorError { SimulatorError(.invalidScenario, message, at: path) }
        guard version == 1 else { throw SimulatorError(.unsupportedVersion, "version \(version) is not supported; expected 1", at: "version") }
        if let d = durationSeconds, !(d > 0) { throw fail("durationSeconds", "expected a positive number of seconds, found \(d)") }
        if let route {
            if route.gpx == nil && (route.start == nil || route.legs == nil) {
                throw fail("route", "expected either \"gpx\" or both \"start\" and \"legs\"")
            }
            if route.gpx != nil && route.legs != nil { throw fail("route", "expected either \"gpx\" or \"legs\", not both") }
            for (i, leg) in (route.legs ?? []).enumerated() {
                let path = "route.legs[\(i)]"
                switch (leg.waypoints, leg.stopSeconds) {
                case (.some(let points), nil):
                    guard !points.isEmpty else { throw fail("\(path).waypoints", "expected at least one waypoint") }
                    guard let speed = leg.speed, speed > 0, speed.isFinite else {
                        throw fail("\(path).speed", "expected a positive speed in metres per second")
                    }
                case (nil, .some(let stop)):
                    guard stop >= 0 else { throw fail("\(path).stopSeconds", "expected a non-negative duration") }
                default:
                    throw fail(path, "expected either \"waypoints\" with \"speed\" or \"stopSeconds\"")
                }
            }
        }
        for (i, action) in (user?.actions ?? []).enumerated() where !(action.at >= 0) {
            throw fail("user.actions[\(i)].at", "expected seconds since the start (≥ 0)")
        }
        for (kind, response) in user?.prompts ?? [:] {
            if let think = response.thinkSeconds, !(think >= 0) {
                throw fail("user.prompts.\(kind.rawValue).thinkSeconds", "expected a non-negative number of seconds")
            }
        }
        for (i, region) in (device?.monitoredRegions ?? []).enumerated() where !(region.radiusMeters > 0) {
            throw fail("device.monitoredRegions[\(i)].radiusMeters", "expected a positive radius in metres")
        }
        for (i, outage) in (world?.outages ?? []).enumerated() {
            if outage.window == nil && outage.area == nil {
                throw fail("world.outages[\(i)]", "expected a \"window\", an \"area\" or both")
            }
            if let w = outage.window, let to = w.to, to < w.from { throw fail("world.outages[\(i)].window.to", "expected to ≥ from") }
        }
        for (name, windows) in [("simulatedBySoftware", world?.locationSource?.simulatedBySoftware),
                                ("externalAccessory", world?.locationSource?.externalAccessory)] {
            for (i, w) in (windows ?? []).enumerated() {
                if let to = w.to, to < w.from { throw fail("world.locationSource.\(name)[\(i)].to", "expected to ≥ from") }
            }
        }
        for (i, rule) in (world?.network?.server?.rules ?? []).enumerated() {
            let answers = [rule.status != nil, rule.timeout == true, rule.replyLost == true].filter { $0 }.count
            if answers != 1 {
                throw fail("world.network.server.rules[\(i)]", "expected exactly one of a \"status\" code, \"timeout\": true or \"replyLost\": true")
            }
        }
        if motion?.mode == .scripted && (motion?.script ?? []).isEmpty {
            throw fail("motion.script", "expected at least one scripted activity when mode is scripted")
        }
        _ = try resolvedConstants()
    }

    /// The platform constants: the profile's defaults with the overrides applied.
    ///
    /// - throws: ``SimulatorError`` naming an unknown constant or a value of the wrong type.
    public func resolvedConstants() throws(SimulatorError) -> PlatformConstants {
        let base = PlatformConstants.profile(platform?.profile ?? .current)
        guard let overrides = platform?.overrides, !overrides.isEmpty else { return base }
        do {
            let data = try JSONEncoder().encode(base)
            guard var object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else { return base }
            for (key, value) in overrides.sorted(by: { $0.key < $1.key }) {
                guard let current = object[key] else {
                    throw SimulatorError(.invalidScenario, "unknown platform constant; expected one of: \(object.keys.sorted().joined(separator: ", "))",
                                         at: "platform.overrides.\(key)")
                }
                let encoded = try JSONSerialization.jsonObject(with: JSONEncoder().encode(value), options: .fragmentsAllowed)
                if var nested = current as? [String: Any], let patch = encoded as? [String: Any] {
                    for (k, v) in patch {
                        guard nested[k] != nil else {
                            throw SimulatorError(.invalidScenario, "unknown energy cost; expected one of: \(nested.keys.sorted().joined(separator: ", "))",
                                                 at: "platform.overrides.\(key).\(k)")
                        }
                        nested[k] = v
                    }
                    object[key] = nested
                } else {
                    object[key] = encoded
                }
            }
            let merged = try JSONSerialization.data(withJSONObject: object)
            do {
                return try JSONDecoder().decode(PlatformConstants.self, from: merged)
            } catch let error as DecodingError {
                var e = SimulatorError(decoding: error)
                e.fieldPath = "platform.overrides." + (e.fieldPath ?? "")
                throw e
            }
        } catch let error as SimulatorError {
            throw error
        } catch {
            throw SimulatorError(.invalidScenario, "cannot apply overrides: \(error)", at: "platform.overrides")
        }
    }

    /// The true trajectory: the inline legs, or the timed track points of the route's GPX file.
    ///
    /// A GPX route replays the file's track points (its route points when it has no track) from
    /// virtual second 0, taking times relative to the first timed point.
    ///
    /// - throws: ``SimulatorError`` naming the field when the scenario is not valid (``validate()``), or
    ///   `route.gpx` when the file cannot be read or has no timed points.
    public func makeTrajectory() throws(SimulatorError) -> Trajectory {
        // A scenario built in code may not have been validated: its legs get the thrown error here, not
        // Trajectory's precondition.
        try validate()
        return try trajectoryOfValidScenario()
    }

    /// ``makeTrajectory()`` for a scenario already validated (``Simulation`` validates first).
    func trajectoryOfValidScenario() throws(SimulatorError) -> Trajectory {
        guard let route else { return Trajectory(stationaryAt: Coordinate(uncheckedLatitude: 0, longitude: 0)) }
        if let gpx = route.gpx {
            let document: GPXDocument
            do {
                document = try GPXDocument(contentsOf: URL(fileURLWithPath: gpx))
            } catch {
                throw SimulatorError(.io, "cannot read the GPX route: \(error)", at: "route.gpx")
            }
            var points = document.tracks.flatMap(\.points)
            if points.isEmpty { points = document.routes.flatMap(\.points) }
            guard points.filter({ $0.time != nil }).count >= 2 else {
                throw SimulatorError(.invalidScenario, "\(gpx) has fewer than two track points with a time; "
                                     + "expected a recorded track with <time> on its points", at: "route.gpx")
            }
            return Trajectory(timedWaypoints: points)
        }
        return Trajectory(start: route.start!, legs: route.legs ?? [])
    }
}
