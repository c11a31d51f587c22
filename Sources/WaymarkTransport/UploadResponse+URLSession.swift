import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension UploadResponse {
    /// What a finished `URLSession` task means for the queue.
    ///
    /// - an error wins over a response: a reply cut off mid-body is not an answer, so a 200
    ///   whose connection then broke is never taken for an acknowledgement;
    /// - `URLError.timedOut` is ``timedOut``; `URLError.cancelled` and `CancellationError` are
    ///   ``cancelled`` (a background transfer iOS cancelled because the user force-quit the app
    ///   too: the batch stays pending and is sent again under its key);
    /// - any other error is ``connectionFailed(_:)`` with the error's code and text;
    /// - otherwise the HTTP status and the body received.
    ///
    /// ```swift
    /// let response = UploadResponse(urlResponse: task.response, body: received, error: error)
    /// ```
    public init(urlResponse: URLResponse?, body: Data?, error: (any Error)?) {
        if let error {
            self = Self(transferError: error)
        } else if let http = urlResponse as? HTTPURLResponse {
            self = .status(http.statusCode, body: Array(body ?? Data()))
        } else {
            self = .connectionFailed("the transfer ended without an HTTP response")
        }
    }

    /// The response for a transfer that failed with `error` (see ``init(urlResponse:body:error:)``).
    public init(transferError error: any Error) {
        if error is CancellationError {
            self = .cancelled
        } else if let error = error as? URLError {
            switch error.code {
            case .timedOut: self = .timedOut
            case .cancelled: self = .cancelled
            default: self = .connectionFailed("URLError \(error.code.rawValue): \(error.localizedDescription)")
            }
        } else {
            let ns = error as NSError
            if ns.domain == NSURLErrorDomain, ns.code == URLError.timedOut.rawValue {
                self = .timedOut
            } else if ns.domain == NSURLErrorDomain, ns.code == URLError.cancelled.rawValue {
                self = .cancelled
            } else {
                self = .connectionFailed("\(ns.domain) \(ns.code): \(ns.localizedDescription)")
            }
        }
    }
}
