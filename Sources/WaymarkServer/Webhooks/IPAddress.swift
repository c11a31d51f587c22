#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An IPv4 or IPv6 address as the webhook destination check sees it: its bytes in network order.
///
/// IPv4-mapped IPv6 addresses (`::ffff:127.0.0.1`) are stored as the IPv4 address they stand for,
/// so the classifier and the allow-list treat both forms alike. A `Sendable` value type.
struct IPAddress: Hashable, Sendable, CustomStringConvertible {
    /// 4 bytes (IPv4) or 16 bytes (IPv6), network order.
    let bytes: [UInt8]

    /// The address of `bytes` (4 or 16 of them); an IPv4-mapped IPv6 address becomes IPv4.
    init(bytes: [UInt8]) {
        precondition(bytes.count == 4 || bytes.count == 16, "an IP address has 4 or 16 bytes")
        if bytes.count == 16, bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xff, bytes[11] == 0xff {
            self.bytes = Array(bytes[12...])
        } else {
            self.bytes = bytes
        }
    }

    /// Reads a strict literal: dotted-quad IPv4 (`inet_pton`, so no `0x7f000001` or `127.1`) or IPv6
    /// without brackets or zone. Nil for anything else, host names included.
    init?(_ text: String) {
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            self.init(bytes: withUnsafeBytes(of: &v4) { Array($0) })
        } else if inet_pton(AF_INET6, text, &v6) == 1 {
            self.init(bytes: withUnsafeBytes(of: &v6) { Array($0) })
        } else {
            return nil
        }
    }

    /// True for IPv4.
    var isV4: Bool { bytes.count == 4 }

    /// `127.0.0.1` or the canonical IPv6 text (`::1`, `fd00:ec2::254`).
    var description: String {
        if isV4 { return bytes.map(String.init).joined(separator: ".") }
        var storage = in6_addr()
        withUnsafeMutableBytes(of: &storage) { $0.copyBytes(from: bytes) }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        guard inet_ntop(AF_INET6, &storage, &text, socklen_t(text.count)) != nil else { return "?" }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Why a webhook may not be delivered here by default, as "a loopback address"; nil for a public address.
    ///
    /// An IPv6 address that carries an IPv4 address for a translator or tunnel (NAT64, 6to4, Teredo, SIIT)
    /// is judged by the IPv4 address it reaches as well: `64:ff9b::a9fe:a9fe` is refused as "64:ff9b::/96
    /// (NAT64) embedding 169.254.169.254, a cloud metadata address".
    var restriction: String? {
        if let kind = IPNetwork.restricted.first(where: { $0.network.contains(self) })?.kind { return kind }
        for (prefix, embedded) in embeddedIPv4 {
            if let kind = embedded.restriction { return "\(prefix) embedding \(embedded), \(kind)" }
        }
        return nil
    }

    /// The IPv4 addresses an IPv6 address of a translation or tunnelling prefix stands for, with the prefix's
    /// name; empty for other addresses.
    /// - `64:ff9b::/96` (NAT64, RFC 6052) and `::ffff:0:a.b.c.d` (SIIT, RFC 7915): the last 32 bits;
    /// - `64:ff9b:1::/48` (local-use NAT64, RFC 8215): the last 32 bits when bits 48–95 are zero (the /96
    ///   layout), else bits 48–63 and 72–87 (the /48 layout);
    /// - `2002::/16` (6to4): bits 16–47;
    /// - `2001::/32` (Teredo): the server (bits 32–63) and the client (the last 32 bits, inverted).
    var embeddedIPv4: [(prefix: String, address: IPAddress)] {
        guard bytes.count == 16 else { return [] }
        let b = bytes
        func v4(_ values: [UInt8]) -> IPAddress { IPAddress(bytes: values) }
        if b[0...11] == [0x00, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0] {
            return [("64:ff9b::/96 (NAT64)", v4(Array(b[12...])))]
        }
        if b[0...5] == [0x00, 0x64, 0xff, 0x9b, 0x00, 0x01] {
            // Bits 48–95 all zero: the /96 layout; otherwise the /48 one (bits 64–71 are the reserved "u" octet).
            let layout96 = b[6...11].allSatisfy { $0 == 0 }
            return [("64:ff9b:1::/48 (local-use NAT64)", layout96 ? v4(Array(b[12...])) : v4([b[6], b[7], b[9], b[10]]))]
        }
        if b[0...1] == [0x20, 0x02] { return [("2002::/16 (6to4)", v4(Array(b[2...5])))] }
        if b[0...3] == [0x20, 0x01, 0x00, 0x00] {
            return [("2001::/32 (Teredo)", v4(Array(b[4...7]))), ("2001::/32 (Teredo)", v4(b[12...].map { ~$0 }))]
        }
        if b[0...7].allSatisfy({ $0 == 0 }), b[8] == 0xff, b[9] == 0xff, b[10] == 0, b[11] == 0 {
            return [("::ffff:0:0:0/96 (SIIT)", v4(Array(b[12...])))]
        }
        return []
    }
}

/// An address range in CIDR form, such as `10.0.0.0/8` or `fc00::/7`. A `Sendable` value type.
struct IPNetwork: Hashable, Sendable, CustomStringConvertible {
    /// The first address (bits past the prefix are zero).
    let address: IPAddress
    /// Leading bits that must match: 0…32 for IPv4, 0…128 for IPv6.
    let prefixLength: Int

    /// The range of `prefixLength` leading bits of `address`; an IPv4-mapped IPv6 range (`::ffff:10.0.0.0/104`)
    /// becomes the IPv4 range it stands for.
    init(_ address: IPAddress, prefixLength: Int) {
        let bits = address.bytes.count * 8
        var length = prefixLength
        if address.isV4 && prefixLength > 32 { length = max(prefixLength - 96, 0) }  // written as ::ffff:a.b.c.d/n
        precondition((0...bits).contains(length), "a prefix length is within the address's bits")
        self.address = IPAddress(bytes: address.bytes.enumerated().map { index, byte in
            let kept = min(max(length - index * 8, 0), 8)
            return kept == 8 ? byte : byte & ~(UInt8.max >> kept)
        })
        self.prefixLength = length
    }

    /// Reads `"10.0.0.0/8"`, `"fd00::/8"` or a single address (`/32` or `/128`); nil when it is none of these.
    init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let address = IPAddress(String(parts[0])) else { return nil }
        // A mapped IPv6 literal is stored as IPv4 but its prefix is counted over 128 bits.
        let written = String(parts[0]).contains(":") ? 128 : 32
        guard parts.count == 2 else {
            self.init(address, prefixLength: address.bytes.count * 8)
            return
        }
        guard parts[1].allSatisfy({ $0.isASCII && $0.isNumber }), let length = Int(parts[1]), (0...written).contains(length),
              written == 32 || address.bytes.count == 16 || length >= 96 else { return nil }
        self.init(address, prefixLength: length)
    }

    /// True when `candidate` is inside this range (IPv4 never matches an IPv6 range, or the other way round).
    func contains(_ candidate: IPAddress) -> Bool {
        guard candidate.bytes.count == address.bytes.count else { return false }
        return IPNetwork(candidate, prefixLength: prefixLength).address == address
    }

    var description: String { "\(address)/\(prefixLength)" }

    /// Ranges refused by default, each with what it is; the first match names an address.
    static let restricted: [(network: IPNetwork, kind: String)] = [
        ("0.0.0.0/8", "an unspecified address"),
        ("10.0.0.0/8", "a private (RFC 1918) address"),
        ("100.100.100.200/32", "a cloud metadata address"),           // Alibaba Cloud
        ("100.64.0.0/10", "a carrier-grade NAT (100.64.0.0/10) address"),
        ("127.0.0.0/8", "a loopback address"),
        ("168.63.129.16/32", "a cloud metadata address"),             // Azure
        ("169.254.169.254/32", "a cloud metadata address"),           // AWS, GCP, Azure, OpenStack, …
        ("169.254.170.2/32", "a cloud metadata address"),             // AWS ECS task metadata
        ("169.254.0.0/16", "a link-local address"),
        ("172.16.0.0/12", "a private (RFC 1918) address"),
        ("192.168.0.0/16", "a private (RFC 1918) address"),
        ("224.0.0.0/4", "a multicast address"),
        ("255.255.255.255/32", "a broadcast address"),
        ("240.0.0.0/4", "a reserved (240.0.0.0/4) address"),
        ("::/128", "an unspecified address"),
        ("::1/128", "a loopback address"),
        ("::/96", "an IPv4-compatible IPv6 address"),
        ("fd00:ec2::254/128", "a cloud metadata address"),            // AWS over IPv6
        ("fc00::/7", "a unique local (fc00::/7) address"),
        ("fe80::/10", "a link-local address"),
        ("fec0::/10", "a site-local (fec0::/10) address"),
        ("ff00::/8", "a multicast address"),
    ].map { (IPNetwork($0.0)!, $0.1) }
}
