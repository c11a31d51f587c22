import Foundation
import Testing
import WaymarkEngine
import WaymarkSimulator
@testable import WaymarkExampleModels

/// The shipped Info.plist has every key the app needs, checked with the engine's InfoPlistCheck:
/// a missing usage description means no prompt (or, for motion, a crash), a missing background
/// mode means a ride that stops recording when the screen goes off.
@Suite("Info.plist")
struct InfoPlistTests {
    static let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Info.plist")

    static func info() throws -> [String: Any] {
        let data = try Data(contentsOf: url)
        return try #require(try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any])
    }

    @Test("InfoPlistCheck finds nothing missing for what the app uses")
    func nothingMissing() throws {
        let problems = InfoPlistCheck.problems(in: try Self.info(), for: ExampleApp.capabilities)
        #expect(problems.isEmpty, "\(problems.map(\.message))")
        #expect(InfoPlistCheck.declaredUsageDescriptions(in: try Self.info()) == Set(UsageDescriptionKey.allCases))
        #expect(InfoPlistCheck.allowsBackgroundLocationUpdates(requested: true, info: try Self.info()))
    }

    @Test("the purpose key the Ride tab asks for precise location with is declared")
    func temporaryFullAccuracyPurpose() throws {
        let purposes = try #require(try Self.info()["NSLocationTemporaryUsageDescriptionDictionary"] as? [String: String])
        let text = try #require(purposes[ExampleApp.fullAccuracyPurposeKey])
        #expect(!text.isEmpty)
    }

    @Test("only the background mode the app uses: location (no fetch, processing or pushes to explain to App Review)")
    func onlyNeededBackgroundModes() throws {
        #expect(InfoPlistCheck.backgroundModes(in: try Self.info()) == ["location"])
        #expect(try Self.info()[InfoPlistCheck.permittedTaskIdentifiersKey] == nil)
    }

    @Test("a plain-http `waymark serve` on the local network is reachable, and iOS's local-network prompt explains why")
    func localServer() throws {
        let info = try Self.info()
        let ats = try #require(info["NSAppTransportSecurity"] as? [String: Any])
        #expect(ats["NSAllowsLocalNetworking"] as? Bool == true)
        #expect(ats["NSAllowsArbitraryLoads"] == nil, "only local networking is exempt from ATS")
        #expect((info["NSLocalNetworkUsageDescription"] as? String)?.isEmpty == false)
    }

    @Test("control: the check reports a key taken out of the plist", arguments: [
        "NSLocationWhenInUseUsageDescription", "NSLocationAlwaysAndWhenInUseUsageDescription",
        "NSMotionUsageDescription", "UIBackgroundModes",
    ])
    func removedKeyIsReported(key: String) throws {
        var info = try Self.info()
        info[key] = nil
        #expect(InfoPlistCheck.problems(in: info, for: ExampleApp.capabilities).count == 1)
    }
}

/// The engine reads the (simulated) Info.plist when it starts; the root view lists what is missing.
@Suite("Setup problems on screen")
@MainActor
struct SetupProblemTests {
    @Test("an app built without the location background mode says so at launch, and one with it says nothing")
    func missingBackgroundMode() async throws {
        for declared in [false, true] {
            let scenario = Scenario(durationSeconds: 30, route: ScenarioRoute(start: Scenarios.origin, legs: []),
                                    device: DeviceSetup(install: .fresh, backgroundModes: declared ? [.location] : []),
                                    platform: PlatformSetup(overrides: Scenarios.noCache))
            let phone = try SimulatedPhone(scenario: scenario)
            await phone.launch()
            let problems = phone.app.state.problems
            if declared {
                #expect(problems.isEmpty, "\(problems)")
            } else {
                #expect(problems.count == 1)
                #expect(problems.first?.contains("UIBackgroundModes lacks \"location\"") == true, "\(problems)")
            }
        }
    }
}
