import Foundation

/// Where webhooks may go: internal addresses are refused unless ``WebhookPolicy/allowedDestinations``
/// lets them through.
///
/// Refused by default: loopback (`127.0.0.0/8`, `::1`), private (RFC 1918, `fc00::/7`, `fec0::/10`),
/// link-local (`169.254.0.0/16`, `fe80::/10`), carrier-grade NAT (`100.64.0.0/10`), unspecified
/// (`0.0.0.0/8`, `::`), multicast, broadcast, `240.0.0.0/4`, IPv4-compatible IPv6 and cloud metadata
/// addresses (`169.254.169.254`, `fd00:ec2::254`, …), also in their IPv4-mapped IPv6 form, and
/// metadata host names (`metadata.google.internal`, …).
/// The check runs on the resolved addresses of every delivery, and the connection is pinned to the
/// address that was checked, so a name that changes its address between check and connect cannot slip
/// through. At creation only literal addresses are checked (a name is resolved when delivering).
extension WebhookPolicy {
    /// The longest webhook URL accepted, in UTF-8 bytes.
    public static let maxURLBytes = 2048

    /// Why `host`, which resolved to `addresses`, may not receive deliveries, as
    /// "destination refused: 127.0.0.1 is a loopback address (allow it with --webhook-allow)" or
    /// "destination refused: localhost is 127.0.0.1, a loopback address (…)"; nil when every address is
    /// public or allowed, or the host name itself is allowed.
    func refusal(host: String, addresses: [IPAddress]) -> String? {
        guard !allowedDestinations.contains(where: { $0.allows(host: host) }) else { return nil }
        if Self.metadataHostNames.contains(AllowedDestination.normalized(host: host)) {
            return "destination refused: \(host) is a cloud metadata host name (allow it with --webhook-allow)"
        }
        for address in addresses {
            guard let kind = address.restriction, !allowedDestinations.contains(where: { $0.allows(address) }) else { continue }
            let what = host == address.description ? "\(address) is \(kind)" : "\(host) is \(address), \(kind)"
            return "destination refused: \(what) (allow it with --webhook-allow)"
        }
        return nil
    }

    /// Checks a webhook URL given to `POST /api/webhooks`: at most ``maxURLBytes`` bytes, absolute
    /// http(s) with a host, a port in 1…65535, no user name or password, and neither a literal internal address
    /// nor a metadata host name (unless allowed). Other host names are accepted here and checked when delivering.
    /// - throws: ``ServerError`` ``ServerError/Code/badRequest`` saying what is wrong.
    func checkedWebhookURL(_ text: String) throws -> URL {
        guard text.utf8.count <= Self.maxURLBytes else {
            throw ServerError(.badRequest, "the webhook url has \(text.utf8.count) bytes; at most \(Self.maxURLBytes) are accepted")
        }
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = Self.connectionHost(of: url) else {
            throw ServerError(.badRequest, "the webhook url must be an absolute http or https URL, got '\(text)'")
        }
        if let port = url.port, !(1...65535).contains(port) {
            throw ServerError(.badRequest, "the webhook url's port must be in 1…65535, got \(port)")
        }
        guard url.user == nil, url.password == nil else {
            throw ServerError(.badRequest, "the webhook url must not contain a user name or password; "
                + "receivers authenticate deliveries by their X-Waymark-Signature")
        }
        if let refusal = refusal(host: host, addresses: HostResolver.numericAddress(host).map { [$0] } ?? []) {
            throw ServerError(.badRequest, "webhook \(refusal)")
        }
        return url
    }

    /// Names of cloud metadata services, refused before they are even resolved.
    static let metadataHostNames: Set<String> = [
        "metadata.google.internal", "metadata.goog", "metadata", "instance-data", "instance-data.ec2.internal",
    ]

    /// The host a connection to `url` goes to, as AsyncHTTPClient reads it (IPv6 without brackets); nil when empty.
    static func connectionHost(of url: URL) -> String? {
        guard var host = url.host, !host.isEmpty else { return nil }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return host
    }
}
