import Foundation
import WaymarkEngine
import WaymarkGeo

extension Simulation {
    // Interim: visit monitoring is being modelled (issue #14); until then the command is logged only.
    mutating func startVisits() { note("visit monitoring requested: not modelled yet") }
    mutating func stopVisits() {}
}
