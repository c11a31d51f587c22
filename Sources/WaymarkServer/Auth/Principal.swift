/// Who made a request: the operator (admin token) or one device (its own token).
public enum Principal: Hashable, Sendable {
    /// The holder of the admin token: may manage devices and read everything.
    case admin
    /// A device: may upload its own points and read its own data.
    case device(DeviceRecord)

    /// Whether this principal may read the data of device `id`.
    public func mayRead(deviceID id: String) -> Bool {
        switch self {
        case .admin: true
        case .device(let device): device.id == id
        }
    }
}
