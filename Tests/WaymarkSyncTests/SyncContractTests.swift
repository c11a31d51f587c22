import Foundation
import Testing
@testable import WaymarkSync
import WaymarkCLI

/// Programmer misuse in the upload queue's and transport's settings stops the program, naming the
/// field (#16); a bad server URL stays a thrown ``SyncError``.
@Suite("sync contracts: unusable queue and transport settings stop the program")
struct SyncContractTests {
    @Test("the queue's defaults are usable; each offending field is named, also after the configuration was changed")
    func queueViolations() {
        var c = UploadQueue.Configuration()
        #expect(c.contractViolations.isEmpty)
        c.maxBatchAge = -1
        c.backoffCap = 1   // below the base of 2
        c.minimumBudget = .nan
        let violations = c.contractViolations
        #expect(violations.count == 3, "\(violations)")
        #expect(violations.contains { $0.hasPrefix("maxBatchAge must be zero or more, not -1") })
        #expect(violations.contains { $0.hasPrefix("backoffCap (1.0) must be finite and at least backoffBase (2.0)") })
        #expect(violations.contains { $0.hasPrefix("minimumBudget") })
    }

    @Test("a queue made with a configuration changed to an unusable one stops the program, naming the field")
    func queueStops() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var c = UploadQueue.Configuration()
            c.backoffBase = 0
            c.backoffCap = 0
            _ = UploadQueue(configuration: c, backlog: UploadBacklog())
        }
        let message = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(message.contains("UploadQueue.Configuration: backoffBase must be positive and finite, not 0.0"), "\(message)")
    }

    @Test("a transport with no time for an attempt stops the program; a bad URL is still a thrown error")
    func transportTimeout() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = try HTTPUploadTransport(server: URL(string: "http://127.0.0.1:1")!, timeout: .zero)
        }
        #expect(String(decoding: result.standardErrorContent, as: UTF8.self).contains("HTTPUploadTransport: timeout must be positive"))
        #expect { try HTTPUploadTransport(server: URL(string: "ftp://example.com")!) } throws: {
            ($0 as? SyncError)?.code == .configuration
        }
    }
}
