import Foundation
import Hummingbird
import HummingbirdTesting
import NIOConcurrencyHelpers
import Testing

/// A basemap tile server on 127.0.0.1 for the dashboard tests: `GET /{z}/{x}/{y}.png` answers a
/// generated 256×256 PNG (a checkerboard whose colours change with the zoom level, a darker edge on
/// each tile), and every path asked for is recorded. Another origin than the tracking server, as a
/// real tile server is, so the page's `img-src` is exercised.
struct TileServer: Sendable {
    /// The template to configure: `http://127.0.0.1:PORT/{z}/{x}/{y}.png`.
    let template: String
    private let requested: NIOLockedValueBox<[String]>

    /// The paths asked for so far, in order.
    var requests: [String] { requested.withLockedValue { $0 } }

    /// Runs `body` with a tile server listening.
    static func run<T: Sendable>(_ body: @Sendable (TileServer) async throws -> T) async throws -> T {
        let requested = NIOLockedValueBox<[String]>([])
        let router = Router()
        router.get("/:z/:x/:file") { request, context -> Response in
            requested.withLockedValue { $0.append(request.uri.path) }
            let z = Int(try context.parameters.require("z")) ?? 0, x = Int(try context.parameters.require("x")) ?? 0
            let y = Int(try context.parameters.require("file").prefix { $0.isNumber }) ?? 0
            return Response(status: .ok, headers: [.contentType: "image/png"],
                            body: ResponseBody(byteBuffer: ByteBuffer(bytes: PNG.tile(z: z, x: x, y: y))))
        }
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        return try await app.test(.live) { client in
            let port = try #require(client.port)
            return try await body(TileServer(template: "http://127.0.0.1:\(port)/{z}/{x}/{y}.png", requested: requested))
        }
    }
}

/// A minimal PNG writer (8-bit RGB, no compression: stored deflate blocks), enough for test tiles.
enum PNG {
    /// The tile (`z`, `x`, `y`): light, zoom-tinted squares of 64 px in a checkerboard, a grey edge.
    static func tile(z: Int, x: Int, y: Int) -> [UInt8] {
        let tint = UInt8(150 + (z * 37) % 90)
        return image(width: 256, height: 256) { px, py in
            if px == 0 || py == 0 { return (120, 130, 140) }
            let dark = ((px / 64) + (py / 64) + x + y) % 2 == 0
            return dark ? (205, tint, 190) : (235, 240, tint)
        }
    }

    /// An RGB image whose pixel (x, y) is `colour(x, y)`.
    static func image(width: Int, height: Int, colour: (Int, Int) -> (UInt8, UInt8, UInt8)) -> [UInt8] {
        var raw: [UInt8] = []
        raw.reserveCapacity(height * (1 + width * 3))
        for y in 0..<height {
            raw.append(0)   // filter: none
            for x in 0..<width {
                let (r, g, b) = colour(x, y)
                raw += [r, g, b]
            }
        }
        var header: [UInt8] = []
        header += bigEndian(UInt32(width)) + bigEndian(UInt32(height))
        header += [8, 2, 0, 0, 0]   // 8 bits, RGB, deflate, no filter method variant, no interlace
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
            + chunk("IHDR", header) + chunk("IDAT", zlibStored(raw)) + chunk("IEND", [])
    }

    /// A zlib stream of stored (uncompressed) deflate blocks.
    static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let length = min(65_535, data.count - offset)
            let last: UInt8 = offset + length == data.count ? 1 : 0
            out += [last, UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8((~length >> 8) & 0xFF)]
            out += data[offset..<offset + length]
            offset += length
        } while offset < data.count
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in data {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        return out + bigEndian(b << 16 | a)
    }

    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        return bigEndian(UInt32(data.count)) + body + bigEndian(crc32(body))
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }
}
