import Foundation

/// An exception to the webhook destination check: an address range or a host name that webhooks may
/// reach although it is internal (loopback, private, link-local, metadata, …).
///
/// Written as a CIDR range (`10.20.0.0/16`, `fd00::/8`), one address (`127.0.0.1`, read as `/32` or
/// `/128`) or a host name (`hooks.internal`: every address it resolves to is allowed). An IPv4 entry
/// also covers the IPv4-mapped IPv6 form of its addresses. A `Sendable` value type.
///
/// ```swift
/// var policy = WebhookPolicy()
/// policy.allowedDestinations = try AllowedDestination.list("127.0.0.1/32, hooks.internal")
/// ```
public struct AllowedDestination: Hashable, Sendable, CustomStringConvertible {
    enum Kind: Hashable, Sendable {
        case network(IPNetwork)
        /// Lower case, without a trailing dot.
        case host(String)
    }

    let kind: Kind

    /// Reads one entry: a CIDR range, an address or a host name.
    /// - throws: ``ServerError`` ``ServerError/Code/configuration`` when `text` is none of these.
    public init(_ text: String) throws {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let unbracketed = trimmed.hasPrefix("[") ? trimmed.replacingOccurrences(of: "[", with: "")
            .replacingOccurrences(of: "]", with: "") : trimmed
        if let network = IPNetwork(unbracketed) {
            kind = .network(network)
            return
        }
        let host = Self.normalized(host: trimmed)
        let labels = host.split(separator: ".", omittingEmptySubsequences: false)
        guard !unbracketed.contains("/"), !host.isEmpty, host.utf8.count <= 253,
              labels.allSatisfy({ !$0.isEmpty && $0.utf8.count <= 63 }),
              host.unicodeScalars.allSatisfy({ $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "-_.".unicodeScalars.contains($0)) })
        else {
            throw ServerError(.configuration, "'\(text)' is not an allowed webhook destination: expected a CIDR range "
                + "(10.0.0.0/8, fd00::/8), an IP address or a host name")
        }
        kind = .host(host)
    }

    /// Reads a comma-separated list (`"127.0.0.1/32, hooks.internal"`); empty entries are skipped.
    /// - throws: ``ServerError`` ``ServerError/Code/configuration`` naming the first entry that does not read.
    public static func list(_ text: String) throws -> [AllowedDestination] {
        try text.split(separator: ",").map(String.init)
            .filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
            .map(AllowedDestination.init)
    }

    /// The entry as `10.0.0.0/8` or `hooks.internal`.
    public var description: String {
        switch kind {
        case .network(let network): network.description
        case .host(let host): host
        }
    }

    /// True when this entry lets `address` through.
    func allows(_ address: IPAddress) -> Bool {
        if case .network(let network) = kind { return network.contains(address) }
        return false
    }

    /// True when this entry names `host` (compared without case and trailing dot).
    func allows(host: String) -> Bool {
        if case .host(let name) = kind { return name == Self.normalized(host: host) }
        return false
    }

    static func normalized(host: String) -> String {
        let lower = host.lowercased()
        return lower.hasSuffix(".") ? String(lower.dropLast()) : lower
    }
}
