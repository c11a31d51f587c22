import NIOConcurrencyHelpers

/// The fence engine a store evaluates ingest with, rebuilt when the stored fence set changes.
///
/// Every change to the fences bumps a generation number in the database in the same
/// transaction; an ingest transaction reads the generation and rebuilds the engine only when
/// it differs, so several processes sharing one database see each other's fences.
/// Thread-safe (a lock around one value); `Sendable`.
final class FenceCache: Sendable {
    private let current = NIOLockedValueBox<(generation: Int64, engine: FenceEngine)?>(nil)
    private let loading = NIOLockedValueBox<(generation: Int64, task: Task<FenceEngine, any Error>)?>(nil)

    /// The engine built last and its generation, or nil before the first.
    var cached: (generation: Int64, engine: FenceEngine)? { current.withLockedValue { $0 } }

    /// The engine for `generation`, building it with `load` when the cached one is older.
    func engine(generation: Int64, load: () throws -> [ServerFence]) rethrows -> FenceEngine {
        if let cached = current.withLockedValue({ $0 }), cached.generation == generation { return cached.engine }
        let engine = FenceEngine(fences: try load())
        current.withLockedValue { $0 = (generation, engine) }
        return engine
    }

    /// The engine for `generation` (async loader variant, for PostgreSQL).
    ///
    /// Single flight: while one task loads a generation, the others wait for its result instead
    /// of each loading every fence (at start-up, every connection would otherwise do it at once).
    func engine(generation: Int64, load: @escaping @Sendable () async throws -> [ServerFence]) async throws -> FenceEngine {
        if let cached = current.withLockedValue({ $0 }), cached.generation == generation { return cached.engine }
        let task = loading.withLockedValue { flight -> Task<FenceEngine, any Error> in
            if let flight, flight.generation == generation { return flight.task }
            let task = Task { FenceEngine(fences: try await load()) }
            flight = (generation, task)
            return task
        }
        do {
            let engine = try await task.value
            current.withLockedValue { $0 = (generation, engine) }
            return engine
        } catch {
            loading.withLockedValue { if $0?.generation == generation { $0 = nil } }
            throw error
        }
    }
}
