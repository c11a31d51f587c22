import Foundation
import Testing
@testable import WaymarkTransport

/// A fresh outcome store in its own temporary folder, removed by `remove()`.
struct TemporaryOutcomeStore {
    let store: UploadOutcomeStore

    init() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("waymark-outcomes-\(UUID().uuidString)")
        store = try UploadOutcomeStore(directory: dir)
    }

    func remove() { try? FileManager.default.removeItem(at: store.directory) }
}

@Suite("Upload outcome store: finished transfers survive the process")
struct UploadOutcomeStoreTests {
    static let ack = UploadResponse.status(200, body: Array(#"{"result":"ok","rejected":[]}"#.utf8))
    static let finished = Date(timeIntervalSince1970: 1_750_000_000.123)

    @Test("every kind of response is read back by a store opened later on the same folder (a relaunch)", arguments: [
        ack, .status(413, body: Array(#"{"error":{"message":"at most 40 points"}}"#.utf8)), .status(503, body: []),
        .timedOut, .cancelled, .connectionFailed("URLError -1004: Could not connect to the server."),
    ])
    func roundTrip(response: UploadResponse) throws {
        let temp = try TemporaryOutcomeStore()
        defer { temp.remove() }
        try temp.store.record(UploadOutcome(key: "batch-1", response: response, finishedAt: Self.finished))
        let relaunched = try UploadOutcomeStore(directory: temp.store.directory)
        let outcome = try #require(relaunched.outcome(for: "batch-1"))
        #expect(outcome.response == response)
        #expect(outcome.finishedAt == Self.finished)
        #expect(relaunched.outcome(for: "batch-2") == nil)
    }

    @Test("take hands an outcome out once; a later send of the key uploads again")
    func takeOnce() throws {
        let temp = try TemporaryOutcomeStore()
        defer { temp.remove() }
        try temp.store.record(UploadOutcome(key: "k", response: Self.ack, finishedAt: Self.finished))
        #expect(temp.store.take("k")?.response == Self.ack)
        #expect(temp.store.take("k") == nil)
        #expect(temp.store.recorded().isEmpty)
    }

    @Test("only a 2xx {\"result\":\"ok\"} counts as acknowledged", arguments: [
        (ack, true), (.status(200, body: Array("{}".utf8)), false), (.status(200, body: []), false),
        (.status(503, body: Array(#"{"result":"ok"}"#.utf8)), false), (.timedOut, false), (.cancelled, false),
    ] as [(UploadResponse, Bool)])
    func acknowledgement(response: UploadResponse, acknowledged: Bool) {
        #expect(UploadOutcome(key: "k", response: response, finishedAt: Self.finished).isAcknowledgement == acknowledged)
    }

    @Test("keys of any shape get their own file: split keys, slashes, non-ASCII, very long ones")
    func awkwardKeys() throws {
        let temp = try TemporaryOutcomeStore()
        defer { temp.remove() }
        let keys = ["6F1C1D7A-0B5E-4C1A-9B7E-3C2D1E0F9A8B.a.b", "../../etc/passwd", "ünïcødé 🚲", String(repeating: "x", count: 500),
                    String(repeating: "x", count: 499) + "y", ".", ""]
        for (i, key) in keys.enumerated() {
            try temp.store.record(UploadOutcome(key: key, response: .status(200 + i, body: []), finishedAt: Self.finished))
        }
        for (i, key) in keys.enumerated() {
            #expect(temp.store.outcome(for: key)?.response == .status(200 + i, body: []), "key \(key.prefix(20))")
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: temp.store.outcomes.path)
        #expect(files.count == keys.count)
        #expect(files.allSatisfy { !$0.contains("/") && $0.utf8.count < 255 })
    }

    @Test("a damaged or foreign file reads as no outcome and is removed (the batch is just sent again)")
    func damagedFile() throws {
        let temp = try TemporaryOutcomeStore()
        defer { temp.remove() }
        try temp.store.record(UploadOutcome(key: "k", response: Self.ack, finishedAt: Self.finished))
        let file = temp.store.outcomeFile("k")
        let text = try String(contentsOf: file, encoding: .utf8)
        for damaged in [String(text.prefix(text.count / 2)), text.replacingOccurrences(of: "\"format\":1", with: "\"format\":2"),
                        text.replacingOccurrences(of: "\"key\":\"k\"", with: "\"key\":\"other\"")] {
            try Data(damaged.utf8).write(to: file)
            #expect(temp.store.outcome(for: "k") == nil)
            #expect(!FileManager.default.fileExists(atPath: file.path))
        }
    }

    @Test("the file is the documented JSON: format, key, finished_ms, status and a base64 body")
    func fileFormat() throws {
        let temp = try TemporaryOutcomeStore()
        defer { temp.remove() }
        try temp.store.record(UploadOutcome(key: "k", response: Self.ack, finishedAt: Self.finished))
        try temp.store.record(UploadOutcome(key: "t", response: .connectionFailed("reset"), finishedAt: Self.finished))
        let ack = try JSONSerialization.jsonObject(with: Data(contentsOf: temp.store.outcomeFile("k"))) as? [String: Any]
        #expect(ack?["format"] as? Int == 1 && ack?["key"] as? String == "k")
        #expect((ack?["finished_ms"] as? NSNumber)?.int64Value == 1_750_000_000_123)
        #expect(ack?["status"] as? Int == 200)
        #expect((ack?["body"] as? String).flatMap { Data(base64Encoded: $0) } == Data(#"{"result":"ok","rejected":[]}"#.utf8))
        let failed = try JSONSerialization.jsonObject(with: Data(contentsOf: temp.store.outcomeFile("t"))) as? [String: Any]
        #expect(failed?["failure"] as? String == "connectionFailed" && failed?["message"] as? String == "reset")
        #expect(failed?["status"] == nil)
    }

    @Test("prune drops outcomes and bodies nobody asked for within the retention, keeps the rest")
    func prune() throws {
        let temp = try TemporaryOutcomeStore()
        defer { temp.remove() }
        let now = Date()
        try temp.store.record(UploadOutcome(key: "old", response: Self.ack, finishedAt: now.addingTimeInterval(-8 * 86_400)))
        try temp.store.record(UploadOutcome(key: "new", response: Self.ack, finishedAt: now.addingTimeInterval(-60)))
        let oldBody = try temp.store.writeBody([1, 2, 3], for: "old")
        try FileManager.default.setAttributes([.modificationDate: now.addingTimeInterval(-8 * 86_400)], ofItemAtPath: oldBody.path)
        let newBody = try temp.store.writeBody([4, 5], for: "new")
        #expect(temp.store.prune(before: now.addingTimeInterval(-7 * 86_400)) == 1)
        #expect(temp.store.recorded().map(\.key) == ["new"])
        #expect(!FileManager.default.fileExists(atPath: oldBody.path))
        #expect(try Data(contentsOf: newBody) == Data([4, 5]))
    }

    @Test("a request body is written to a file to upload from, and removed after")
    func bodies() throws {
        let temp = try TemporaryOutcomeStore()
        defer { temp.remove() }
        let file = try temp.store.writeBody(Array("{\"locations\":[]}".utf8), for: "k.a")
        #expect(file == temp.store.bodyFile("k.a"))
        #expect(try Data(contentsOf: file) == Data("{\"locations\":[]}".utf8))
        temp.store.removeBody(for: "k.a")
        #expect(!FileManager.default.fileExists(atPath: file.path))
    }

    @Test("a folder that cannot be created is a TransportError naming it")
    func unusableFolder() throws {
        let temp = try TemporaryOutcomeStore()
        defer { temp.remove() }
        let blocker = temp.store.directory.appendingPathComponent("file")
        try Data("x".utf8).write(to: blocker)
        #expect {
            _ = try UploadOutcomeStore(directory: blocker.appendingPathComponent("below"))
        } throws: { error in
            (error as? TransportError)?.code == .outcomeStore && "\(error)".contains("below")
        }
    }
}
