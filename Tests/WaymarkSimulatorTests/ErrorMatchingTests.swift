import Foundation
import Testing
import WaymarkSimulator

@Suite("SimulatorError code matching")
struct SimulatorErrorMatchingTests {
    @Test("an invalid scenario is caught by its code")
    func catchByCode() {
        var code = "none"
        do { _ = try Scenario.decode(from: Data("{\"version\": 99}".utf8)) }
        catch SimulatorError.Code.invalidScenario { code = "invalidScenario" }
        catch SimulatorError.Code.unsupportedVersion { code = "unsupportedVersion" }
        catch { code = "other: \(error)" }
        #expect(code == "unsupportedVersion", "\(code)")
        #expect(!(SimulatorError.Code.invalidScenario ~= SimulatorError(.unsupportedVersion, "x")))
    }
}

