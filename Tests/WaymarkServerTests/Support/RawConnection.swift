import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A plain TCP connection to 127.0.0.1 for tests that must misbehave below HTTP: send half a header,
/// never send a body, or just hold the connection. Blocking calls run on a thread of their own, so the
/// server under test (in this process) keeps its cooperative threads.
final class RawConnection: @unchecked Sendable {
    private let fd: Int32

    /// Connects to `port` on 127.0.0.1, from `source` (another loopback address, e.g. 127.0.0.2, to be another client
    /// address to the server).
    init(port: Int, from source: String = "127.0.0.1") throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        local.sin_addr.s_addr = inet_addr(source)
        let bound = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else {
            close(fd)
            throw POSIXError(.EADDRNOTAVAIL)
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            close(fd)
            throw POSIXError(.ECONNREFUSED)
        }
    }

    deinit { close(fd) }

    /// Closes both directions now (the server sees the connection end).
    func shutdown() { _ = Glibc.shutdown(fd, Int32(SHUT_RDWR)) }

    /// Sends `text`; false if the server already closed the connection.
    @discardableResult
    func send(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == bytes.count
    }

    /// Reads until the server closes the connection or `seconds` pass; returns what arrived, whether the
    /// server closed, and how long it took.
    func readUntilClosed(seconds: Double, orUntil marker: String? = nil) async -> (text: String, closed: Bool, elapsed: Double) {
        let fd = fd
        return await withCheckedContinuation { continuation in
            Thread {
                var timeout = timeval(tv_sec: 0, tv_usec: 100_000)
                setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
                let start = Date()
                var data = [UInt8]()
                var buffer = [UInt8](repeating: 0, count: 65_536)
                var closed = false
                while Date().timeIntervalSince(start) < seconds {
                    let n = recv(fd, &buffer, buffer.count, 0)
                    if n > 0 {
                        data += buffer[0..<n]
                        if let marker, String(decoding: data, as: UTF8.self).contains(marker) { break }
                        continue
                    }
                    if n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) { closed = true; break }
                }
                continuation.resume(returning: (String(decoding: data, as: UTF8.self), closed, Date().timeIntervalSince(start)))
            }.start()
        }
    }
}
