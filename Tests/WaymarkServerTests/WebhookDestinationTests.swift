import Foundation
import Hummingbird
import HummingbirdTesting
import NIOConcurrencyHelpers
import Testing
@testable import WaymarkServer

/// Where webhooks may go: internal addresses refused at creation and at delivery, the allow-list,
/// no redirects, URL limits, and stored errors that do not echo the remote.
@Suite("Webhook destinations")
struct WebhookDestinationTests {
    static let refusedLiterals: [(url: String, reason: String)] = [
        ("http://127.0.0.1:9/hook", "127.0.0.1 is a loopback address"),
        ("http://[::1]:1/", "::1 is a loopback address"),
        ("http://169.254.169.254/latest/meta-data/iam/", "169.254.169.254 is a cloud metadata address"),
        ("http://[fd00:ec2::254]/latest/", "fd00:ec2::254 is a cloud metadata address"),
        ("http://metadata.google.internal/computeMetadata/v1/", "metadata.google.internal is a cloud metadata host name"),
        ("http://Metadata.Google.Internal./", "Metadata.Google.Internal. is a cloud metadata host name"),
        ("https://10.1.2.3/", "10.1.2.3 is a private (RFC 1918) address"),
        ("http://172.16.0.1/", "172.16.0.1 is a private (RFC 1918) address"),
        ("http://192.168.1.1/", "192.168.1.1 is a private (RFC 1918) address"),
        ("http://100.64.0.1/", "100.64.0.1 is a carrier-grade NAT (100.64.0.0/10) address"),
        ("http://169.254.1.1/", "169.254.1.1 is a link-local address"),
        ("http://[fe80::1]/", "fe80::1 is a link-local address"),
        ("http://[fc00::1]/", "fc00::1 is a unique local (fc00::/7) address"),
        ("http://0.0.0.0/", "0.0.0.0 is an unspecified address"),
        ("http://[::]/", ":: is an unspecified address"),
        ("http://224.0.0.1/", "224.0.0.1 is a multicast address"),
        ("http://255.255.255.255/", "255.255.255.255 is a broadcast address"),
        ("http://[::ffff:127.0.0.1]/", "::ffff:127.0.0.1 is 127.0.0.1, a loopback address"),
        ("http://[::ffff:a9fe:a9fe]/", "::ffff:a9fe:a9fe is 169.254.169.254, a cloud metadata address"),
        // Forms inet_aton reads: hexadecimal, one decimal number, octal, short dotted, zero.
        ("http://0x7f000001/", "0x7f000001 is 127.0.0.1, a loopback address"),
        ("http://2130706433/", "2130706433 is 127.0.0.1, a loopback address"),
        ("http://017700000001/", "017700000001 is 127.0.0.1, a loopback address"),
        ("http://127.1:8080/", "127.1 is 127.0.0.1, a loopback address"),
        ("http://0/", "0 is 0.0.0.0, an unspecified address"),
    ]

    static func create(_ server: TestServer, _ url: String) async throws -> TestResponse {
        try await server.send(.post, "/api/webhooks", token: TestServer.adminToken, body: #"{"url":"\#(url)","secret":"s"}"#)
    }

    static func message(_ reply: TestResponse) throws -> String {
        try #require((try reply.json()["error"] as? [String: Any])?["message"] as? String)
    }

    /// Stores a subscription to `url` as given (as one made before these checks would be) and causes
    /// one fence event, so one delivery to it is pending.
    static func pendingDelivery(_ server: TestServer, to url: String) async throws {
        let hook = Webhook(id: "w_test", url: try #require(URL(string: url)), secret: WebhookTests.secret, createdAt: TestServer.now)
        try await server.store.insertWebhook(hook)
        _ = try await server.send(.post, "/api/fences", token: TestServer.adminToken, body: WebhookTests.fence)
        _ = try await server.send(.post, "/api/ingest", token: server.deviceToken, body: WebhookTests.enterBatch(minute: 0))
        #expect(try await server.store.outboxDepth().pending == 1)
    }

    /// The error of the one pending delivery.
    static func pendingError(_ server: TestServer) async throws -> String? {
        let pending = try await server.store.deliveries(state: .pending, limit: 10)
        #expect(pending.count == 1)
        return try #require(pending.first).lastError
    }

    @Test("internal literal addresses, odd forms included, are refused at creation with the reason", arguments: StoreKind.available)
    func refusedAtCreation(kind: StoreKind) async throws {
        try await TestServer.run(kind, webhooks: WebhookPolicy()) { server in
            for (url, reason) in Self.refusedLiterals {
                let reply = try await Self.create(server, url)
                #expect(reply.status == .badRequest, "\(url)")
                #expect(try Self.message(reply) == "webhook destination refused: \(reason) (allow it with --webhook-allow)")
            }
            #expect(try await server.store.listWebhooks().isEmpty)
            #expect(try await Self.create(server, "https://93.184.216.34/hook").status == .created)
            #expect(try await Self.create(server, "https://hooks.example.com/hook").status == .created)
        }
    }

    @Test("M4: the probe's translated destinations are refused at creation with 400 naming the embedded address",
          arguments: StoreKind.available)
    func translatedRefusedAtCreation(kind: StoreKind) async throws {
        // Before: 201 for each of them.
        try await TestServer.run(kind, webhooks: WebhookPolicy()) { server in
            for (url, embedded) in [("http://[64:ff9b::a9fe:a9fe]/latest/meta-data/", "169.254.169.254"),
                                    ("http://[64:ff9b:1::a00:1]/", "10.0.0.1"), ("http://[2002:a9fe:a9fe::1]/", "169.254.169.254"),
                                    ("http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/", "127.0.0.1"),
                                    ("http://[::ffff:0:7f00:1]/", "127.0.0.1")] {
                let reply = try await Self.create(server, url)
                #expect(reply.status == .badRequest, "\(url): \(reply.status)")
                #expect(try Self.message(reply).contains("embedding \(embedded)"), "\(url)")
            }
        }
    }

    @Test("a name that resolves to 127.0.0.1 is accepted at creation and refused at delivery, with no request sent",
          arguments: StoreKind.available)
    func nameRefusedAtDelivery(kind: StoreKind) async throws {
        try await WebhookReceiver.run { receiver, url in
            try await TestServer.run(kind, webhooks: WebhookPolicy()) { server in
                let hook = "http://localhost:\(try #require(url.port))/hook"
                #expect(try await Self.create(server, hook).status == .created)
                _ = try await server.send(.post, "/api/fences", token: TestServer.adminToken, body: WebhookTests.fence)
                _ = try await server.send(.post, "/api/ingest", token: server.deviceToken, body: WebhookTests.enterBatch(minute: 0))
                #expect(try await WebhookDeliverer(store: server.store).deliverDue(at: TestServer.now) == 1)
                #expect(try await Self.pendingError(server)
                        == "destination refused: localhost is 127.0.0.1, a loopback address (allow it with --webhook-allow)")
                #expect(await receiver.received.isEmpty)
                // Allowing the name lets the retry through.
                var policy = WebhookPolicy()
                policy.allowedDestinations = try AllowedDestination.list("localhost")
                #expect(try await WebhookDeliverer(store: server.store, policy: policy).deliverDue(at: TestServer.now.addingTimeInterval(3600)) == 1)
                #expect(await receiver.received.count == 1)
                #expect(try await server.store.deliveries(state: .delivered, limit: 10).count == 1)
            }
        }
    }

    @Test("a stored hexadecimal literal is refused at delivery, and reaches the receiver once allowed", arguments: StoreKind.available)
    func oddLiteralAtDelivery(kind: StoreKind) async throws {
        try await WebhookReceiver.run { receiver, url in
            try await TestServer.run(kind) { server in
                try await Self.pendingDelivery(server, to: "http://0x7f000001:\(try #require(url.port))/hook")
                try await WebhookDeliverer(store: server.store).deliverDue(at: TestServer.now)
                #expect(try await Self.pendingError(server)
                        == "destination refused: 0x7f000001 is 127.0.0.1, a loopback address (allow it with --webhook-allow)")
                #expect(await receiver.received.isEmpty)
                try await WebhookDeliverer(store: server.store, policy: .localReceivers).deliverDue(at: TestServer.now.addingTimeInterval(3600))
                #expect(await receiver.received.count == 1)
                #expect(try await server.store.deliveries(state: .delivered, limit: 10).count == 1)
            }
        }
    }

    @Test("the allow-list lets 127.0.0.1 through at creation and delivery", arguments: StoreKind.available)
    func allowList(kind: StoreKind) async throws {
        try await WebhookReceiver.run { receiver, url in
            try await TestServer.run(kind, webhooks: WebhookPolicy()) { server in
                let refused = try await Self.create(server, url.absoluteString)
                #expect(refused.status == .badRequest)
            }
            try await TestServer.run(kind, webhooks: .localReceivers) { server in
                #expect(try await Self.create(server, url.absoluteString).status == .created)
                _ = try await server.send(.post, "/api/fences", token: TestServer.adminToken, body: WebhookTests.fence)
                _ = try await server.send(.post, "/api/ingest", token: server.deviceToken, body: WebhookTests.enterBatch(minute: 0))
                #expect(try await WebhookDeliverer(store: server.store, policy: .localReceivers).deliverDue(at: TestServer.now) == 1)
                #expect(await receiver.received.count == 1)
                #expect(try await server.store.deliveries(state: .delivered, limit: 10).count == 1)
            }
        }
    }

    @Test("a 302 is a failed attempt and is not followed", arguments: StoreKind.available)
    func redirectNotFollowed(kind: StoreKind) async throws {
        try await WebhookReceiver.run { target, targetURL in
            try await WebhookReceiver.run(redirect: targetURL.absoluteString) { redirector, url in
                try await TestServer.run(kind) { server in
                    try await Self.pendingDelivery(server, to: url.absoluteString)
                    try await WebhookDeliverer(store: server.store, policy: .localReceivers).deliverDue(at: TestServer.now)
                    #expect(await redirector.received.count == 1)
                    #expect(await target.received.isEmpty, "the redirect target gets nothing")
                    #expect(try await Self.pendingError(server) == "HTTP 302 (redirects are not followed)")
                    #expect(try await server.store.deliveries(state: .delivered, limit: 10).isEmpty)
                }
            }
        }
    }

    @Test("a closed port is stored as 'connection failed', without the system's error text", arguments: StoreKind.available)
    func closedPort(kind: StoreKind) async throws {
        let closed = try await WebhookReceiver.run { _, url in url }  // listened, now closed
        try await TestServer.run(kind) { server in
            try await Self.pendingDelivery(server, to: closed.absoluteString)
            try await WebhookDeliverer(store: server.store, policy: .localReceivers).deliverDue(at: TestServer.now)
            let error = try #require(try await Self.pendingError(server))
            #expect(error == "connection failed")
            #expect(!error.contains("errno") && !error.contains("refused") && !error.contains("Connection"))
        }
    }

    @Test("https to a plain-HTTP receiver is stored as 'TLS handshake failed'", arguments: [StoreKind.sqlite])
    func tlsFailure(kind: StoreKind) async throws {
        try await WebhookReceiver.run { receiver, url in
            try await TestServer.run(kind) { server in
                try await Self.pendingDelivery(server, to: "https://127.0.0.1:\(try #require(url.port))/hook")
                try await WebhookDeliverer(store: server.store, policy: .localReceivers).deliverDue(at: TestServer.now)
                #expect(try await Self.pendingError(server) == "TLS handshake failed")
                #expect(await receiver.received.isEmpty)
            }
        }
    }

    @Test("a name is connected at the address that was checked, and checked again at every delivery",
          arguments: StoreKind.available)
    func pinnedToCheckedAddress(kind: StoreKind) async throws {
        // `rebind.test` does not resolve in DNS: the request can only arrive if it goes to the checked address.
        let answers = NIOLockedValueBox<[HostResolver.Outcome]>([
            .addresses([IPAddress("127.0.0.1")!]), .addresses([IPAddress("169.254.169.254")!]), .failed,
        ])
        let asked = NIOLockedValueBox<[String]>([])
        let resolver: WebhookDeliverer.Resolver = { host, _ in
            asked.withLockedValue { $0.append(host) }
            return answers.withLockedValue { $0.removeFirst() }
        }
        try await WebhookReceiver.run { receiver, url in
            try await TestServer.run(kind) { server in
                try await Self.pendingDelivery(server, to: "http://rebind.test:\(try #require(url.port))/hook")
                let deliverer = WebhookDeliverer(store: server.store, policy: .localReceivers, resolve: resolver)
                #expect(try await deliverer.deliverDue(at: TestServer.now) == 1)
                #expect(await receiver.received.count == 1)
                #expect(try await server.store.deliveries(state: .delivered, limit: 10).count == 1)
                // The name now points at the metadata service: the next event (the exit) is refused, nothing sent.
                _ = try await server.send(.post, "/api/ingest", token: server.deviceToken,
                                          body: WebhookTests.enterBatch(minute: 10, lat: 46.06))
                #expect(try await deliverer.deliverDue(at: TestServer.now) == 1)
                #expect(try await Self.pendingError(server)
                        == "destination refused: rebind.test is 169.254.169.254, a cloud metadata address (allow it with --webhook-allow)")
                #expect(await receiver.received.count == 1)
                #expect(try await deliverer.deliverDue(at: TestServer.now.addingTimeInterval(3600)) == 1)
                #expect(try await Self.pendingError(server) == "DNS lookup failed")
                #expect(asked.withLockedValue { $0 } == ["rebind.test", "rebind.test", "rebind.test"])
            }
        }
    }

    @Test("a webhook url longer than 2048 bytes is refused", arguments: StoreKind.available)
    func urlLength(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let prefix = "https://hooks.example.com/"
            let longest = prefix + String(repeating: "a", count: 2048 - prefix.utf8.count)
            let reply = try await Self.create(server, longest + "a")
            #expect(reply.status == .badRequest)
            #expect(try Self.message(reply) == "the webhook url has 2049 bytes; at most 2048 are accepted")
            #expect(try await Self.create(server, longest).status == .created)
        }
    }

    @Test("a webhook url's port must be in 1…65535", arguments: StoreKind.available)
    func port(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let reply = try await Self.create(server, "http://hooks.example.com:99999/hook")
            #expect(reply.status == .badRequest)
            #expect(try Self.message(reply) == "the webhook url's port must be in 1…65535, got 99999")
            #expect(try await Self.create(server, "http://hooks.example.com:0/hook").status == .badRequest)
            #expect(try await Self.create(server, "http://hooks.example.com:65535/hook").status == .created)
        }
    }

    @Test("credentials in a webhook url are refused, and never listed", arguments: StoreKind.available)
    func credentials(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let reply = try await Self.create(server, "https://user:pass@hooks.example.com/hook")
            #expect(reply.status == .badRequest)
            #expect(try Self.message(reply).contains("must not contain a user name or password"))
            // A subscription stored before the check shows its password as ***.
            let old = Webhook(id: "w_old", url: URL(string: "https://user:s3cret@hooks.example.com/hook")!, secret: "s", createdAt: TestServer.now)
            try await server.store.insertWebhook(old)
            let list = try await server.send(.get, "/api/webhooks", token: TestServer.adminToken)
            #expect(!list.text.contains("s3cret"))
            let hooks = try #require(try list.json()["webhooks"] as? [[String: Any]])
            #expect(hooks.first?["url"] as? String == "https://user:***@hooks.example.com/hook")
        }
    }
}

/// The address classifier and the allow-list entries, as tables.
@Suite("Webhook destination classifier")
struct WebhookDestinationClassifierTests {
    static let addresses: [(String, String?)] = [
        ("127.0.0.1", "a loopback address"), ("127.255.255.254", "a loopback address"),
        ("10.0.0.1", "a private (RFC 1918) address"), ("172.15.255.255", nil), ("172.16.0.0", "a private (RFC 1918) address"),
        ("172.31.255.255", "a private (RFC 1918) address"), ("172.32.0.0", nil), ("192.168.0.1", "a private (RFC 1918) address"),
        ("100.63.255.255", nil), ("100.64.0.0", "a carrier-grade NAT (100.64.0.0/10) address"),
        ("100.127.255.255", "a carrier-grade NAT (100.64.0.0/10) address"), ("100.128.0.0", nil),
        ("100.100.100.200", "a cloud metadata address"), ("169.254.0.1", "a link-local address"),
        ("169.254.169.254", "a cloud metadata address"), ("0.0.0.0", "an unspecified address"), ("0.1.2.3", "an unspecified address"),
        ("224.0.0.1", "a multicast address"), ("239.255.255.255", "a multicast address"),
        ("255.255.255.255", "a broadcast address"), ("240.0.0.1", "a reserved (240.0.0.0/4) address"),
        ("8.8.8.8", nil), ("1.1.1.1", nil), ("93.184.216.34", nil),
        ("::1", "a loopback address"), ("::", "an unspecified address"), ("fe80::1", "a link-local address"),
        ("febf:ffff::1", "a link-local address"), ("fec0::1", "a site-local (fec0::/10) address"),
        ("fc00::1", "a unique local (fc00::/7) address"), ("fdff::1", "a unique local (fc00::/7) address"),
        ("fd00:ec2::254", "a cloud metadata address"), ("ff02::1", "a multicast address"),
        ("::127.0.0.1", "an IPv4-compatible IPv6 address"), ("2001:4860:4860::8888", nil), ("2606:4700::1111", nil),
        ("::ffff:127.0.0.1", "a loopback address"), ("::ffff:a9fe:a9fe", "a cloud metadata address"), ("::ffff:8.8.8.8", nil),
    ]

    /// M4 (probe 2): IPv6 forms that carry an IPv4 address for a translator or a tunnel. Before: every one
    /// of the refused rows was classified as public (nil), and `POST /api/webhooks` answered 201.
    static let translated: [(String, String?)] = [
        ("64:ff9b::a9fe:a9fe", "64:ff9b::/96 (NAT64) embedding 169.254.169.254, a cloud metadata address"),
        ("64:ff9b::a00:1", "64:ff9b::/96 (NAT64) embedding 10.0.0.1, a private (RFC 1918) address"),
        ("64:ff9b::808:808", nil),                                            // NAT64 to 8.8.8.8: public
        ("64:ff9b:1::a00:1", "64:ff9b:1::/48 (local-use NAT64) embedding 10.0.0.1, a private (RFC 1918) address"),
        ("64:ff9b:1:7f00:0:100::", "64:ff9b:1::/48 (local-use NAT64) embedding 127.0.0.1, a loopback address"),   // the /48 layout
        ("2002:a9fe:a9fe::1", "2002::/16 (6to4) embedding 169.254.169.254, a cloud metadata address"),
        ("2002:808:808::1", nil),
        ("2001:0:4136:e378:8000:63bf:80ff:fffe", "2001::/32 (Teredo) embedding 127.0.0.1, a loopback address"),
        ("2001:0:a00:1::", "2001::/32 (Teredo) embedding 10.0.0.1, a private (RFC 1918) address"),          // the server half
        ("::ffff:0:7f00:1", "::ffff:0:0:0/96 (SIIT) embedding 127.0.0.1, a loopback address"),
    ]

    @Test("M4: unwraps IPv4 embedded by NAT64, local-use NAT64, 6to4, Teredo and SIIT before the check", arguments: translated)
    func translatedPrefixes(text: String, expected: String?) throws {
        let address = try #require(IPAddress(text))
        #expect(address.restriction == expected)
    }

    @Test("classifies IPv4, IPv6 and IPv4-mapped addresses", arguments: addresses)
    func classify(text: String, expected: String?) throws {
        let address = try #require(IPAddress(text))
        #expect(address.restriction == expected)
    }

    @Test("reads only strict literals, in canonical form, mapped addresses as IPv4")
    func literals() {
        for text in ["127.1", "0x7f000001", "2130706433", "1.2.3.4.5", "localhost", "[::1]", "", "::1%eth0"] {
            #expect(IPAddress(text) == nil, "\(text)")
        }
        #expect(IPAddress("0:0:0:0:0:0:0:1")?.description == "::1")
        #expect(IPAddress("::FFFF:7f00:1")?.description == "127.0.0.1")
        #expect(IPAddress("::ffff:127.0.0.1") == IPAddress("127.0.0.1"))
        #expect(IPAddress("FD00:EC2:0::254")?.description == "fd00:ec2::254")
    }

    @Test("reads allow-list entries: CIDR ranges, addresses and host names")
    func allowEntries() throws {
        func entry(_ text: String) throws -> AllowedDestination { try AllowedDestination(text) }
        func address(_ text: String) throws -> IPAddress { try #require(IPAddress(text)) }
        #expect(try entry("127.0.0.1/32").allows(address("127.0.0.1")))
        #expect(try !entry("127.0.0.1/32").allows(address("127.0.0.2")))
        #expect(try entry("127.0.0.1/32").allows(address("::ffff:127.0.0.1")), "an IPv4 entry covers the mapped form")
        #expect(try entry("10.0.0.0/8").allows(address("10.255.0.1")) && !entry("10.0.0.0/8").allows(address("11.0.0.0")))
        #expect(try entry("10.1.2.3/8").description == "10.0.0.0/8", "host bits are cleared")
        #expect(try entry(" 192.168.1.7 ").description == "192.168.1.7/32")
        #expect(try entry("172.16.0.0/12").allows(address("172.31.1.1")) && !entry("172.16.0.0/12").allows(address("172.32.0.1")))
        #expect(try entry("fd00::/8").allows(address("fd12::1")) && !entry("fd00::/8").allows(address("fc00::1")))
        #expect(try entry("[::1]").description == "::1/128" && entry("::1/128").allows(address("::1")))
        #expect(try entry("::ffff:10.0.0.0/104").description == "10.0.0.0/8")
        #expect(try entry("::ffff:10.0.0.0/104").allows(address("::ffff:10.9.9.9")))
        #expect(try entry("0.0.0.0/0").allows(address("8.8.8.8")) && !entry("0.0.0.0/0").allows(address("::1")))
        #expect(try entry("Hooks.Internal.").description == "hooks.internal")
        #expect(try entry("hooks.internal").allows(host: "HOOKS.internal.") && !entry("hooks.internal").allows(host: "evil.internal"))
        #expect(try !entry("hooks.internal").allows(address("127.0.0.1")))
        for bad in ["10.0.0.0/33", "::/129", "10.0.0.0/-1", "10.0.0.0/", "10.0.0.0/8/9", "::ffff:10.0.0.0/8", "bad host!", "", "a..b",
                    "10.0.0.0/+8", "/8"] {
            #expect(throws: ServerError.self, "\(bad)") { try entry(bad) }
        }
        #expect(try AllowedDestination.list("127.0.0.1/32, hooks.internal,,fd00::/8 ").map(\.description)
                == ["127.0.0.1/32", "hooks.internal", "fd00::/8"])
    }

    @Test("refuses a host when any of its addresses is internal, unless the address or the name is allowed")
    func refusal() throws {
        let public1 = try #require(IPAddress("93.184.216.34")), loopback = try #require(IPAddress("::ffff:127.0.0.1"))
        var policy = WebhookPolicy()
        #expect(policy.refusal(host: "example.com", addresses: [public1]) == nil)
        #expect(policy.refusal(host: "example.com", addresses: [public1, loopback])
                == "destination refused: example.com is 127.0.0.1, a loopback address (allow it with --webhook-allow)")
        policy.allowedDestinations = try AllowedDestination.list("127.0.0.0/8")
        #expect(policy.refusal(host: "example.com", addresses: [public1, loopback]) == nil)
        policy.allowedDestinations = try AllowedDestination.list("Example.COM")
        #expect(policy.refusal(host: "example.com.", addresses: [loopback]) == nil)
    }
}
