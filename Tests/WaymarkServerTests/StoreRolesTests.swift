import Foundation
import Testing
import WaymarkServer

/// `Store` is a composition of small roles: code that needs one role takes just that, and a test
/// double implements only it.
@Suite("Store roles")
struct StoreRolesTests {
    /// Devices in memory: the whole `DeviceStore` role, nothing else.
    actor MemoryDevices: DeviceStore {
        var devices: [String: (record: DeviceRecord, tokenHash: String)] = [:]
        func insertDevice(_ device: DeviceRecord, tokenHash: String) { devices[device.id] = (device, tokenHash) }
        func listDevices() -> [DeviceRecord] { devices.values.map(\.record).sorted { $0.createdAt < $1.createdAt } }
        func device(id: String) -> DeviceRecord? { devices[id]?.record }
        func device(tokenHash: String) -> DeviceRecord? { devices.values.first { $0.tokenHash == tokenHash }?.record }
        func revokeDevice(id: String, at date: Date) -> Bool {
            guard var entry = devices[id] else { return false }
            entry.record.revokedAt = date
            devices[id] = entry
            return true
        }
    }

    @Test("DeviceRegistry needs only a DeviceStore: register stores the token's digest, revoke marks the device")
    func registryOnADeviceStore() async throws {
        let store = MemoryDevices()
        let at = Date(timeIntervalSince1970: 1_750_032_000)
        let (device, token) = try await DeviceRegistry.register(name: "  Ana's phone ", in: store, at: at)
        #expect(device.name == "Ana's phone")
        #expect(await store.device(tokenHash: TokenHasher.digest(token)) == device)
        try await DeviceRegistry.revoke(id: device.id, in: store, at: at)
        #expect(await store.device(id: device.id)?.revokedAt == at)
        await #expect(throws: ServerError.self) { try await DeviceRegistry.revoke(id: "nope", in: store) }
        await #expect(throws: ServerError.self) { _ = try await DeviceRegistry.register(name: "  ", in: store) }
    }
}
