#if canImport(UIKit) && os(iOS)
import Foundation
import WaymarkApple
import WaymarkExampleModels

/// The Ride tab's uploads over background `URLSession`s: one `BackgroundUploadTransport` per
/// server, so batches go on while iOS has the app suspended and their outcomes are picked up
/// after a relaunch (the queue still lets a record go only once the server acknowledged it).
///
/// Each server gets its own session identifier (the transport's default identifier plus a hash of
/// the URL): a background session is bound to one identifier for the life of the process, and
/// the user may switch servers in Settings.
@MainActor
final class BackgroundUploads {
    private var transports: [URL: BackgroundUploadTransport] = [:]

    /// The uploader for `settings`: over the server's background transport, or, if that cannot be
    /// made (its outcome store's folder cannot be created), a foreground upload in a background task.
    func uploader(for settings: ServerSettings) -> any RideUploader {
        do {
            let transport = try transports[settings.baseURL]
                ?? BackgroundUploadTransport(server: settings.baseURL, identifier: Self.identifier(for: settings.baseURL))
            transports[settings.baseURL] = transport
            return TransportRideUploader(transport: transport, settings: settings)
        } catch {
            return BackgroundTaskUploader(URLSessionRideUploader(settings: settings))
        }
    }

    /// Hands iOS's background-session wake-up to the transport it belongs to; false when none does.
    func handleEvents(forBackgroundURLSession identifier: String, completionHandler: @escaping () -> Void) -> Bool {
        for transport in transports.values
        where transport.handleEvents(forBackgroundURLSession: identifier, completionHandler: completionHandler) {
            return true
        }
        return false
    }

    /// A stable session identifier for a server (FNV-1a of its URL).
    static func identifier(for server: URL) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in server.absoluteString.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return BackgroundUploadTransport.defaultIdentifier + "." + String(hash, radix: 16)
    }
}
#endif
