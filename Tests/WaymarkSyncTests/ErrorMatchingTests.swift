import Foundation
import Testing
import WaymarkSync
import WaymarkTransport

@Suite("SyncError and TransportError code matching")
struct SyncErrorMatchingTests {
    @Test("a server URL without a scheme is caught as TransportError.Code.configuration")
    func transport() throws {
        var caught = false
        do { _ = try IngestEndpoint(server: try #require(URL(string: "track.example.com"))) }
        catch TransportError.Code.configuration { caught = true }
        catch {}
        #expect(caught)
        #expect(!(TransportError.Code.outcomeStore ~= TransportError(.configuration, "x")))
    }

    @Test("SyncError codes match only their own code")
    func sync() {
        #expect(SyncError.Code.storage ~= SyncError(.storage, "cannot open"))
        #expect(!(SyncError.Code.notFound ~= SyncError(.storage, "cannot open")))
        #expect(!(SyncError.Code.storage ~= TransportError(.configuration, "x")))
    }
}
