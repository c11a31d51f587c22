import Foundation
import PostgresNIO

extension PostgresStore {
    /// Adds a webhook; see ``WebhookStore/insertWebhook(_:)``.
    public func insertWebhook(_ webhook: Webhook) async throws {
        _ = try await storageErrors {
            try await client.query("""
                INSERT INTO webhooks (id, url, secret, created_ms)
                VALUES (\(webhook.id), \(webhook.url.absoluteString), \(webhook.secret), \(webhook.createdAt.millisecondsSince1970))
                """, logger: logger)
        }
    }

    /// The advisory lock class that makes the webhook cap atomic ("WMWH" in ASCII); see ``schemaLock(_:)``.
    static let webhookCapLock: Int32 = 0x574D_5748

    /// Adds a webhook below a cap; see ``WebhookStore/insertWebhook(_:ifFewerThan:)``. A transaction takes an
    /// advisory lock, then counts and inserts in a statement that starts after the lock is granted, so it sees
    /// every webhook committed by an earlier holder: concurrent creations (from any process) count one after another.
    public func insertWebhook(_ webhook: Webhook, ifFewerThan limit: Int) async throws -> Int {
        try await storageErrors {
            try await client.withTransaction(logger: logger) { connection in
                try await connection.query(PostgresQuery(unsafeSQL: "SELECT " + Self.schemaLock(Self.webhookCapLock)),
                                           logger: logger)
                let row = try await connection.query("""
                    WITH existing AS (SELECT count(*)::int8 AS n FROM webhooks),
                         added AS (INSERT INTO webhooks (id, url, secret, created_ms)
                                   SELECT \(webhook.id), \(webhook.url.absoluteString), \(webhook.secret),
                                          \(webhook.createdAt.millisecondsSince1970)
                                   WHERE (SELECT n FROM existing) < \(Int64(limit)))
                    SELECT n FROM existing
                    """, logger: logger).collect().first
                return Int(try row?.decode(Int64.self) ?? 0)
            }
        }
    }

    /// One page of webhooks by id; see ``WebhookStore/webhooks(after:limit:)``.
    public func webhooks(after afterID: String?, limit: Int) async throws -> [Webhook] {
        try await storageErrors {
            try await client.query(
                "SELECT id, url, secret, created_ms FROM webhooks WHERE id > \(afterID ?? "") ORDER BY id LIMIT \(max(1, limit))",
                logger: logger).collect().compactMap { row in
                    let (id, url, secret, created) = try row.decode((String, String, String, Int64).self)
                    return URL(string: url).map { Webhook(id: id, url: $0, secret: secret, createdAt: Date(millisecondsSince1970: created)) }
                }
        }
    }

    /// Every webhook; see ``WebhookStore/listWebhooks()``.
    public func listWebhooks() async throws -> [Webhook] {
        try await storageErrors {
            try await client.query("SELECT id, url, secret, created_ms FROM webhooks ORDER BY created_ms, id", logger: logger)
                .collect().compactMap { row in
                    let (id, url, secret, created) = try row.decode((String, String, String, Int64).self)
                    return URL(string: url).map { Webhook(id: id, url: $0, secret: secret, createdAt: Date(millisecondsSince1970: created)) }
                }
        }
    }

    /// Removes a webhook; see ``WebhookStore/deleteWebhook(id:)``.
    public func deleteWebhook(id: String) async throws -> Bool {
        try await storageErrors {
            try await client.withTransaction(logger: logger) { connection in
                let rows = try await connection.query("DELETE FROM webhooks WHERE id = \(id) RETURNING 1", logger: logger).collect()
                guard !rows.isEmpty else { return false }
                try await connection.query("DELETE FROM outbox WHERE webhook_id = \(id) AND state = 'pending'", logger: logger)
                return true
            }
        }
    }

    /// Claims due deliveries with `FOR UPDATE SKIP LOCKED`; see ``WebhookStore/claimDeliveries(at:limit:leaseSeconds:)``.
    ///
    /// Concurrent workers in any number of processes skip each other's rows, and the lease keeps a
    /// claimed row invisible until it is settled or the lease runs out.
    public func claimDeliveries(at now: Date, limit: Int, leaseSeconds: Double) async throws -> [OutboxDelivery] {
        let nowMillis = now.millisecondsSince1970
        let leaseEnd = now.addingTimeInterval(leaseSeconds).millisecondsSince1970
        return try await storageErrors {
            try await client.query("""
                WITH due AS (
                    SELECT id FROM outbox WHERE state = 'pending' AND next_attempt_ms <= \(nowMillis)
                    ORDER BY next_attempt_ms, id LIMIT \(max(1, limit))
                    FOR UPDATE SKIP LOCKED
                )
                UPDATE outbox o SET attempts = o.attempts + 1, next_attempt_ms = \(leaseEnd), updated_ms = \(nowMillis)
                FROM due, webhooks w
                WHERE o.id = due.id AND w.id = o.webhook_id
                RETURNING o.id, o.webhook_id, o.event_id, o.payload, o.state, o.attempts, o.next_attempt_ms, o.last_error,
                          w.url, w.secret
                """, logger: logger).collect().map { row in
                var delivery = try Self.delivery(from: row)
                let r = row.makeRandomAccess()
                delivery.url = URL(string: try r[8].decode(String.self))
                delivery.secret = try r[9].decode(String.self)
                return delivery
            }
        }
    }

    /// Records an attempt's result; see ``WebhookStore/settleDelivery(id:state:nextAttemptAt:error:at:)``.
    public func settleDelivery(id: Int64, state: OutboxDelivery.State, nextAttemptAt: Date, error: String?, at now: Date) async throws {
        _ = try await storageErrors {
            try await client.query("""
                UPDATE outbox SET state = \(state.rawValue), next_attempt_ms = \(nextAttemptAt.millisecondsSince1970),
                    last_error = \(error), updated_ms = \(now.millisecondsSince1970)
                WHERE id = \(id)
                """, logger: logger)
        }
    }

    /// Dead deliveries back to pending; see ``WebhookStore/requeueDeadDeliveries(id:webhookID:at:)``.
    public func requeueDeadDeliveries(id: Int64?, webhookID: String?, at now: Date) async throws -> Int {
        try await storageErrors {
            try await client.query("""
                UPDATE outbox SET state = 'pending', attempts = 0, next_attempt_ms = \(now.millisecondsSince1970),
                    last_error = NULL, updated_ms = \(now.millisecondsSince1970)
                WHERE state = 'dead' AND (\(id)::int8 IS NULL OR id = \(id)) AND (\(webhookID)::text IS NULL OR webhook_id = \(webhookID))
                RETURNING 1
                """, logger: logger).collect().count
        }
    }

    /// Deliveries by state; see ``WebhookStore/deliveries(state:beforeID:limit:)``.
    public func deliveries(state: OutboxDelivery.State?, beforeID: Int64?, limit: Int) async throws -> [OutboxDelivery] {
        try await storageErrors {
            try await client.query("""
                SELECT id, webhook_id, event_id, payload, state, attempts, next_attempt_ms, last_error FROM outbox
                WHERE id < \(beforeID ?? Int64.max) AND (\(state?.rawValue)::text IS NULL OR state = \(state?.rawValue))
                ORDER BY id DESC LIMIT \(max(1, limit))
                """, logger: logger).collect().map(Self.delivery(from:))
        }
    }

    /// Pending and dead counts; see ``WebhookStore/outboxDepth()``.
    public func outboxDepth() async throws -> (pending: Int, dead: Int) {
        try await storageErrors {
            let row = try await client.query("""
                SELECT count(*) FILTER (WHERE state = 'pending'), count(*) FILTER (WHERE state = 'dead') FROM outbox
                """, logger: logger).collect().first
            guard let row else { return (0, 0) }
            let (pending, dead) = try row.decode((Int64, Int64).self)
            return (Int(pending), Int(dead))
        }
    }

    /// Queues one delivery per event and webhook, inside the ingest transaction.
    func queueDeliveries(_ connection: PostgresConnection, _ records: [FenceEventRecord], nowMillis: Int64) async throws {
        guard !records.isEmpty else { return }
        let ids = records.map(\.id), payloads = records.map(OutboxDelivery.payload(for:))
        try await connection.query("""
            INSERT INTO outbox (webhook_id, event_id, payload, state, attempts, next_attempt_ms, created_ms, updated_ms)
            SELECT w.id, e.id, e.payload, 'pending', 0, \(nowMillis), \(nowMillis), \(nowMillis)
            FROM unnest(\(ids)::int8[], \(payloads)::text[]) AS e(id, payload) CROSS JOIN webhooks w
            """, logger: logger)
    }

    /// Queues one delivery per webhook for each fence event a device reported (``DeviceEventRecord/deviceFenceEventKind``),
    /// inside the ingest transaction; the rows name their source, `device`.
    func queueDeliveries(_ connection: PostgresConnection, deviceEvents records: [DeviceEventRecord], nowMillis: Int64) async throws {
        let payloads = records.compactMap { record in OutboxDelivery.payload(forDeviceEvent: record).map { (record.id, $0) } }
        guard !payloads.isEmpty else { return }
        let ids = payloads.map(\.0), texts = payloads.map(\.1)
        try await connection.query("""
            INSERT INTO outbox (webhook_id, event_source, event_id, payload, state, attempts, next_attempt_ms, created_ms, updated_ms)
            SELECT w.id, 'device', e.id, e.payload, 'pending', 0, \(nowMillis), \(nowMillis), \(nowMillis)
            FROM unnest(\(ids)::int8[], \(texts)::text[]) AS e(id, payload) CROSS JOIN webhooks w
            """, logger: logger)
    }

    static func delivery(from row: PostgresRow) throws -> OutboxDelivery {
        let r = row.makeRandomAccess()
        return OutboxDelivery(
            id: try r[0].decode(Int64.self), webhookID: try r[1].decode(String.self), eventID: try r[2].decode(Int64.self),
            payload: try r[3].decode(String.self),
            state: OutboxDelivery.State(rawValue: try r[4].decode(String.self)) ?? .pending,
            attempts: try r[5].decode(Int.self), nextAttemptAt: Date(millisecondsSince1970: try r[6].decode(Int64.self)),
            lastError: try r[7].decode(String?.self))
    }
}
