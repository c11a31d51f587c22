import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
@testable import WaymarkServer
import WaymarkGeo

/// Two server instances sharing one PostgreSQL database, as two processes behind a load balancer.
@Suite("Two servers on one PostgreSQL")
struct SharedPostgresTests {
    @Test("interleaved uploads of one device are stored once and every webhook event is delivered exactly once",
          .enabled(if: StoreKind.postgresURL != nil, StoreKind.skipMessage))
    func twoServers() async throws {
        try await WebhookReceiver.run { receiver, url in
            try await StoreKind.withSharedPostgres { storeA, storeB in
                var configuration = ServerConfiguration(adminTokenDigest: TokenHasher.digest(TestServer.adminToken))
                configuration.clock = { TestServer.now }
                let (device, token) = try await DeviceRegistry.register(name: "phone", in: storeA, at: TestServer.now)
                let hook = Webhook(id: "w_1", url: url, secret: WebhookTests.secret, createdAt: TestServer.now)
                try await storeB.insertWebhook(hook)
                // Four small fences along a meridian; the device zig-zags in and out of them.
                let fences = (0..<4).map { i in
                    ServerFence(id: "f_\(i)", name: "F\(i)", shape: .circle(center: .init(uncheckedLatitude: 46 + Double(i) * 0.01, longitude: 14.5),
                                                                        radiusMeters: 200))
                }
                try await storeA.upsertFences(fences, at: TestServer.now)
                // 400 points, one every 10 s; every 5th point is inside a fence, the others 1 km east.
                let start = Date(timeIntervalSince1970: 1_749_981_600)   // 2025-06-15T10:00:00Z
                let features = (0..<400).map { i -> String in
                    let lat = 46 + Double((i / 5) % 4) * 0.01
                    let lon = i % 5 == 0 ? 14.5 : 14.513
                    let time = TimestampParser.format(start.addingTimeInterval(Double(i) * 10))
                    return #"{"type":"Feature","geometry":{"type":"Point","coordinates":[\#(lon),\#(lat)]},"properties":{"timestamp":"\#(time)"}}"#
                }
                // Batches of 40 overlapping by 20 (a client retrying through a load balancer).
                let batches = stride(from: 0, to: 380, by: 20).map { #"{"locations":[\#(features[$0..<min($0 + 40, 400)].joined(separator: ","))]}"# }
                let appA = Application(router: TrackingServer.makeRouter(configuration: configuration, store: storeA))
                let appB = Application(router: TrackingServer.makeRouter(configuration: configuration, store: storeB))
                try await appA.test(.router) { clientA in
                    try await appB.test(.router) { clientB in
                        // In order, but each batch races on both servers at once.
                        for (i, batch) in batches.enumerated() {
                            try await withThrowingTaskGroup(of: Void.self) { group in
                                for client in i.isMultiple(of: 2) ? [clientA, clientB] : [clientB, clientA] {
                                    group.addTask {
                                        let response = try await client.execute(
                                            uri: "/api/ingest", method: .post, headers: [.authorization: "Bearer \(token)"],
                                            body: ByteBuffer(string: batch))
                                        #expect(response.status == .ok)
                                    }
                                }
                                try await group.waitForAll()
                            }
                        }
                    }
                }
                #expect(try await storeA.positions(PositionQuery(deviceID: device.id, limit: 10_000)).count == 400)
                let events = try await storeB.fenceEvents(deviceID: device.id, afterID: 0, limit: 10_000)
                // 80 visits, each an enter and an exit (the last visit's exit comes with point 399).
                #expect(events.count == 160)
                // Two delivery workers, one per server, racing over the same outbox.
                var policy = WebhookPolicy.localReceivers
                policy.batchSize = 3
                let workers = [WebhookDeliverer(store: storeA, policy: policy), WebhookDeliverer(store: storeB, policy: policy)]
                let attempted = try await withThrowingTaskGroup(of: Int.self) { group in
                    for worker in workers {
                        group.addTask {
                            var total = 0
                            while true {
                                let n = try await worker.deliverDue(at: TestServer.now)
                                if n == 0 { return total }
                                total += n
                            }
                        }
                    }
                    return try await group.reduce(into: [Int]()) { $0.append($1) }
                }
                let received = await receiver.received
                let ids = received.compactMap(\.eventID)
                #expect(ids.count == events.count, "every event delivered")
                #expect(Set(ids).count == ids.count, "no event delivered twice")
                #expect(Set(ids) == Set(events.map { String($0.id) }))
                #expect(attempted.reduce(0, +) == events.count)
                #expect(attempted.allSatisfy { $0 > 0 }, "both workers took part: \(attempted)")
                #expect(received.allSatisfy { WebhookSignature.verify(header: $0.signature ?? "", body: $0.body, secret: WebhookTests.secret) })
            }
        }
    }
}
