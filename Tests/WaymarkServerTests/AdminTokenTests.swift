import Foundation
import Testing
@testable import WaymarkServer

/// Weak admin tokens (issue #15, finding L4): a `WAYMARK_ADMIN_TOKEN` shorter than 24 bytes is refused.
@Suite("Admin token strength")
struct AdminTokenTests {
    @Test("a short WAYMARK_ADMIN_TOKEN is refused with a message naming the variable, the minimum and a generator",
          arguments: ["x", "secret", String(repeating: "a", count: 23), "wma_test-admin-token"])
    func shortTokenRefused(token: String) async throws {
        try await StoreKind.sqlite.withStore { store in
            let error = await #expect(throws: ServerError.self) {
                try await AdminToken.establish(in: store, environmentToken: token)
            }
            #expect(error?.code == .configuration)
            let message = error?.message ?? ""
            #expect(message.contains("WAYMARK_ADMIN_TOKEN is \(token.utf8.count) byte"), "\(message)")
            #expect(message.contains("at least 24 bytes"), "\(message)")
            #expect(message.contains("openssl rand -hex 32"), "\(message)")
            // Nothing was generated or stored in its place.
            let stored = try await store.setting(AdminToken.settingKey)
            #expect(stored == nil)
        }
    }

    @Test("a token of 24 bytes or more is accepted and never stored",
          arguments: [String(repeating: "a", count: 24), "ü" + String(repeating: "b", count: 22), TokenHasher.makeToken(prefix: "wma")])
    func longEnoughTokenAccepted(token: String) async throws {
        try await StoreKind.sqlite.withStore { store in
            let admin = try await AdminToken.establish(in: store, environmentToken: token)
            #expect(admin.digest == TokenHasher.digest(token))
            #expect(admin.newToken == nil)
            #expect(try await store.setting(AdminToken.settingKey) == nil)
        }
    }

    @Test("an empty variable counts as unset: a token is generated, and generated tokens pass the minimum")
    func emptyMeansGenerate() async throws {
        try await StoreKind.sqlite.withStore { store in
            let admin = try await AdminToken.establish(in: store, environmentToken: "")
            let token = try #require(admin.newToken)
            #expect(token.utf8.count >= AdminToken.minimumLength)
            #expect(token.utf8.count == 47)
        }
    }
}
