import Foundation
import WaymarkGeo
import WaymarkTransport
@testable import WaymarkExampleModels

/// A `waymark serve` stand-in the app uploads to: it reads each native batch with the format's
/// own decoder, commits it once per idempotency key, and counts what it stores by fix time.
///
/// It can fail the next requests with given answers, and it can lose its answer: commit a batch
/// and then never reply, as when the phone is killed (or the connection drops) after the server
/// committed. A lost answer ends only when the sending task is cancelled.
actor FakeServer {
    /// Every request received, in order.
    private(set) var received: [UploadRequest] = []
    /// The times of the fixes stored, in arrival order; each at most once.
    private(set) var storedFixes: [Date] = []
    /// The gap markers stored.
    private(set) var storedGaps: [NativeBatchFormat.Gap] = []
    /// Fixes that arrived a second time under a new key (a fix stored twice would be a bug).
    private(set) var duplicates = 0
    /// Requests being held without an answer right now.
    private(set) var hanging = 0
    private var committedKeys: Set<String> = []
    /// The fences `GET /api/fences` lists (GeoJSON features by id) and the set's version (its `ETag`).
    private var fenceFeatures: [String: String] = [:]
    private var fenceVersion = 0
    /// Every fence request, with the answer's status (200 or 304).
    private(set) var fenceRequests: [(request: FenceListRequest, status: Int)] = []

    /// Sets the fences the server holds: circles of `radius` metres (a new version of the set).
    func setFences(_ fences: [(id: String, name: String, center: Coordinate, radius: Double)]) {
        fenceFeatures = Dictionary(uniqueKeysWithValues: fences.map { fence in
            (fence.id, #"{"type":"Feature","id":"\#(fence.id)","geometry":{"type":"Point","coordinates":[\#(fence.center.longitude),\#(fence.center.latitude)]},"properties":{"name":"\#(fence.name)","radiusMeters":\#(fence.radius)}}"#)
        })
        fenceVersion += 1
    }

    /// `GET /api/fences` as `waymark serve` answers it: one page (the fake holds few), tagged with the
    /// set's version; 304 without a body when `If-None-Match` names it.
    func handleFences(_ request: FenceListRequest) -> FenceListResponse {
        guard request.token == "wmd_test" else { return .status(401, body: []) }
        let tag = "\"fences-\(fenceVersion)\""
        if request.ifNoneMatch == tag {
            fenceRequests.append((request, 304))
            return .notModified
        }
        fenceRequests.append((request, 200))
        let features = fenceFeatures.keys.sorted().compactMap { fenceFeatures[$0] }.joined(separator: ",")
        return .page(body: Array(#"{"type":"FeatureCollection","features":[\#(features)]}"#.utf8), etag: tag)
    }
    private var failures: [UploadResponse] = []
    private var answersToLose = 0

    /// The next requests get these answers, in order, and store nothing.
    func fail(next responses: [UploadResponse]) { failures = responses }

    /// The next `count` requests are committed, then never answered.
    func loseAnswers(next count: Int) { answersToLose = count }

    func handle(_ request: UploadRequest) async -> UploadResponse {
        received.append(request)
        guard request.token == "wmd_test" else {
            return .status(401, body: Array(#"{"error":{"message":"unknown or expired token"}}"#.utf8))
        }
        if !failures.isEmpty { return failures.removeFirst() }
        if committedKeys.insert(request.key).inserted {
            guard let batch = try? NativeBatchFormat.decode(request.body) else {
                return .status(400, body: Array(#"{"error":{"message":"not a native batch"}}"#.utf8))
            }
            for fix in batch.fixes {
                if storedFixes.contains(fix.timestamp) { duplicates += 1 } else { storedFixes.append(fix.timestamp) }
            }
            storedGaps += batch.gaps
        }
        if answersToLose > 0 {
            answersToLose -= 1
            hanging += 1
            // No answer until the sender gives up (its task is cancelled: the process died).
            let (silence, _) = AsyncStream<Never>.makeStream()
            for await _ in silence {}
            hanging -= 1
            return .cancelled
        }
        return .status(200, body: Array(#"{"result":"ok","stored":1}"#.utf8))
    }
}

/// The app's transport to the ``FakeServer``: uploads and the fence list.
struct FakeServerTransport: UploadTransport, FenceListTransport {
    let server: FakeServer
    func send(_ request: UploadRequest) async -> UploadResponse { await server.handle(request) }
    func fetchFences(_ request: FenceListRequest) async -> FenceListResponse { await server.handleFences(request) }
}
