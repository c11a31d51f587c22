import Foundation
import WaymarkEngine
import WaymarkGeo

/// The world around the device: GNSS outages, urban areas, network and server.
///
/// Areas are WaymarkGeo's `BoundingCircle`s (JSON `{"center":{…},"radiusMeters":…}`); a point is inside
/// when its distance on the ellipsoid from the centre is at most the radius. (Until the circle types
/// were merged, the simulator used the spherical haversine distance, which differs by up to 0.5%.)
public struct World: Hashable, Sendable, Codable {
    /// GNSS outages: a time window, an area (a tunnel), or both.
    public var outages: [Outage]?
    /// Areas where GNSS accuracy is urban (10–30 m by default).
    public var urbanAreas: [BoundingCircle]?
    /// Connectivity and the server's behaviour.
    public var network: Network?
    /// Areas without Wi-Fi positioning (countryside, open water; issue #14, [S37]). Elsewhere a
    /// kilometer or threeKilometers request gets Wi-Fi fixes (30–100 m, at Wi-Fi cost), since Core
    /// Location "typically provides more accurate data than you have requested"; inside, cell-only
    /// fixes (500–3000 m, at cell cost). So do a GNSS receiver still acquiring and the GNSS-outage
    /// fall-back. None when absent (Wi-Fi everywhere, as Apple's "typically").
    public var noWifiAreas: [BoundingCircle]?
    /// Where the fixes come from, as iOS reports it (`CLLocationSourceInformation`): spells of a
    /// mock-location app or an external GNSS accessory. Absent: the device's own receivers, origin unreported.
    public var locationSource: LocationSource?

    /// Makes a world.
    public init(outages: [Outage]? = nil, urbanAreas: [BoundingCircle]? = nil, network: Network? = nil,
                noWifiAreas: [BoundingCircle]? = nil, locationSource: LocationSource? = nil) {
        self.outages = outages
        self.urbanAreas = urbanAreas
        self.network = network
        self.noWifiAreas = noWifiAreas
        self.locationSource = locationSource
    }

    /// The origin iOS reports for each fix (`CLLocation.sourceInformation`, iOS 15+).
    ///
    /// Apple documents `isSimulatedBySoftware` as true when "the system generated the location using
    /// on-device software simulation" and `isProducedByAccessory` as true when it "retrieved the location
    /// from an external accessory attached to the device, such as a Made for iPhone GPS dongle or
    /// CarPlay". Apple leaves `sourceInformation` optional without saying when an ordinary fix has none,
    /// so ``reportedForOrdinaryFixes`` models both cases.
    ///
    /// ```json
    /// "locationSource": {"simulatedBySoftware": [{"from": 600, "to": 900}],
    ///                    "externalAccessory": [{"from": 1200}], "reportedForOrdinaryFixes": true}
    /// ```
    public struct LocationSource: Hashable, Sendable, Codable {
        /// Spells when a mock-location app (or Xcode's simulated location) feeds every fix:
        /// `isSimulatedBySoftware` true. The positions are still the scenario's route.
        public var simulatedBySoftware: [TimeWindow]?
        /// Spells when an external GNSS accessory feeds every fix: `isProducedByAccessory` true.
        public var externalAccessory: [TimeWindow]?
        /// Whether fixes outside those spells carry source information (both flags false); false when
        /// absent, so they carry none (an unknown origin).
        public var reportedForOrdinaryFixes: Bool?

        /// Makes a location-source setup.
        public init(simulatedBySoftware: [TimeWindow]? = nil, externalAccessory: [TimeWindow]? = nil,
                    reportedForOrdinaryFixes: Bool? = nil) {
            self.simulatedBySoftware = simulatedBySoftware
            self.externalAccessory = externalAccessory
            self.reportedForOrdinaryFixes = reportedForOrdinaryFixes
        }

        /// The source information of a fix measured at virtual second `t`; nil for an unknown origin.
        public func information(at t: Double) -> Fix.SourceInformation? {
            let simulated = (simulatedBySoftware ?? []).contains { $0.contains(t) }
            let accessory = (externalAccessory ?? []).contains { $0.contains(t) }
            guard simulated || accessory || reportedForOrdinaryFixes == true else { return nil }
            return Fix.SourceInformation(isSimulatedBySoftware: simulated, isProducedByAccessory: accessory)
        }
    }

    /// A GNSS outage; with both a window and an area it applies only in the area during the window.
    public struct Outage: Hashable, Sendable, Codable {
        /// When.
        public var window: TimeWindow?
        /// Where.
        public var area: BoundingCircle?

        /// Makes an outage.
        public init(window: TimeWindow? = nil, area: BoundingCircle? = nil) {
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

        /// An answer during a window: a status code, a timeout, or a lost reply.
        public struct Rule: Hashable, Sendable, Codable {
            /// When the rule applies.
            public var window: TimeWindow
            /// The status code (401, 409, 422, 503...). A 2xx status lets the upload through to the server.
            public var status: Int?
            /// True: the server never answers and stores nothing (the upload times out).
            public var timeout: Bool?
            /// True: the server stores the upload, but its reply is lost (the upload times out).
            public var replyLost: Bool?

            /// Makes a rule.
            public init(window: TimeWindow, status: Int? = nil, timeout: Bool? = nil, replyLost: Bool? = nil) {
                self.window = window
                self.status = status
                self.timeout = timeout
                self.replyLost = replyLost
            }
        }
    }
}
