import Foundation
import GRDB

extension SQLiteStore {
    /// Adds a webhook; see ``WebhookStore/insertWebhook(_:)``.
    public func insertWebhook(_ webhook: Webhook) async throws {
        try await storageErrors {
            try await pool.write { db in
                try db.execute(sql: "INSERT INTO webhooks (id, url, secret, created_ms) VALUES (?, ?, ?, ?)",
                               arguments: [webhook.id, webhook.url.absoluteString, webhook.secret, webhook.createdAt.millisecondsSince1970])
            }
        }
    }

    /// Adds a webhook below a cap; see ``WebhookStore/insertWebhook(_:ifFewerThan:)``. The count and the insert are
    /// one write transaction, and SQLite runs one writer at a time (across processes too), so none can pass the cap.
    public func insertWebhook(_ webhook: Webhook, ifFewerThan limit: Int) async throws -> Int {
        try await storageErrors {
            try await pool.write { db in
                let existing = try Int.fetchOne(db, sql: "SELECT count(*) FROM webhooks") ?? 0
                guard existing < limit else { return existing }
                try db.execute(sql: "INSERT INTO webhooks (id, url, secret, created_ms) VALUES (?, ?, ?, ?)",
                               arguments: [webhook.id, webhook.url.absoluteString, webhook.secret, webhook.createdAt.millisecondsSince1970])
                return existing
            }
        }
    }

    /// One page of webhooks by id; see ``WebhookStore/webhooks(after:limit:)``.
    public func webhooks(after afterID: String?, limit: Int) async throws -> [Webhook] {
        try await storageErrors {
            try await pool.read { db in
                try Row.fetchAll(db, sql: "SELECT * FROM webhooks WHERE id > ? ORDER BY id LIMIT ?",
                                 arguments: [afterID ?? "", max(1, limit)]).compactMap(Self.webhook(from:))
            }
        }
    }

    static func webhook(from row: Row) -> Webhook? {
        URL(string: row["url"]).map { Webhook(id: row["id"], url: $0, secret: row["secret"],
                                              createdAt: Date(millisecondsSince1970: row["created_ms"])) }
    }

    /// Every webhook; see ``WebhookStore/listWebhooks()``.
    public func listWebhooks() async throws -> [Webhook] {
        try await storageErrors {
            try await pool.read { db in
                try Row.fetchAll(db, sql: "SELECT * FROM webhooks ORDER BY created_ms, id").compactMap(Self.webhook(from:))
            }
        }
    }

    /// Removes a webhook; see ``WebhookStore/deleteWebhook(id:)``.
    public func deleteWebhook(id: String) async throws -> Bool {
        try await storageErrors {
            try await pool.write { db in
                try db.execute(sql: "DELETE FROM webhooks WHERE id = ?", arguments: [id])
                guard db.changesCount > 0 else { return false }
                try db.execute(sql: "DELETE FROM outbox WHERE webhook_id = ? AND state = 'pending'", arguments: [id])
                return true
            }
        }
    }

    /// Claims due deliveries; see ``WebhookStore/claimDeliveries(at:limit:leaseSeconds:)``. SQLite serialises writers,
    /// so the claim needs no row locks; run one worker per database file.
    public func claimDeliveries(at now: Date, limit: Int, leaseSeconds: Double) async throws -> [OutboxDelivery] {
        let nowMillis = now.millisecondsSince1970
        let leaseEnd = now.addingTimeInterval(leaseSeconds).millisecondsSince1970
        return try await storageErrors {
            try await pool.write { db in
                let rows = try Row.fetchAll(db, sql: """
                    SELECT o.*, w.url, w.secret FROM outbox o JOIN webhooks w ON w.id = o.webhook_id
                    WHERE o.state = 'pending' AND o.next_attempt_ms <= ? ORDER BY o.next_attempt_ms, o.id LIMIT ?
                    """, arguments: [nowMillis, max(1, limit)])
                let update = try db.cachedStatement(sql: """
                    UPDATE outbox SET attempts = attempts + 1, next_attempt_ms = ?, updated_ms = ? WHERE id = ?
                    """)
                return try rows.map { row in
                    try update.execute(arguments: [leaseEnd, nowMillis, row["id"]])
                    var delivery = Self.delivery(from: row)
                    delivery.attempts += 1
                    delivery.nextAttemptAt = Date(millisecondsSince1970: leaseEnd)
                    delivery.url = URL(string: row["url"])
                    delivery.secret = row["secret"]
                    return delivery
                }
            }
        }
    }

    /// Records an attempt's result; see ``WebhookStore/settleDelivery(id:state:nextAttemptAt:error:at:)``.
    public func settleDelivery(id: Int64, state: OutboxDelivery.State, nextAttemptAt: Date, error: String?, at now: Date) async throws {
        try await storageErrors {
            try await pool.write { db in
                try db.execute(sql: "UPDATE outbox SET state = ?, next_attempt_ms = ?, last_error = ?, updated_ms = ? WHERE id = ?",
                               arguments: [state.rawValue, nextAttemptAt.millisecondsSince1970, error, now.millisecondsSince1970, id])
            }
        }
    }

    /// Dead deliveries back to pending; see ``WebhookStore/requeueDeadDeliveries(id:webhookID:at:)``.
    public func requeueDeadDeliveries(id: Int64?, webhookID: String?, at now: Date) async throws -> Int {
        try await storageErrors {
            try await pool.write { db in
                try db.execute(sql: """
                    UPDATE outbox SET state = 'pending', attempts = 0, next_attempt_ms = ?, last_error = NULL, updated_ms = ?
                    WHERE state = 'dead' AND (? IS NULL OR id = ?) AND (? IS NULL OR webhook_id = ?)
                    """, arguments: [now.millisecondsSince1970, now.millisecondsSince1970, id, id, webhookID, webhookID])
                return db.changesCount
            }
        }
    }

    /// Deliveries by state; see ``WebhookStore/deliveries(state:beforeID:limit:)``.
    public func deliveries(state: OutboxDelivery.State?, beforeID: Int64?, limit: Int) async throws -> [OutboxDelivery] {
        try await storageErrors {
            try await pool.read { db in
                try Row.fetchAll(db, sql: "SELECT * FROM outbox WHERE id < ? AND (? IS NULL OR state = ?) ORDER BY id DESC LIMIT ?",
                                 arguments: [beforeID ?? Int64.max, state?.rawValue, state?.rawValue, max(1, limit)])
                    .map(Self.delivery(from:))
            }
        }
    }

    /// Pending and dead counts; see ``WebhookStore/outboxDepth()``.
    public func outboxDepth() async throws -> (pending: Int, dead: Int) {
        try await storageErrors {
            try await pool.read { db in
                let pending = try Int.fetchOne(db, sql: "SELECT count(*) FROM outbox WHERE state = 'pending'") ?? 0
                let dead = try Int.fetchOne(db, sql: "SELECT count(*) FROM outbox WHERE state = 'dead'") ?? 0
                return (pending, dead)
            }
        }
    }

    /// Queues one delivery per event and webhook, inside the ingest transaction.
    static func queueDeliveries(_ db: Database, _ records: [FenceEventRecord], nowMillis: Int64) throws {
        guard !records.isEmpty else { return }
        let hooks = try String.fetchAll(db, sql: "SELECT id FROM webhooks")
        guard !hooks.isEmpty else { return }
        let insert = try db.cachedStatement(sql: """
            INSERT INTO outbox (webhook_id, event_id, payload, state, attempts, next_attempt_ms, created_ms, updated_ms)
            VALUES (?, ?, ?, 'pending', 0, ?, ?, ?)
            """)
        for record in records {
            let payload = OutboxDelivery.payload(for: record)
            for hook in hooks { try insert.execute(arguments: [hook, record.id, payload, nowMillis, nowMillis, nowMillis]) }
        }
    }

    /// Queues one delivery per webhook for each fence event a device reported (``DeviceEventRecord/deviceFenceEventKind``),
    /// inside the ingest transaction; the rows name their source, `device`.
    static func queueDeliveries(_ db: Database, deviceEvents records: [DeviceEventRecord], nowMillis: Int64) throws {
        let payloads = records.compactMap { record in OutboxDelivery.payload(forDeviceEvent: record).map { (record.id, $0) } }
        guard !payloads.isEmpty else { return }
        let hooks = try String.fetchAll(db, sql: "SELECT id FROM webhooks")
        guard !hooks.isEmpty else { return }
        let insert = try db.cachedStatement(sql: """
            INSERT INTO outbox (webhook_id, event_source, event_id, payload, state, attempts, next_attempt_ms, created_ms, updated_ms)
            VALUES (?, 'device', ?, ?, 'pending', 0, ?, ?, ?)
            """)
        for (id, payload) in payloads {
            for hook in hooks { try insert.execute(arguments: [hook, id, payload, nowMillis, nowMillis, nowMillis]) }
        }
    }

    static func delivery(from row: Row) -> OutboxDelivery {
        OutboxDelivery(id: row["id"], webhookID: row["webhook_id"], eventID: row["event_id"], payload: row["payload"],
                       state: OutboxDelivery.State(rawValue: row["state"]) ?? .pending, attempts: row["attempts"],
                       nextAttemptAt: Date(millisecondsSince1970: row["next_attempt_ms"]), lastError: row["last_error"])
    }
}
