import Foundation
import Testing
import WaymarkGeo
@testable import WaymarkEngine

/// The engine reads the app's Info.plist declarations from the device and publishes what is
/// missing for what the app uses, instead of crashing or waiting for a prompt iOS never shows.
@Suite("Engine diagnostics: configuration problems as state")
struct EngineDiagnosticsTests {
    /// A when-in-use app with no background mode and no motion or Always descriptions.
    static let whenInUseOnly = InfoPlistDeclarations(usageDescriptions: [.locationWhenInUse: "Shows you on the map."])

    @Test("a motion request without NSMotionUsageDescription ends misconfigured at once, and the problem is published")
    func missingMotionKey() async throws {
        let rig = EngineTests.Rig(declarations: Self.whenInUseOnly)
        rig.device.send(.launched(reason: .user))
        rig.device.send(T.auth(.authorizedWhenInUse))
        #expect(await rig.device.nextCommand() == .createLocationManager)
        #expect(await rig.engine.diagnostics.current.isEmpty, "a when-in-use app in the foreground needs nothing more")
        let outcomes = try await rig.engine.permissions.request([.motion])
        #expect(outcomes.map(\.result) == [.misconfigured(missingUsageDescription: .motion)])
        #expect(!(await rig.device.performed.contains(.requestMotionPermission)), "iOS would crash on the motion query")
        let problems = await rig.engine.diagnostics.current
        #expect(problems.map(\.kind) == [.missingUsageDescription(.motion)])
        #expect(problems.first?.message.contains("NSMotionUsageDescription") == true)
        await rig.stop()
    }

    @Test("starting a ride without the location background mode publishes that problem; declaring it publishes none")
    func rideNeedsBackgroundMode() async throws {
        var ride = RideTracker.Configuration()
        ride.usesMotion = false
        for declared in [false, true] {
            var declarations = Self.whenInUseOnly
            if declared { declarations.backgroundModes = ["location"] }
            let rig = EngineTests.Rig(configuration: .init(ride: ride), declarations: declarations)
            rig.device.send(.launched(reason: .user))
            rig.device.send(T.auth(.authorizedWhenInUse))
            #expect(await rig.device.nextCommand() == .createLocationManager)
            var states = rig.engine.diagnostics.problems.makeAsyncIterator()
            #expect(await states.next() == [])
            await rig.engine.ride.start(rideID: "r1")
            let problems = await rig.engine.diagnostics.current
            if declared {
                #expect(problems.isEmpty, "\(problems)")
            } else {
                #expect(problems.map(\.kind) == [.missingBackgroundMode("location")])
                #expect(await states.next() == problems, "subscribers see the new list")
            }
            await rig.stop()
        }
    }

    @Test("configured capabilities are checked at start: Always without its usage description")
    func configuredCapabilities() async throws {
        let rig = EngineTests.Rig(configuration: .init(capabilities: AppCapabilities(locationAlways: true)),
                                  declarations: Self.whenInUseOnly)
        rig.device.send(.launched(reason: .user))
        #expect(await rig.device.nextCommand() == .createLocationManager)
        #expect(await rig.engine.diagnostics.current.map(\.kind) == [.missingUsageDescription(.locationAlwaysAndWhenInUse)])
        await rig.stop()
    }

    @Test("usage descriptions the app configured itself win over the device's declarations")
    func configuredKeysWin() async throws {
        var core = EngineCore(configuration: .init(permissions: .init(declaredUsageDescriptions: [.locationWhenInUse, .motion])))
        core.adoptDeclaredUsageDescriptions([.locationWhenInUse])
        #expect(core.permissions.configuration.declaredUsageDescriptions == [.locationWhenInUse, .motion])
        var open = EngineCore()
        open.adoptDeclaredUsageDescriptions([.locationWhenInUse])
        #expect(open.permissions.configuration.declaredUsageDescriptions == [.locationWhenInUse])
    }

    @Test("a device that cannot read the declarations publishes no problems")
    func unknownDeclarations() async throws {
        let rig = EngineTests.Rig(configuration: .init(capabilities: AppCapabilities(locationAlways: true, backgroundLocation: true)))
        rig.device.send(.launched(reason: .user))
        #expect(await rig.device.nextCommand() == .createLocationManager)
        await rig.engine.ride.start(rideID: "r1")
        #expect(await rig.engine.diagnostics.current.isEmpty)
        await rig.stop()
    }
}

@Suite("Info.plist declarations")
struct InfoPlistDeclarationsTests {
    @Test("read from an Info.plist dictionary: blank and non-string descriptions count as present but blank")
    func parsing() {
        let declared = InfoPlistDeclarations(infoDictionary: [
            "NSLocationWhenInUseUsageDescription": "Map",
            "NSMotionUsageDescription": "  ",
            "NSLocationAlwaysAndWhenInUseUsageDescription": 42,
            "UIBackgroundModes": ["location", "fetch"],
            "BGTaskSchedulerPermittedIdentifiers": "not an array",
        ])
        #expect(declared.usageDescriptions == [.locationWhenInUse: "Map", .motion: "  ", .locationAlwaysAndWhenInUse: ""])
        #expect(declared.declaredUsageDescriptions == [.locationWhenInUse])
        #expect(declared.backgroundModes == ["location", "fetch"])
        #expect(declared.permittedTaskIdentifiers.isEmpty)
        let problems = InfoPlistCheck.problems(in: declared, for: AppCapabilities(locationAlways: true, motion: true))
        #expect(problems.map(\.kind) == [.emptyUsageDescription(.locationAlwaysAndWhenInUse), .emptyUsageDescription(.motion)])
    }

    @Test("union keeps everything either side uses, task identifiers once")
    func union() {
        let a = AppCapabilities(locationAlways: true, appRefreshTaskIdentifiers: ["a"])
        let b = AppCapabilities(backgroundLocation: true, appRefreshTaskIdentifiers: ["a", "b"])
        #expect(a.union(b) == AppCapabilities(locationAlways: true, backgroundLocation: true, appRefreshTaskIdentifiers: ["a", "b"]))
    }
}
