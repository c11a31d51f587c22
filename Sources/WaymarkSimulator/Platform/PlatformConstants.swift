/// Every number of PLATFORM.md in one value: timings in seconds, distances in metres, energy in relative units.
///
/// Start from an iOS-version profile and override what a scenario needs:
///
/// ```swift
/// var constants = PlatformConstants.profile(.ios18)
/// constants.regionLatencySeconds = 240   // a fixed region latency instead of the drawn one
/// ```
///
/// A `Sendable` value type. Scenario JSON overrides fields by name under `platform.overrides`.
public struct PlatformConstants: Hashable, Sendable, Codable {
    // §1 prompts
    /// How long the user looks at a prompt before answering, unless the scenario says otherwise.
    public var promptThinkSeconds = 2.0

    // §2 location authorization
    /// Whether the "Allow Once" answer exists (iOS 13+).
    public var allowOnceAvailable = true
    /// Whether reduced ("approximate") accuracy exists (iOS 14+).
    public var reducedAccuracyAvailable = true

    // §1–§2 permission fidelity (issue #14) ---------------------------------------------------
    /// What becomes of a permission request made while another prompt is on screen: `lost`
    /// (default) or `shownAfterFirst`. Field evidence only [S11]; see ``PromptCollisionOutcome``.
    public var promptCollisionOutcome = PromptCollisionOutcome.lost
    /// Whether `requestAlwaysAuthorization` while notDetermined gives provisional Always (iOS 13+):
    /// the when-in-use prompt appears, "Allow While Using" reads `authorizedAlways` until the app
    /// first uses location while not in use, when iOS asks the user to confirm (WWDC19 705 [S5];
    /// timfpark/react-native-location#93 [S6]). False (iOS 12): the same answer gives when-in-use.
    public var provisionalAlwaysAvailable = true
    /// Seconds out of use (not in the foreground, past the few-second grace after leaving it, and
    /// without background location updates) after which a temporary grant lapses: "Allow Once"
    /// (status back to notDetermined, the next request prompts again) and temporary full accuracy
    /// (back to reduced). Apple: `CLServiceSession` re-asks "after temporary authorization lapses
    /// due to time your app spends in the background"; q42 and zonneveld.dev say "after a (longer)
    /// period of inactivity" [S8]. No figure is published: 5 minutes is a pessimistic pick. A new
    /// process never inherits either grant, whatever the time.
    public var temporaryAuthorizationLapseSeconds = 300.0
    /// Which Settings changes terminate an app that runs in the background or is suspended:
    /// `anyChange` (default) or `downgradeOnly`. Field evidence only [S13]; see
    /// ``SettingsChangeTermination``.
    public var settingsChangeTermination = SettingsChangeTermination.anyChange
    // -------------------------------------------------------------------------------------------

    // §3 notifications
    /// Time from registering for remote notifications to the token or failure.
    public var remoteRegistrationSeconds = 1.0

    // §4 standard updates
    /// Probability that starting updates delivers a cached fix at once.
    public var cachedFixProbability = 0.9
    /// Age range of a cached fix.
    public var cachedFixAgeMinSeconds = 60.0, cachedFixAgeMaxSeconds = 600.0
    /// Reported accuracy range of a cached fix.
    public var cachedFixAccuracyMinMeters = 65.0, cachedFixAccuracyMaxMeters = 1000.0
    /// Interval between fresh fixes (about 1 Hz).
    public var updateIntervalSeconds = 1.0
    /// GNSS accuracy in open sky.
    public var gnssAccuracyMinMeters = 5.0, gnssAccuracyMaxMeters = 10.0
    /// GNSS accuracy in urban areas.
    public var gnssUrbanAccuracyMinMeters = 10.0, gnssUrbanAccuracyMaxMeters = 30.0
    /// Time to the first accurate GNSS fix after the receiver starts.
    public var gnssTimeToFirstFixMinSeconds = 5.0, gnssTimeToFirstFixMaxSeconds = 30.0
    /// Time to reacquire GNSS after an outage, or after a desired accuracy without GNSS turned the
    /// receiver off (a hot start when GNSS is selected again).
    public var gnssReacquireSeconds = 3.0
    /// Correlation time of the position error (Gauss–Markov).
    public var positionErrorTimeConstantSeconds = 30.0
    /// Wi-Fi positioning accuracy (hundredMeters, and while GNSS acquires).
    public var wifiAccuracyMinMeters = 30.0, wifiAccuracyMaxMeters = 100.0
    /// Cell positioning accuracy (kilometer, threeKilometers).
    public var cellAccuracyMinMeters = 500.0, cellAccuracyMaxMeters = 3000.0
    /// Interval between fixes for a kilometer or threeKilometers request (Wi-Fi where available,
    /// else cell: see ``World/noWifiAreas``), and between cell fixes of the GNSS-outage fall-back.
    public var cellUpdateIntervalSeconds = 60.0
    /// Accuracy of fixes under reduced accuracy authorization: Apple, `kCLLocationAccuracyReduced`,
    /// "within 1–20 kilometers" [S9] (issue #14; was 1–3 km).
    public var reducedAccuracyMinMeters = 1000.0, reducedAccuracyMaxMeters = 20_000.0
    /// Interval between fixes under reduced accuracy: Apple, "at most a few times per hour" [S9];
    /// 20 min (three an hour) so the default is never faster than that (issue #14; was 15 min).
    public var reducedUpdateIntervalSeconds = 1200.0
    /// Stillness before automatic pausing.
    public var autoPauseSeconds = 900.0
    /// Stillness before automatic pausing for fitness and navigation activity types.
    public var autoPauseFitnessSeconds = 300.0
    /// True speed below which the device counts as still.
    public var stillSpeedMetersPerSecond = 0.5
    /// How long the device stays still before `CLLocationUpdate.liveUpdates` reports it stationary
    /// and pauses (iOS 17). Apple gives no figure (WWDC23 10180 shows the behaviour only), so a
    /// setting; the default matches the legacy fitness auto-pause.
    public var liveStationarySeconds = 300.0
    /// Time from leaving the foreground to suspension without background execution; standard updates
    /// without background location keep flowing until then (the grace window), then stop.
    public var backgroundSuspendSeconds = 5.0
    /// Background execution a background task grants.
    public var backgroundTaskSeconds = 30.0
    /// Grace after a background task expires before the system kills an app that did not end it.
    public var backgroundTaskGraceSeconds = 1.0
    /// One-shot request timeout before `locationUnknown`.
    public var oneShotTimeoutSeconds = 10.0
    /// Whether a one-shot request made before authorization is granted fails with `locationUnknown`
    /// after ``oneShotTimeoutSeconds`` unless a grant comes first ("may time out and produce an
    /// error if authorization has not yet been granted", Apple `requestLocation()` [S37]). Apple
    /// says "may", so a setting: default true; false waits for the grant, however long.
    public var oneShotTimesOutBeforeAuthorization = true
    /// Fixes the system holds for a suspended app; they arrive late in one batch when it runs again
    /// [S41], and are lost if it is terminated. Beyond this the oldest are dropped.
    public var heldFixLimit = 100

    // §3 standard updates and §7 lifecycle fidelity (issue #14) --------------------------------------
    /// Whether `startUpdatingLocation` with `allowsBackgroundLocationUpdates` true, in an app without
    /// `location` in `UIBackgroundModes`, crashes the app (`NSInternalInconsistencyException`,
    /// "!stayUp || CLClientIsBackgroundable": Apple, `allowsBackgroundLocationUpdates`; mapbox-events-ios
    /// #10, AtB-AS/mittatb-app #4129 [S21]). Default true. False: the old graceful model, where the
    /// updates simply stop when the app is suspended.
    public var crashOnBackgroundUpdatesWithoutMode = true
    /// Whether a when-in-use app that starts standard updates while not in use (in the background,
    /// outside a location launch or wake) gets `CLError.denied` (forums 748098: a Bluetooth-woken
    /// start [S22]). Field evidence, so a setting: default true; false ignores the start silently.
    public var backgroundStartFailsWithDenied = true
    /// Whether region monitoring needs Background App Refresh (``DeviceSetup/backgroundAppRefresh``,
    /// switched off by ``DeviceSetup/lowPowerMode``): without it a registration fails with
    /// `kCLErrorRegionMonitoringDenied` and registered regions deliver nothing (rdar 16078124,
    /// corona-warn-app #974 [S31]). Field evidence, so a setting: default true.
    public var regionMonitoringNeedsBackgroundRefresh = true
    /// Whether standard updates under a GNSS accuracy deliver Wi-Fi or cell fixes during a GNSS outage
    /// (a tunnel) after the `locationUnknown` error, instead of nothing until GNSS returns. An
    /// inference from Apple's "apps must be prepared to use less accurate data" (`desiredAccuracy`
    /// [S9]); no field measurement found, so false (silence) by default.
    public var gnssOutageFallsBackToNetwork = false
    // -------------------------------------------------------------------------------------------------

    // §5 significant changes (issue #14: cell-tower cadence, idle wakes, accuracy, force-quit relaunch)
    /// Movement that triggers a significant change inside a scenario's urban area
    /// (``World/urbanAreas``), drawn per event between min and max: the service follows cell-tower
    /// changes, about 500 m apart in cities. Apple documents "500 meters or more" [S34]; the
    /// 1000 m upper bound is field evidence (transistorsoft `useSignificantChangesOnly`: 500–1000 m).
    public var significantChangeUrbanMinMeters = 500.0, significantChangeUrbanMaxMeters = 1000.0
    /// Movement that triggers a significant change outside urban areas, drawn per event: towers are
    /// sparser, "1–2 km or more" (field, transistorsoft; Microsoft's binding: "primarily relies on
    /// cellphone-tower changes") [S34].
    public var significantChangeRuralMinMeters = 1000.0, significantChangeRuralMaxMeters = 3000.0
    /// Minimum interval between significant changes: Apple, "not more frequently than once every
    /// five minutes" [S34].
    public var significantChangeIntervalSeconds = 300.0
    /// Without movement the service still wakes the app at least this often with a fresh fix: Apple
    /// Energy Efficiency Guide, "once every 15 minutes, at minimum, even if no location changes have
    /// occurred" (confirmed by DTS, forums 71792) [S34]. 0 turns the idle wakes off.
    public var significantChangeIdleWakeSeconds = 900.0
    /// Accuracy of a cell-level significant-change fix.
    public var significantChangeAccuracyMinMeters = 500.0, significantChangeAccuracyMaxMeters = 2000.0
    /// Probability that a significant-change fix is better than cell level (Wi-Fi assisted): Core
    /// Location "typically provides more accurate data than you have requested" [S37][S34]. Field
    /// calibration, not an Apple figure.
    public var significantChangeWifiProbability = 0.5
    /// Accuracy of a significant-change fix better than cell level; 65 m is the coarsest Wi-Fi figure
    /// devices report (a ±65 m fix, [S39]).
    public var significantChangeWifiAccuracyMinMeters = 65.0, significantChangeWifiAccuracyMaxMeters = 500.0
    /// Whether significant-change and region events relaunch an app the user force-quit. Field
    /// evidence: iOS did before 7.0, iOS 7.0 stopped, 7.1 restored it, and apps are relaunched after a
    /// swipe-away on iOS 17.2 and 18.1 (RN background-geolocation #2419, #2224) [S25], so true in every
    /// profile. Silent pushes [S18] and visits (LocoKit #12) [S25] never relaunch a force-quit app.
    public var relaunchAfterForceQuit = true
    /// Distance the device must move from where the app was force-quit before a location event
    /// relaunches it: field, "the device must move at least 200 meters before the OS will reboot"
    /// the app (transistorsoft native-background-geolocation #5) [S25].
    public var forceQuitRelaunchMinMeters = 200.0
    /// Background time for a location or region launch or wake-up.
    public var locationLaunchSeconds = 10.0
    /// Whether UIKit posts `willEnterForegroundNotification` when the first scene of a UIScene app
    /// comes to the foreground at a user launch, as at a resume. Field only: TelemetryDeck/SwiftSDK#113
    /// ("willEnterForeground fires at launch only for scene apps"); an app-delegate app never gets it
    /// at launch. False by default, the pessimistic reading for an engine: it must not need the
    /// notification to notice a user launch (the launch locator starts from `launched(.user)`, and
    /// `LaunchReasonResolver` decides from the activation too), and seeded runs stay as before.
    public var willEnterForegroundAtSceneLaunch = false
    /// Whether the first scene of a UIScene app connects (and `applicationState` leaves `.background`)
    /// before the main run loop first turns after `didFinishLaunching`. Field only:
    /// bugsnag/bugsnag-cocoa#1307 ("once the run loop has run we expect the app state to be
    /// accurate"). With false a live device that waits for the run loop reads a user launch as a
    /// background one; `LaunchReasonResolver` decides at the first scene event instead when it comes first.
    public var sceneConnectsBeforeFirstRunLoopTurn = true
    /// Whether iterating `CLMonitor` events creates an implicit service session that raises the
    /// when-in-use prompt while authorization is notDetermined and the app is in the foreground,
    /// unless the app declares `NSLocationRequireExplicitServiceSession` (iOS 18; WWDC24 10212
    /// "What's new in location authorization"; Apple `CLServiceSession`; PLATFORM.md §9). True in
    /// the iOS 18 profile, false before (service sessions are iOS 18).
    public var implicitServiceSessions = true
    /// Background time for a launch or wake-up by a silent (content-available) push; standard
    /// updates still cannot be started in it.
    public var remoteNotificationSeconds = 30.0
    /// Background time an app-refresh task (`BGAppRefreshTask`) gets before its expiration handler:
    /// about 30 s (Apple, WWDC19 707 *Advances in App Background Execution*).
    public var appRefreshSeconds = 30.0
    /// How long after its earliest begin iOS runs an app-refresh task, s, by how often the user
    /// opens the app (``DeviceSetup/AppUsage``): drawn uniformly between the minimum and the maximum.
    /// Apple promises only that a task never starts before `earliestBeginDate` (Apple,
    /// `BGTaskRequest.earliestBeginDate`) and names app usage among what decides when it runs
    /// (WWDC20 10063); the spans are field reports of developers measuring their apps (runs "a few
    /// times a day", hours apart; Apple Developer Forums on `BGAppRefreshTask` frequency), so
    /// settings: daily 0–1 h, weekly 2–8 h, rarely 12–48 h.
    public var appRefreshDelayDailyMinSeconds = 0.0
    /// See ``appRefreshDelayDailyMinSeconds``.
    public var appRefreshDelayDailyMaxSeconds = 3_600.0
    /// See ``appRefreshDelayDailyMinSeconds``.
    public var appRefreshDelayWeeklyMinSeconds = 7_200.0
    /// See ``appRefreshDelayDailyMinSeconds``.
    public var appRefreshDelayWeeklyMaxSeconds = 28_800.0
    /// See ``appRefreshDelayDailyMinSeconds``.
    public var appRefreshDelayRarelyMinSeconds = 43_200.0
    /// See ``appRefreshDelayDailyMinSeconds``.
    public var appRefreshDelayRarelyMaxSeconds = 172_800.0

    // §6 regions (issue #14: PLATFORM.md §5, second edition; see `Simulation+Regions`) ---------------
    /// Regions one app may monitor.
    public var maxMonitoredRegions = 20
    /// Largest radius (`maximumRegionMonitoringDistance`): a region with a larger radius fails with
    /// `RegionFailure.radiusTooLarge` — iOS does not clamp ("if the radius is too large,
    /// registration fails automatically", Apple's sample [S30]). The value is device-specific and
    /// Apple publishes none; 400 km is what devices commonly report. Negative (a device reports −1):
    /// region monitoring is unavailable and every registration fails with
    /// `RegionFailure.unavailable` [S26].
    public var maxRegionRadiusMeters = 400_000.0
    /// Radii below this behave like a radius drawn from the effective range (never smaller than the
    /// radius asked for): "for testing purposes you can assume the minimum distance is approximately
    /// 200 meters" (Location and Maps Programming Guide, quoted [S27]) (issue #14; was 100 m).
    public var minRegionRadiusMeters = 200.0
    /// Effective radius range for small regions: "approximately 200 meters" [S27] (issue #14; was 100–200 m).
    public var smallRegionEffectiveMinMeters = 150.0, smallRegionEffectiveMaxMeters = 250.0
    /// How far beyond the boundary the device must be for an exit to count (and how far outside a
    /// new region it must be for its state to be known), while GNSS is not running for the app.
    /// Apple: the device must "move away from the boundary by a minimum distance" and stay there
    /// [S27], with no figure; field: exits "typically" fire "about 200 meters outside"
    /// (transistorsoft cordova-background-geolocation-lt #541, react-native-background-geolocation
    /// #1086) [S28]. (Issue #14; replaces `regionBufferMeters`, 50 m.)
    public var regionCrossingDistanceMeters = 200.0
    /// The crossing distance, for exits and entries, while GNSS is already running for the app
    /// (standard updates with a GNSS-class desired accuracy, producing): field, exits 60–70 m outside
    /// on iOS 26 with high-accuracy tracking on (react-native-background-geolocation #2597), 50–100 m
    /// (#2353) [S28].
    public var regionCrossingDistanceWithGNSSMeters = 65.0
    /// How far inside the boundary the device must be for an entry to count while GNSS is not running
    /// for the app, at most half the region's effective radius (so a pass through the middle always
    /// qualifies). Apple's criterion is the exit's, mirrored [S27]; field: entries fire "a lot closer"
    /// to the boundary than exits, exits at two to three times the entry's distance from the centre
    /// (flutter_background_geolocation #446), and entries "correctly" at the boundary with GNSS on
    /// (react-native-background-geolocation #2353) [S28]. No figure is published: half the exit
    /// distance is a pessimistic pick.
    public var regionEntryDistanceMeters = 100.0
    /// Time the device must stay beyond the crossing distance: "at least 20 seconds" [S27].
    public var regionDwellSeconds = 20.0
    /// Mean delay from a committed crossing to the event, seconds, of the log-normal body of the
    /// latency distribution: Apple, events arrive "within 3 to 5 minutes on average"
    /// (`startMonitoring(for:)` [S26]); 4 minutes, the middle of that range.
    public var regionLatencyMeanSeconds = 240.0
    /// Shape (σ of the underlying normal) of the log-normal latency body: 0.6 puts 90% of the body
    /// between about 1¼ and 9 minutes. A calibration, not an Apple figure.
    public var regionLatencyLogSigma = 0.6
    /// Probability that an event falls in the long tail instead (while the app runs or is
    /// suspended): field, 30 min to 3 h late in central Paris on iOS 18.4
    /// (react-native-background-geolocation #2580), exits only 5 km out (rdar 17064346) [S28].
    public var regionLatencyTailProbability = 0.02
    /// Probability of the long tail for a crossing while the app is not running (terminated or
    /// force-quit): the late events of #2580 were after a termination [S28].
    public var regionLatencyTailProbabilityAfterTermination = 0.10
    /// Range of a long-tail latency, drawn uniformly: 30 min to 3 h [S28].
    public var regionLatencyTailMinSeconds = 1800.0, regionLatencyTailMaxSeconds = 10_800.0
    /// Fixed delay from a committed crossing to the event, replacing the whole distribution (body and
    /// tail) when zero or more: deterministic latency for tests and what-if runs. Negative (default):
    /// drawn. Misses still follow ``regionMissProbability``. (Issue #14; was a fixed 60 s.)
    public var regionLatencySeconds = -1.0
    /// Probability that iOS never reports a committed crossing (the system state still changes, so a
    /// state request tells the truth): field, events "occasionally never" arrive [S28]. A
    /// calibration, not an Apple figure.
    public var regionMissProbability = 0.02
    /// Time the system needs to determine a new region's state; a state request sooner reports
    /// `unknown` [S29]. When the state is known, `didDetermineState` fires once for the registration.
    public var regionStateDeterminationSeconds = 2.0
    /// Whether region ENTER events are held back while the app runs (or is suspended) in a process a
    /// silent push launched or woke, until the app next comes to the foreground (any process).
    /// Field only: Apple forums 812111 reports it for `CLMonitor` after an APNs background launch,
    /// even with a `CLBackgroundActivitySession`, while the legacy API delivered them [S43]. The
    /// simulator stands in for both APIs, so the pessimistic reading is the default: true. Exits and
    /// state callbacks of the same region queue behind a held entry, in order.
    public var regionEnterHeldAfterPushLaunch = true
    // -------------------------------------------------------------------------------------------------

    // §3/§5 visits (issue #14; Apple `CLVisit`, `startMonitoringVisits()` [S36]). Apple publishes no
    // numbers: every value below is a field-calibrated scenario default.
    /// The device "stays at a place" while it remains within this distance of where it stopped.
    public var visitRadiusMeters = 150.0
    /// Time the device must stay before iOS counts a visit.
    public var visitMinimumStaySeconds = 600.0
    /// Delay from the system noticing an arrival or a departure to the app receiving it, drawn per
    /// event: visits arrive late.
    public var visitReportDelayMinSeconds = 60.0, visitReportDelayMaxSeconds = 900.0
    /// Reported accuracy of a visit's place with Precise Location on. Under reduced accuracy, visits
    /// "use reduced accuracy" (Apple, `startMonitoringVisits()`) [S36]: the reduced-accuracy range.
    public var visitAccuracyMinMeters = 30.0, visitAccuracyMaxMeters = 150.0

    // §7 motion
    /// Classification lag for walking, running, automotive and stationary.
    public var motionLagSeconds = 30.0
    /// Classification lag for cycling.
    public var motionCyclingLagSeconds = 90.0
    /// Probability that a cycling classification comes with medium (else low) confidence.
    public var cyclingMediumConfidenceProbability = 0.7

    // §9 energy
    /// The energy table.
    public var energy = EnergyCosts()

    // §10 network (the rest of the network is the scenario's `world.network`, see `SimulatedNetwork`;
    // an upload's answer comes at the virtual time it was sent, timeouts included)
    /// Radio tail: uploads closer than this share one radio wake.
    public var radioTailSeconds = 10.0

    /// The current documented behaviour (the latest profile).
    public init() {}
}

/// The energy table of PLATFORM.md §9, in relative units.
public struct EnergyCosts: Hashable, Sendable, Codable {
    /// GNSS receiver on, per second.
    public var gnssPerSecond = 1.0
    /// Wi-Fi positioning, per second.
    public var wifiPerSecond = 0.15
    /// Cell positioning, per second.
    public var cellPerSecond = 0.05
    /// Significant-change monitoring, per second: twice region monitoring, since it "costs more than
    /// region and visit monitoring" (DTS, forums 71792) [S34] (issue #14; was 0.002).
    public var significantChangePerSecond = 0.004
    /// Region monitoring, per second.
    public var regionMonitoringPerSecond = 0.002
    /// Visit monitoring, per second (PLATFORM.md §8: the region-monitoring row) [S34].
    public var visitMonitoringPerSecond = 0.002
    /// Motion coprocessor updates, per second.
    public var motionPerSecond = 0.001
    /// CPU wake to deliver fixes, per delivery.
    public var cpuWakePerDelivery = 0.02
    /// Radio wake for an upload.
    public var radioWake = 0.5
    /// Upload payload, per kilobyte.
    public var radioPerKilobyte = 0.0005
    /// Running app, per second (0 while suspended).
    public var idleAppPerSecond = 0.01

    /// The table of PLATFORM.md.
    public init() {}
}
