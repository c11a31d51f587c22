#if canImport(UIKit) && os(iOS)
import Foundation
import WaymarkApple

/// Background `URLSession`s left from earlier versions of the app, which uploaded through one
/// `BackgroundUploadTransport` per server.
///
/// The app now uploads with a foreground `URLSession` inside a background task (WaymarkSync's
/// `UploadDriver` asks the device for one while it sends), which sends at once while the app runs;
/// a background session defers tasks created in the background (Apple, `isDiscretionary`). A
/// transfer an earlier version left in such a session still finishes, and iOS relaunches the app
/// for its events with the session's identifier: this makes a transport for any identifier with
/// the app's prefix, so the events are delivered and the completion handler is called, instead of
/// being acknowledged for a session that does not exist (review 2, L6).
@MainActor
final class BackgroundUploads {
    private var transports: [String: BackgroundUploadTransport] = [:]

    /// Delivers the events of session `identifier`; false for an identifier that is not this app's.
    func handleEvents(forBackgroundURLSession identifier: String, server: URL?,
                      completionHandler: @escaping () -> Void) -> Bool {
        guard identifier.hasPrefix(BackgroundUploadTransport.defaultIdentifier) else { return false }
        do {
            let transport = try transports[identifier]
                ?? BackgroundUploadTransport(server: server ?? URL(string: "http://localhost")!, identifier: identifier)
            transports[identifier] = transport
            return transport.handleEvents(forBackgroundURLSession: identifier, completionHandler: completionHandler)
        } catch {
            return false
        }
    }
}
#endif
