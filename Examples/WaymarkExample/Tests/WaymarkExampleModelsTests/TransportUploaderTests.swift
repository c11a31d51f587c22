import Foundation
import Testing
import WaymarkEngine
import WaymarkGeo
import WaymarkTransport
@testable import WaymarkExampleModels

/// The Ride tab's uploads over a `WaymarkTransport` transport (the phone's background session).
@Suite("Uploads over an UploadTransport")
struct TransportUploaderTests {
    actor RecordingTransport: UploadTransport {
        var requests: [UploadRequest] = []
        let answer: UploadResponse
        init(answer: UploadResponse) { self.answer = answer }
        func send(_ request: UploadRequest) async -> UploadResponse {
            requests.append(request)
            return answer
        }
    }

    static let settings = ServerSettings(url: "http://127.0.0.1:8080", token: "wmd_test")!
    static let batch = RideUploadBatch(records: [.fix(UploadTests.fix(0), rideID: "r1"), .fix(UploadTests.fix(1), rideID: "r1")])

    @Test("the request carries the batch's key, its native-format body and the device token")
    func request() async {
        let transport = RecordingTransport(answer: .status(200, body: Array(#"{"accepted":2}"#.utf8)))
        let outcome = await TransportRideUploader(transport: transport, settings: Self.settings).upload(Self.batch)
        #expect(outcome == .accepted(rejected: 0))
        let sent = await transport.requests
        #expect(sent == [UploadRequest(key: Self.batch.idempotencyKey, body: Self.batch.body, token: "wmd_test")])
    }

    @Test("every transport answer maps to the outcome the buffer acts on", arguments: [
        (UploadResponse.status(200, body: Array(#"{"rejected_count":1}"#.utf8)), RideUploadOutcome.accepted(rejected: 1)),
        (.status(413, body: []), .tooLarge),
        (.status(422, body: Array(#"{"error":{"message":"no valid point"}}"#.utf8)), .refused(status: 422, message: "no valid point")),
        (.status(503, body: []), .failed("The server answered 503; will try again")),
        (.timedOut, .failed("The server did not answer in time; will try again")),
        (.connectionFailed("offline"), .failed("Not sent: offline")),
        (.cancelled, .failed("The upload was cancelled; will try again")),
    ])
    func outcomes(response: UploadResponse, expected: RideUploadOutcome) {
        #expect(TransportRideUploader.outcome(response) == expected)
    }
}
