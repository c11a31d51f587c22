#if canImport(Security) && os(iOS)
import Foundation
import Security
import WaymarkExampleModels

/// Device tokens in the Keychain, one generic password per server URL.
///
/// Readable after the first unlock following a restart (`kSecAttrAccessibleAfterFirstUnlock`), so
/// an upload from a background launch can read it while the phone is locked, and never copied to
/// another device (`ThisDeviceOnly`). Unlike a file in Application Support, it is not in plain text in
/// backups (review 2, L8).
@MainActor
final class KeychainTokenStore: TokenStore {
    private let service = "waymark.example.device-token"

    func token(for server: URL) -> String? {
        var query = baseQuery(server)
        query[kSecReturnData as String] = true
        query[kSecMatchLimit as String] = kSecMatchLimitOne
        var item: CFTypeRef?
        guard SecItemCopyMatching(query as CFDictionary, &item) == errSecSuccess, let data = item as? Data else { return nil }
        return String(data: data, encoding: .utf8)
    }

    func setToken(_ token: String?, for server: URL) {
        SecItemDelete(baseQuery(server) as CFDictionary)
        guard let token else { return }
        var item = baseQuery(server)
        item[kSecValueData as String] = Data(token.utf8)
        item[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
        SecItemAdd(item as CFDictionary, nil)
    }

    private func baseQuery(_ server: URL) -> [String: Any] {
        [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
         kSecAttrAccount as String: server.absoluteString]
    }
}
#endif
