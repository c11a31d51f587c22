import Foundation
import WaymarkTransport

/// A ``RideUploader`` over any `UploadTransport` (`WaymarkTransport`): on the phone the app's
/// background `URLSession` transport (`BackgroundUploadTransport`), so a batch goes on while iOS
/// has the app suspended and its outcome is picked up after a relaunch.
///
/// The transport answers with an `UploadResponse`; this reads it the way
/// ``URLSessionRideUploader/outcome(status:body:)`` reads a foreground answer. A timeout, a
/// refused connection or a cancelled transfer is `failed`: the batch stays in the buffer and goes
/// again with the same idempotency key, so the server stores it once.
///
/// ```swift
/// let uploader = TransportRideUploader(transport: backgroundTransport, settings: settings)
/// ```
public struct TransportRideUploader: RideUploader {
    /// The transport that sends the requests.
    public let transport: any UploadTransport
    /// The server and the device token.
    public let settings: ServerSettings

    /// Sends through `transport` with `settings`' token.
    public init(transport: any UploadTransport, settings: ServerSettings) {
        self.transport = transport
        self.settings = settings
    }

    /// The request for `batch`: its idempotency key, body and the device token.
    public func request(for batch: RideUploadBatch) -> UploadRequest {
        UploadRequest(key: batch.idempotencyKey, body: batch.body, token: settings.deviceToken)
    }

    /// Sends `batch` once and maps the transport's answer to an outcome.
    public func upload(_ batch: RideUploadBatch) async -> RideUploadOutcome {
        Self.outcome(await transport.send(request(for: batch)))
    }

    /// The outcome of a transport's answer.
    public static func outcome(_ response: UploadResponse) -> RideUploadOutcome {
        switch response {
        case .status(let code, let body): URLSessionRideUploader.outcome(status: code, body: Data(body))
        case .timedOut: .failed("The server did not answer in time; will try again")
        case .connectionFailed(let reason): .failed("Not sent: \(reason)")
        case .cancelled: .failed("The upload was cancelled; will try again")
        }
    }
}
