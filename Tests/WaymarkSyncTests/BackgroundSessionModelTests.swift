import Foundation
import Testing
import WaymarkSimulator
@testable import WaymarkSync

/// A server double on virtual time: records when each batch arrived.
private actor ArrivalLog: UploadTransport {
    var arrivals: [String: Date] = [:]

    func send(_ request: UploadRequest) async -> UploadResponse {
        await send(request, at: Date(timeIntervalSince1970: 0))
    }

    func send(_ request: UploadRequest, at time: Date) async -> UploadResponse {
        if arrivals[request.key] == nil { arrivals[request.key] = time }
        return .status(200, body: Array(#"{"result":"ok","stored":1}"#.utf8))
    }
}

/// Review 2, M6: the simulator's background `URLSession` (discretionary from the background, the
/// resume rate limiter), and what it means for a ride's uploads with and without the hand-off.
@Suite("Background URLSession model (review 2, M6)")
struct BackgroundSessionModelTests {
    static let epoch = Date(timeIntervalSince1970: 1_767_254_400)
    static func at(_ seconds: TimeInterval) -> Date { epoch.addingTimeInterval(seconds) }
    static func request(_ key: String) -> UploadRequest { UploadRequest(key: key, body: Array("{}".utf8), token: "tok") }

    @Test("a transfer created in the foreground starts at once; one created in the background waits for iOS's discretion")
    func discretionaryFromBackground() async {
        let server = ArrivalLog()
        let session = SimulatedBackgroundSession(server: server, foreground: true)
        await session.handOff(Self.request("fg"), at: Self.at(0))
        await session.advance(to: Self.at(0))
        #expect(await server.arrivals["fg"] == Self.at(0))
        await session.appEnteredBackground(at: Self.at(10))
        await session.handOff(Self.request("bg"), at: Self.at(20))
        await session.advance(to: Self.at(1_000))
        #expect(await server.arrivals["bg"] == nil, "still waiting after 16 min")
        await session.advance(to: Self.at(20 + 1_800))
        #expect(await server.arrivals["bg"] == Self.at(20 + 1_800))
        let taken = await session.send(Self.request("bg"), at: Self.at(2_000))
        #expect(taken.isAcknowledgement, "the recorded outcome is taken by the batch's next send")
        #expect(await !session.holdsTransfer(for: "bg"))
    }

    @Test("the resume rate limiter grows with each resume for session events and goes back to 0 in the foreground")
    func rateLimiter() async {
        let server = ArrivalLog()
        let settings = SimulatedBackgroundSession.Settings(discretionaryDelay: 0, resumeDelay: 60, resumeDelayGrowth: 2)
        let session = SimulatedBackgroundSession(server: server, foreground: false, settings: settings)
        var t: TimeInterval = 0
        var waits: [TimeInterval] = []
        for i in 0..<4 {
            // The pattern Apple warns about: one small transfer, a resume when it ends, then the next.
            await session.handOff(Self.request("b\(i)"), at: Self.at(t))
            await session.advance(to: Self.at(t + 10_000))
            let arrival = await server.arrivals["b\(i)"]
            #expect(arrival != nil, "transfer b\(i) ran")
            let sent = arrival ?? Self.at(t)
            waits.append(sent.timeIntervalSince(Self.at(t)))
            t = sent.timeIntervalSince(Self.epoch)
        }
        #expect(waits == [0, 60, 120, 240], "each resume doubles the wait of the next background transfer: \(waits)")
        #expect(await session.resumes == 4)
        await session.appEnteredForeground(at: Self.at(t + 1))
        #expect(await session.rateLimiterDelay(at: Self.at(t + 1)) == 0)
    }

    @Test("a one-hour background ride: through the hand-off every batch reaches the server when it is formed; given to the background session alone, each waits for iOS's discretion")
    func rideUploads() async {
        // A batch every 5 min during an hour's ride with the app in the background, its process kept
        // running by background location updates; the ride ends at 60 min and the app is suspended.
        let batches = (1...12).map { (key: "ride-\($0)", formed: TimeInterval($0) * 300) }

        let aloneServer = ArrivalLog()
        let alone = SimulatedBackgroundSession(server: aloneServer, foreground: false)
        for batch in batches { _ = await alone.send(Self.request(batch.key), at: Self.at(batch.formed)) }
        await alone.advance(to: Self.at(6 * 3_600))

        let handOffServer = ArrivalLog()
        let continuing = SimulatedBackgroundSession(server: handOffServer, foreground: false)
        let transport = HandOffUploadTransport(running: handOffServer, continuing: continuing)
        for batch in batches { _ = await transport.send(Self.request(batch.key), at: Self.at(batch.formed)) }

        func delays(_ arrivals: [String: Date]) -> [TimeInterval] {
            batches.compactMap { batch in arrivals[batch.key].map { $0.timeIntervalSince(Self.at(batch.formed)) } }.sorted()
        }
        let aloneDelays = delays(await aloneServer.arrivals), handOffDelays = delays(await handOffServer.arrivals)
        #expect(aloneDelays.count == 12 && handOffDelays.count == 12)
        #expect(handOffDelays.allSatisfy { $0 == 0 }, "sent while the process runs")
        #expect(aloneDelays.allSatisfy { $0 >= 1_800 }, "every background-created transfer waited: \(aloneDelays)")
        #expect(await continuing.deliveries.isEmpty, "nothing was left for the background session")
        print("M6 ride uploads: median delay to the server, background session alone \(Int(aloneDelays[6])) s, hand-off \(Int(handOffDelays[6])) s")
    }
}
