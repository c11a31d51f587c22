import Foundation
import GRDBSQLite
import NIOConcurrencyHelpers

/// A SQLite VFS that forwards everything to the default VFS and keeps a ledger of the writes and
/// syncs each file receives: what reached the disk (was synced) and what could still be lost with
/// the page cache.
///
/// Open a database through it with a URI filename, `file:/path/db.sqlite?vfs=waymark-sync-ledger`
/// (SQLite must accept URI filenames: `USE_URI`, on in Debian's and Homebrew's builds).
///
/// Every `sqlite3_file` it opens is laid out as the shim's header (the method table SQLite calls
/// and a slot number in the ledger) followed by the default VFS's own file, and each method
/// forwards to that inner file. Methods of version 3 (memory-mapped reads) are not offered, so
/// SQLite reads through `xRead`, which the ledger need not track.
enum SyncCountingVFS {
    static let name = "waymark-sync-ledger"

    /// What one file received.
    struct FileLedger: Sendable, Equatable {
        /// `xWrite` calls.
        var writes = 0
        /// `xSync` calls.
        var syncs = 0
        /// Writes since the last sync: these would be lost if the machine stopped now.
        var unsyncedWrites = 0
    }

    private struct Ledger {
        var paths: [Int: String] = [:]
        var files: [String: FileLedger] = [:]
        var nextSlot = 1
    }

    private static let ledger = NIOLockedValueBox(Ledger())

    /// What the file at `path` (absolute, as SQLite opened it, e.g. `…/db.sqlite-wal`) has received so far.
    static func ledger(of path: String) -> FileLedger {
        ledger.withLockedValue { $0.files[path] ?? FileLedger() }
    }

    /// Whether SQLite here accepts URI filenames (needed to select this VFS per database).
    static var acceptsURIFilenames: Bool { sqlite3_compileoption_used("USE_URI") == 1 }

    /// Registers the VFS once (not as the default); returns whether it is available.
    @discardableResult
    static func register() -> Bool { registered }

    private static let registered: Bool = {
        guard let inner = sqlite3_vfs_find(nil) else { return false }
        let vfs = UnsafeMutablePointer<sqlite3_vfs>.allocate(capacity: 1)
        vfs.initialize(to: inner.pointee)   // the unix VFS's other methods read only mxPathname and pAppData
        vfs.pointee.pNext = nil
        vfs.pointee.zName = UnsafePointer(strdup(name))
        vfs.pointee.szOsFile = Int32(headerBytes) + inner.pointee.szOsFile
        vfs.pointee.pAppData = UnsafeMutableRawPointer(inner)
        vfs.pointee.xOpen = { vfs, path, file, flags, outFlags in
            guard let vfs, let file, let inner = vfs.pointee.pAppData?.assumingMemoryBound(to: sqlite3_vfs.self) else {
                return SQLITE_MISUSE
            }
            file.pointee.pMethods = nil
            let code = inner.pointee.xOpen(inner, path, SyncCountingVFS.innerFile(file), flags, outFlags)
            guard code == SQLITE_OK else { return code }
            let name = path.map { String(cString: $0) } ?? ""
            let slot = SyncCountingVFS.ledger.withLockedValue { ledger -> Int in
                defer { ledger.nextSlot += 1 }
                ledger.paths[ledger.nextSlot] = name
                return ledger.nextSlot
            }
            UnsafeMutableRawPointer(file).storeBytes(of: slot, toByteOffset: slotOffset, as: Int.self)
            file.pointee.pMethods = UnsafePointer(SyncCountingVFS.methods)
            return SQLITE_OK
        }
        return sqlite3_vfs_register(vfs, 0) == SQLITE_OK
    }()

    private static let slotOffset = MemoryLayout<sqlite3_file>.stride
    private static let headerBytes = slotOffset + MemoryLayout<Int>.stride

    static func innerFile(_ file: UnsafeMutablePointer<sqlite3_file>) -> UnsafeMutablePointer<sqlite3_file> {
        (UnsafeMutableRawPointer(file) + headerBytes).assumingMemoryBound(to: sqlite3_file.self)
    }

    private static func inner(_ file: UnsafeMutablePointer<sqlite3_file>?) -> (UnsafeMutablePointer<sqlite3_file>, sqlite3_io_methods) {
        let inner = innerFile(file!)
        return (inner, inner.pointee.pMethods!.pointee)
    }

    private static func record(_ file: UnsafeMutablePointer<sqlite3_file>?, _ change: (inout FileLedger) -> Void) {
        let slot = UnsafeMutableRawPointer(file!).load(fromByteOffset: slotOffset, as: Int.self)
        ledger.withLockedValue { ledger in
            guard let path = ledger.paths[slot], !path.isEmpty else { return }
            change(&ledger.files[path, default: FileLedger()])
        }
    }

    /// Written once, then only read by SQLite.
    nonisolated(unsafe) private static let methods: UnsafeMutablePointer<sqlite3_io_methods> = {
        var m = sqlite3_io_methods()
        m.iVersion = 2
        m.xClose = { file in
            let (f, methods) = SyncCountingVFS.inner(file)
            return methods.xClose(f)
        }
        m.xRead = { file, buffer, amount, offset in
            let (f, methods) = SyncCountingVFS.inner(file)
            return methods.xRead(f, buffer, amount, offset)
        }
        m.xWrite = { file, buffer, amount, offset in
            let (f, methods) = SyncCountingVFS.inner(file)
            let code = methods.xWrite(f, buffer, amount, offset)
            if code == SQLITE_OK {
                SyncCountingVFS.record(file) { $0.writes += 1; $0.unsyncedWrites += 1 }
            }
            return code
        }
        m.xTruncate = { file, size in
            let (f, methods) = SyncCountingVFS.inner(file)
            return methods.xTruncate(f, size)
        }
        m.xSync = { file, flags in
            let (f, methods) = SyncCountingVFS.inner(file)
            let code = methods.xSync(f, flags)
            if code == SQLITE_OK {
                SyncCountingVFS.record(file) { $0.syncs += 1; $0.unsyncedWrites = 0 }
            }
            return code
        }
        m.xFileSize = { file, size in
            let (f, methods) = SyncCountingVFS.inner(file)
            return methods.xFileSize(f, size)
        }
        m.xLock = { file, lock in
            let (f, methods) = SyncCountingVFS.inner(file)
            return methods.xLock(f, lock)
        }
        m.xUnlock = { file, lock in
            let (f, methods) = SyncCountingVFS.inner(file)
            return methods.xUnlock(f, lock)
        }
        m.xCheckReservedLock = { file, result in
            let (f, methods) = SyncCountingVFS.inner(file)
            return methods.xCheckReservedLock(f, result)
        }
        m.xFileControl = { file, op, argument in
            let (f, methods) = SyncCountingVFS.inner(file)
            return methods.xFileControl(f, op, argument)
        }
        m.xSectorSize = { file in
            let (f, methods) = SyncCountingVFS.inner(file)
            return methods.xSectorSize(f)
        }
        m.xDeviceCharacteristics = { file in
            let (f, methods) = SyncCountingVFS.inner(file)
            return methods.xDeviceCharacteristics(f)
        }
        m.xShmMap = { file, page, pageSize, extend, pointer in
            let (f, methods) = SyncCountingVFS.inner(file)
            return methods.xShmMap(f, page, pageSize, extend, pointer)
        }
        m.xShmLock = { file, offset, count, flags in
            let (f, methods) = SyncCountingVFS.inner(file)
            return methods.xShmLock(f, offset, count, flags)
        }
        m.xShmBarrier = { file in
            let (f, methods) = SyncCountingVFS.inner(file)
            methods.xShmBarrier(f)
        }
        m.xShmUnmap = { file, delete in
            let (f, methods) = SyncCountingVFS.inner(file)
            return methods.xShmUnmap(f, delete)
        }
        let pointer = UnsafeMutablePointer<sqlite3_io_methods>.allocate(capacity: 1)
        pointer.initialize(to: m)
        return pointer
    }()
}
