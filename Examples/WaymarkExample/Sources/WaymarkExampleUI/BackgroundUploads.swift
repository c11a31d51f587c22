#if canImport(UIKit) && os(iOS)
import Foundation
import WaymarkApple
import WaymarkSync

/// The app's upload transports: a `HandOffUploadTransport` per server, which sends each batch at
/// once with a foreground `URLSession` while the app runs (a ride in the background included) and
/// hands only a batch it could not finish to that server's background session when the app is about
/// to be suspended (review 2, M6). A background session alone defers tasks created in the
/// background (Apple, `isDiscretionary`).
///
/// iOS relaunches the app for a background session's events with the session's identifier, also
/// for a session of a server the user has since replaced, or of an earlier version of the app: a
/// transport is made for any identifier with the app's prefix, so the events are delivered and the
/// completion handler is called, instead of being acknowledged for a session that does not exist
/// (review 2, L6).
@MainActor
final class BackgroundUploads {
    private var transports: [String: BackgroundUploadTransport] = [:]

    /// The session identifier for `server`: the app's prefix and the server's host and port, so
    /// each server has its own session (a session's endpoint is fixed when it is made).
    static func identifier(for server: URL) -> String {
        let name = "\(server.host ?? "server")-\(server.port ?? 0)".map { $0.isLetter || $0.isNumber ? $0 : "-" }
        return BackgroundUploadTransport.defaultIdentifier + "." + String(name)
    }

    /// The transport for `server`: the foreground session first, that server's background session
    /// for what is left at suspension. `keepsRunning` says whether a ride keeps the process running
    /// in the background (then every send goes out at once).
    func transport(server: URL, keepsRunning: @escaping @MainActor () -> Bool) throws -> any UploadTransport {
        let identifier = Self.identifier(for: server)
        let background = try transports[identifier] ?? BackgroundUploadTransport(server: server, identifier: identifier)
        transports[identifier] = background
        return HandOffUploadTransport(running: try URLSessionUploadTransport(server: server), continuing: background,
                                      route: { @MainActor in BackgroundUploadTransport.applicationRoute(keepsRunning: keepsRunning) })
    }

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
