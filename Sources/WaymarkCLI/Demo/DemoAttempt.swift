import Foundation
import WaymarkSync
import WaymarkTransport
import WaymarkSimulatedPhone

/// One finished upload attempt of the demo's phone, for the timeline and the summary.
struct DemoAttempt: Hashable, Sendable {
    var time: Date
    var points: Int
    /// HTTP status, or nil when no answer came (offline, timeout, broken connection).
    var status: Int?
    var detail: String

    /// The attempt a send of the phone's upload queue was.
    init(_ send: VirtualTimeUploader.Send) {
        time = send.at
        points = send.points
        let response = send.response
        switch response {
        case .status(let code, _):
            status = code
            detail = response.isAcknowledgement ? "acknowledged" : (response.serverMessage ?? "refused")
        case .timedOut: detail = "timed out"
        case .connectionFailed(let reason): detail = reason
        case .cancelled: detail = "cancelled"
        }
    }
}
