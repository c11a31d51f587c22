import Foundation
import Testing
@testable import WaymarkGeo

@Suite("GPX fuzz regressions")
struct GPXFuzzRegressionTests {
    static var inputs: [URL] {
        let dir = GPXTestSupport.fixtures.appendingPathComponent("fuzz-regressions")
        return ((try? FileManager.default.contentsOfDirectory(at: dir, includingPropertiesForKeys: nil)) ?? [])
            .filter { $0.pathExtension != "md" }
            .sorted { $0.path < $1.path }
    }

    @Test("the regression folder is not empty")
    func hasInputs() {
        #expect(Self.inputs.count >= 8)
    }

    @Test("every kept input reads to the end or throws a GeoError with a location or message",
          arguments: inputs)
    func survives(input: URL) throws {
        let data = try Data(contentsOf: input)
        for lenient in [false, true] {
            let options = GPXReadOptions(lenient: lenient, chunkSize: 4096, maxTokenBytes: 1 << 20, maxDepth: 64)
            do {
                let doc = try GPXDocument(data: data, name: input.lastPathComponent, options: options)
                // Whatever was read also writes and reads back.
                _ = try GPXDocument(data: doc.gpxData())
            } catch {
                #expect(!error.message.isEmpty)
            }
        }
    }

    @Test("broken encodings are reported as encoding errors", arguments: [
        "seed-utf16-odd-length.gpx", "seed-utf16-lone-surrogate.gpx", "seed-unknown-encoding.gpx",
    ])
    func encodingErrors(name: String) throws {
        let data = try Data(contentsOf: GPXTestSupport.fixtures.appendingPathComponent("fuzz-regressions/\(name)"))
        #expect(throws: GeoError.self) { try GPXDocument(data: data) }
        do { _ = try GPXDocument(data: data) } catch { #expect(error.code == .encoding) }
    }
}
