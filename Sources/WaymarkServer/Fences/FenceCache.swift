import NIOConcurrencyHelpers

/// The fence engine a store evaluates ingest with, rebuilt when the stored fence set changes.
///
/// Every change to the fences bumps a generation number in the database in the same
/// transaction; an ingest transaction reads the generation and rebuilds the engine only when
/// it differs, so several processes sharing one database see each other's fences.
/// Thread-safe (a lock around one value); `Sendable`.
final class FenceCache: Sendable {
    private let current = NIOLockedValueBox<(generation: Int64, engine: FenceEngine)?>(nil)

    /// The engine for `generation`, building it with `load` when the cached one is older.
    func engine(generation: Int64, load: () throws -> [Fence]) rethrows -> FenceEngine {
        if let cached = current.withLockedValue({ $0 }), cached.generation == generation { return cached.engine }
        let engine = FenceEngine(fences: try load())
        current.withLockedValue { $0 = (generation, engine) }
        return engine
    }

    /// The engine for `generation` (async loader variant, for PostgreSQL).
    func engine(generation: Int64, load: () async throws -> [Fence]) async throws -> FenceEngine {
        if let cached = current.withLockedValue({ $0 }), cached.generation == generation { return cached.engine }
        let engine = FenceEngine(fences: try await load())
        current.withLockedValue { $0 = (generation, engine) }
        return engine
    }
}
