import Crypto
import Foundation

/// The files the dashboard loads besides its page: the vendored map library (Leaflet's script and
/// stylesheet) and that library's licence, compiled into the server (`Package.swift` embeds them), so a
/// server on a network without internet serves them itself.
///
/// Each lives under ``pathPrefix``, a path that names the library's version: a file's bytes never change
/// under its path, so browsers may keep it for a year (`immutable`). The page loads them with
/// Subresource Integrity (``integrity(of:)``). Immutable static data: safe from any thread.
enum DashboardAssets {
    /// The vendored Leaflet release; the first line of ``leaflet.js`` names it (checked by the tests).
    static let leafletVersion = "1.9.4"

    /// Where the files are served: `/dashboard/leaflet-1.9.4/`.
    static let pathPrefix = "/dashboard/leaflet-\(leafletVersion)/"

    /// One served file: its bytes and its media type.
    struct Asset: Sendable {
        var bytes: [UInt8]
        var contentType: String
    }

    /// The files by name (what follows ``pathPrefix``).
    static let files: [String: Asset] = [
        "leaflet.js": Asset(bytes: PackageResources.leaflet_js, contentType: "text/javascript; charset=utf-8"),
        "leaflet.css": Asset(bytes: PackageResources.leaflet_css, contentType: "text/css; charset=utf-8"),
        "LICENSE.txt": Asset(bytes: PackageResources.LICENSE, contentType: "text/plain; charset=utf-8"),
    ]

    /// The Subresource Integrity value of the named file, `sha384-` and the base64 of its SHA-384, for the
    /// page's `integrity` attributes: a browser runs or applies the file only if its bytes hash to this.
    static func integrity(of name: String) -> String {
        guard let asset = files[name] else { preconditionFailure("no dashboard asset named \(name)") }
        return "sha384-" + Data(SHA384.hash(data: asset.bytes)).base64EncodedString()
    }
}
