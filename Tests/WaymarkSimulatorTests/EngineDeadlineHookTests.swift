import Foundation
import Testing
import WaymarkEngine
@testable import WaymarkSimulator

/// An app with one timer: it asks for motion permission at launch and, at `deadline`, starts
/// motion updates. It records when its timer fired.
private struct TimerApp: SimulatedApp {
    var deadline: Date?
    var fired: [Date] = []
    var clearsDeadline = true

    mutating func handle(_ event: DeviceEvent, at time: Date) -> [DeviceCommand] { [] }

    var nextDeadline: Date? { deadline }

    mutating func handleDeadline(at time: Date) -> [DeviceCommand] {
        fired.append(time)
        if clearsDeadline { deadline = nil }
        return [.startMotionActivityUpdates]
    }
}

@Suite("Simulation: the app's timer hook")
struct EngineDeadlineHookTests {
    static func scenario(actions: [UserAction] = []) -> Scenario {
        Fixture.opened(actions: actions, duration: 600)
    }

    @Test("the timer fires at its deadline, between scheduled actions, and its commands are performed")
    func firesAtDeadline() throws {
        let start = Scenario.defaultStartTime
        var sim = try Simulation(scenario: Self.scenario(), app: TimerApp(deadline: start + 12.5))
        sim.run(until: 12.4)
        #expect((sim.app as? TimerApp)?.fired == [])
        sim.run(until: 20)
        #expect((sim.app as? TimerApp)?.fired == [start + 12.5])
        #expect(sim.commandTimes { $0 == .startMotionActivityUpdates } == [12.5])
    }

    @Test("a timer that comes due while the app is suspended fires when the app runs again, not before")
    func suspended() throws {
        let start = Scenario.defaultStartTime
        let scenario = Self.scenario(actions: [UserAction(at: 10, .background), UserAction(at: 100, .open)])
        var sim = try Simulation(scenario: scenario, app: TimerApp(deadline: start + 50))
        sim.run(until: 60)
        #expect(sim.appState == .suspended)
        #expect((sim.app as? TimerApp)?.fired == [])
        sim.run(until: 120)
        #expect((sim.app as? TimerApp)?.fired == [start + 100])
    }

    @Test("apps without a timer are unaffected, and a deadline the app does not move fires once")
    func noLoop() throws {
        let start = Scenario.defaultStartTime
        var sim = try Simulation(scenario: Self.scenario(), app: TimerApp(deadline: start + 5, clearsDeadline: false))
        sim.run(until: 300)
        #expect((sim.app as? TimerApp)?.fired == [start + 5])
        var basic = try Simulation(scenario: Self.scenario(), app: BasicApp())
        basic.run(until: 300)
        #expect(!basic.log.systemNotes.contains("app timer fired"))
    }
}
