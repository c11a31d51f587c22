import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import WaymarkSimulator
import WaymarkGeo
@testable import WaymarkSync
import WaymarkSimulatedPhone

/// The URLSession transports' shared parts against the real ingest server on 127.0.0.1.
@Suite("URLSession upload transport against a real HTTP endpoint")
struct URLSessionUploadTransportTests {
    func request(points: Int, key: String = UUID().uuidString, token: String = "tok") -> UploadRequest {
        UploadRequest(key: key, body: NativeBatchFormat(deviceID: "phone-1").body(for: TestFixes.ride(count: points)), token: token)
    }

    func server(registering token: String? = "tok") async throws -> IngestTestServer {
        let server = try await IngestTestServer.start()
        if let token { await server.state.register(token: token, device: "phone-1") }
        return server
    }

    @Test("200: the server commits the batch and the reply is an acknowledgement, with the ingest headers sent")
    func acknowledged() async throws {
        let server = try await server()
        defer { server.stop() }
        let transport = try URLSessionUploadTransport(server: server.baseURL, timeout: .seconds(60))
        let sent = request(points: 5)
        let response = await transport.send(sent)
        #expect(response.isAcknowledgement)
        #expect(await server.state.points(device: "phone-1").count == 5)
        let headers = await server.state.lastHeaders
        #expect(headers?.contentType == "application/json" && headers?.key == sent.key)
    }

    @Test("401 for an unknown token, with the server's message")
    func unauthorized() async throws {
        let server = try await server(registering: nil)
        defer { server.stop() }
        let transport = try URLSessionUploadTransport(server: server.baseURL, timeout: .seconds(60))
        let response = await transport.send(request(points: 2, token: "nobody"))
        guard case .status(401, _) = response else { Issue.record("expected 401, got \(response)"); return }
        #expect(response.serverMessage == "unknown or expired token")
        #expect(!response.isAcknowledgement)
    }

    @Test("413 when the batch is larger than the server takes; nothing stored")
    func tooLarge() async throws {
        let server = try await server()
        defer { server.stop() }
        await server.state.setMaxPoints(2)
        let transport = try URLSessionUploadTransport(server: server.baseURL, timeout: .seconds(60))
        let response = await transport.send(request(points: 3))
        guard case .status(413, _) = response else { Issue.record("expected 413, got \(response)"); return }
        #expect(response.serverMessage == "at most 2 points per request")
        #expect(await server.state.points(device: "phone-1").isEmpty)
    }

    @Test("5xx is reported as such; the same key sent again is committed", arguments: [500, 503])
    func serverError(code: Int) async throws {
        let server = try await server()
        defer { server.stop() }
        await server.state.inject([.status(code)], token: "tok")
        let transport = try URLSessionUploadTransport(server: server.baseURL, timeout: .seconds(60))
        let sent = request(points: 4)
        let first = await transport.send(sent)
        guard case .status(code, _) = first else { Issue.record("expected \(code), got \(first)"); return }
        #expect(!first.isAcknowledgement)
        #expect(await transport.send(sent).isAcknowledgement)
        #expect(await server.state.points(device: "phone-1").count == 4)
    }

    @Test("a reply later than the timeout is .timedOut; the retry under the same key is absorbed as a replay")
    func timeout() async throws {
        let server = try await server()
        defer { server.stop() }
        // The server commits, then holds its reply until the next request arrives, and moves the
        // transport's own clock past the timeout as it holds it: the attempt times out then, with no
        // real time passing (the session's own 30 s timeouts are only a backstop).
        await server.state.inject([.holdAfterCommitUntilNextRequest], token: "tok")
        let clock = SimulatedClock(startingAt: 0)
        await server.state.whenHeld(device: "phone-1") { clock.advance(by: .seconds(30)) }
        let transport = try URLSessionUploadTransport(server: server.baseURL, timeout: .seconds(30), clock: clock)
        let sent = request(points: 6)
        #expect(await transport.send(sent) == .timedOut)
        #expect(await transport.send(sent).isAcknowledgement)
        let stats = await server.state.stats(device: "phone-1")
        #expect(stats.requests == 2 && stats.replays == 1 && stats.crossBatchDuplicates == 0)
        #expect(await server.state.points(device: "phone-1").count == 6)
    }

    @Test("no server listening: .connectionFailed with the reason")
    func refused() async throws {
        // Port 1 (tcpmux) is privileged and unused: the connection is refused at once. The attempt's
        // timeout runs on a clock that never moves, so however long a loaded machine takes to
        // schedule the task that reports the refusal, the timeout cannot win that race (a 60 s
        // timeout on the Swift clock lost it once with the suite beside two other builds on 2 cores).
        // The session's own timeouts stay in real time (60 s), as the backstop.
        let transport = try URLSessionUploadTransport(server: try #require(URL(string: "http://127.0.0.1:1")), timeout: .seconds(60),
                                                      clock: SimulatedClock(startingAt: 0))
        let response = await transport.send(request(points: 1))
        guard case .connectionFailed(let reason) = response else { Issue.record("expected connectionFailed, got \(response)"); return }
        #expect(reason.contains("URLError -1004"), "cannotConnectToHost: \(reason)")
    }

    @Test("cancelling the task cancels the request: .cancelled, not a failure to back off from")
    func cancelled() async throws {
        let server = try await server()
        defer { server.stop() }
        await server.state.inject([.holdAfterCommitUntilNextRequest], token: "tok")
        let (held, signal) = AsyncStream<Void>.makeStream()
        await server.state.whenHeld(device: "phone-1") { signal.yield() }
        let transport = try URLSessionUploadTransport(server: server.baseURL, timeout: .seconds(60))
        let send = Task { await transport.send(request(points: 1)) }
        for await _ in held { break }   // the server has the request and holds its reply
        send.cancel()
        #expect(await send.value == .cancelled)
    }

    @Test("a server URL without http(s) or host is a configuration error", arguments: ["ftp://example.com", "file:///tmp/x", "example.com"])
    func badServer(url: String) throws {
        #expect {
            _ = try URLSessionUploadTransport(server: try #require(URL(string: url)))
        } throws: { error in
            (error as? TransportError)?.code == .configuration
        }
    }

    @Test("the ingest URL joins server and path with one slash")
    func endpointURL() throws {
        let endpoint = try IngestEndpoint(server: try #require(URL(string: "https://track.example.com:8443//")), path: "api/ingest")
        #expect(endpoint.url.absoluteString == "https://track.example.com:8443/api/ingest")
    }

    @Test("the upload queue drains a ride over URLSession through 413 splits and 503s, every point stored once")
    func queueOverURLSession() async throws {
        let server = try await server()
        defer { server.stop() }
        await server.state.setMaxPoints(40)
        await server.state.inject([.status(503), .status(502)], token: "tok")
        let store = try RideStore.inMemory()
        let ride = try store.startRide(at: TestFixes.start)
        let fixes = TestFixes.ride(count: 150)
        try store.append(fixes, to: ride.id)
        let transport = try URLSessionUploadTransport(server: server.baseURL, timeout: .seconds(60))
        var uploader = try VirtualTimeUploader(store: store, transport: transport, credentials: DeviceCredentials(token: "tok"),
                                           configuration: .init(maxBatchPoints: 100, maxBatchAge: 60, backoffBase: 2, backoffCap: 60),
                                           now: TestFixes.start.addingTimeInterval(150))
        try await uploader.drain(until: uploader.now.addingTimeInterval(3600))
        let points = await server.state.points(device: "phone-1")
        #expect(points.count == 150)
        #expect(Set(points.map(\.timestamp)) == Set(fixes.map { NativeBatchFormat.timestamp($0.timestamp) }))
        #expect(try store.fixCount() == 0)
        #expect(await server.state.stats(device: "phone-1").crossBatchDuplicates == 0)
    }

    @Test("the background path: body uploaded from its file with the endpoint's request, outcome recorded, picked up after a 'relaunch'")
    func backgroundPathFromFile() async throws {
        let server = try await server()
        defer { server.stop() }
        let temp = try TemporaryOutcomeStore()
        defer { temp.remove() }
        let endpoint = try IngestEndpoint(server: server.baseURL)
        let sent = request(points: 7)
        // What BackgroundUploadTransport does on iOS, with a foreground session on Linux: the
        // body goes to a file, the task uploads from it, the delegate records the outcome.
        let file = try temp.store.writeBody(sent.body, for: sent.key)
        let completions = UploadCompletions(store: temp.store)
        let (body, urlResponse) = try await URLSession.shared.upload(for: endpoint.urlRequest(for: sent, timeout: 10), fromFile: file)
        try completions.transferFinished(key: sent.key, response: UploadResponse(urlResponse: urlResponse, body: body, error: nil))
        temp.store.removeBody(for: sent.key)
        // Nobody waited (the app was suspended); a new process's send takes the outcome.
        let relaunched = UploadCompletions(store: try UploadOutcomeStore(directory: temp.store.directory))
        let picked = try #require(relaunched.takeRecorded(sent.key))
        #expect(picked.isAcknowledgement)
        #expect(await server.state.points(device: "phone-1").count == 7)
        #expect(await server.state.lastHeaders?.key == sent.key)
        #expect(!FileManager.default.fileExists(atPath: file.path))
    }
}
