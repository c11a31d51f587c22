import Foundation
import Testing
import WaymarkEngine
import WaymarkSimulator   // not @testable: the README example must compile against the public API

/// The README's "Testing your location code with the simulator" example, verbatim, so it keeps
/// compiling; a second test fails when the README's code and this copy drift apart.
@Suite("the README's SimulatedDevice example")
struct ReadmeExampleTests {
    // BEGIN README EXAMPLE
    @Test func firstLaunchAllows() throws {
        var sim = try Simulation(scenario: Scenario(user: UserBehaviour(actions: [UserAction(at: 0, .open)])), seed: 1)
        sim.run(until: 0)
        sim.perform(.createLocationManager)          // iOS answers: notDetermined
        sim.perform(.requestWhenInUseAuthorization)  // a prompt; the user allows after 2 s
        sim.run(until: 5)
        #expect(sim.locationAuthorization.status == .authorizedWhenInUse)
    }
    // END README EXAMPLE

    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The lines of `text` between the markers (or the README's Swift block under the heading), trimmed.
    static func codeLines(_ text: some StringProtocol) -> [String] {
        text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    @Test("the README's example is the code of this suite")
    func readmeMatches() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let section = try #require(readme.range(of: "## Testing your location code with the simulator"))
        let rest = readme[section.upperBound...]
        let open = try #require(rest.range(of: "```swift\n"))
        let close = try #require(rest[open.upperBound...].range(of: "```"))
        let readmeLines = Self.codeLines(rest[open.upperBound..<close.lowerBound]).filter { !$0.hasPrefix("import ") }

        let source = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
        let begin = try #require(source.range(of: "// BEGIN README EXAMPLE\n"))
        let end = try #require(source.range(of: "// END README EXAMPLE"))
        #expect(readmeLines == Self.codeLines(source[begin.upperBound..<end.lowerBound]))
        #expect(readmeLines.count >= 6)
    }
}
