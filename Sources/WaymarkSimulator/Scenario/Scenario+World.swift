import Foundation
import WaymarkEngine
import WaymarkGeo

/// The world around the device: GNSS outages, urban areas, network and server.
public struct World: Hashable, Sendable, Codable {
    /// GNSS outages: a time window, an area (a tunnel), or both.
    public var outages: [Outage]?
    /// Areas where GNSS accuracy is urban (10–30 m by default).
    public var urbanAreas: [CircleArea]?
    /// Connectivity and the server's behaviour.
    public var network: Network?

    /// Makes a world.
    public init(outages: [Outage]? = nil, urbanAreas: [CircleArea]? = nil, network: Network? = nil) {
        self.outages = outages
        self.urbanAreas = urbanAreas
        self.network = network
    }

    /// A GNSS outage; with both a window and an area it applies only in the area during the window.
    public struct Outage: Hashable, Sendable, Codable {
        /// When.
        public var window: TimeWindow?
        /// Where.
        public var area: CircleArea?

        /// Makes an outage.
        public init(window: TimeWindow? = nil, area: CircleArea? = nil) {
            self.window = window
            self.area = area
        }
    }

    /// Connectivity windows and the server.
    public struct Network: Hashable, Sendable, Codable {
        /// Windows without connectivity.
        public var offline: [TimeWindow]?
        /// Whether APNs hands out tokens; true when absent.
        public var apnsAvailable: Bool?
        /// The server's behaviour.
        public var server: Server?

        /// Makes a network.
        public init(offline: [TimeWindow]? = nil, apnsAvailable: Bool? = nil, server: Server? = nil) {
            self.offline = offline
            self.apnsAvailable = apnsAvailable
            self.server = server
        }
    }

    /// How the server answers uploads.
    public struct Server: Hashable, Sendable, Codable {
        /// Status for uploads no rule matches; 200 when absent.
        public var defaultStatus: Int?
        /// Largest accepted body; larger uploads get 413. Unlimited when absent.
        public var maxBodyBytes: Int?
        /// Time-windowed answers, first match wins.
        public var rules: [Rule]?

        /// Makes a server.
        public init(defaultStatus: Int? = nil, maxBodyBytes: Int? = nil, rules: [Rule]? = nil) {
            self.defaultStatus = defaultStatus
            self.maxBodyBytes = maxBodyBytes
            self.rules = rules
        }

        /// An answer during a window: a status code, or a timeout.
        public struct Rule: Hashable, Sendable, Codable {
            /// When the rule applies.
            public var window: TimeWindow
            /// The status code (401, 409, 422, 503...).
            public var status: Int?
            /// True: the server never answers (the upload times out).
            public var timeout: Bool?

            /// Makes a rule.
            public init(window: TimeWindow, status: Int? = nil, timeout: Bool? = nil) {
                self.window = window
                self.status = status
                self.timeout = timeout
            }
        }
    }
}

/// How motion activity is produced.
public struct MotionSetup: Hashable, Sendable, Codable {
    /// `derived` from the route's true activity (with lag), or `scripted`.
    public var mode: Mode
    /// The scripted classifications (mode `scripted`), reported at their times as given.
    public var script: [ScriptedActivity]?

    /// Makes a motion setup.
    public init(mode: Mode, script: [ScriptedActivity]? = nil) {
        self.mode = mode
        self.script = script
    }

    /// Modes.
    public enum Mode: String, Hashable, Sendable, Codable, CaseIterable { case derived, scripted }

    /// A scripted classification.
    public struct ScriptedActivity: Hashable, Sendable, Codable {
        /// Seconds since the start.
        public var at: Double
        /// The activity.
        public var activity: MotionActivity.Kind
        /// The confidence; high when absent.
        public var confidence: MotionActivity.Confidence?

        /// Makes a scripted classification.
        public init(at: Double, activity: MotionActivity.Kind, confidence: MotionActivity.Confidence? = nil) {
            self.at = at
            self.activity = activity
            self.confidence = confidence
        }
    }
}

/// The iOS-version profile and constant overrides.
public struct PlatformSetup: Hashable, Sendable, Codable {
    /// The profile; current iOS when absent.
    public var profile: IOSProfile?
    /// Constants to override, by ``PlatformConstants`` property name (`energy` is an object).
    public var overrides: [String: JSONValue]?

    /// Makes a platform setup.
    public init(profile: IOSProfile? = nil, overrides: [String: JSONValue]? = nil) {
        self.profile = profile
        self.overrides = overrides
    }
}

/// A JSON value, for free-form overrides.
public enum JSONValue: Hashable, Sendable, Codable {
    case number(Double), bool(Bool), string(String), object([String: JSONValue]), array([JSONValue]), null

    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { self = .null }
        else if let b = try? c.decode(Bool.self) { self = .bool(b) }
        else if let n = try? c.decode(Double.self) { self = .number(n) }
        else if let s = try? c.decode(String.self) { self = .string(s) }
        else if let a = try? c.decode([JSONValue].self) { self = .array(a) }
        else { self = .object(try c.decode([String: JSONValue].self)) }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .number(let n): try c.encode(n)
        case .bool(let b): try c.encode(b)
        case .string(let s): try c.encode(s)
        case .object(let o): try c.encode(o)
        case .array(let a): try c.encode(a)
        case .null: try c.encodeNil()
        }
    }
}
