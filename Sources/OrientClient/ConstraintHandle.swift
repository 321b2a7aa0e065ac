import Synchronization

/// A constraint registered with `OrientClient.constrain(id:allow:)`: the
/// orientations the app accepts, held until released.
///
/// ```swift
/// let handle = try await client.constrain(id: "camera", allow: [.portrait])
/// // … the camera view is on screen …
/// try await handle.release()
/// ```
///
/// Dropping the last reference releases the constraint too (fire-and-forget),
/// like a view disappearing. A later `constrain` with the same id supersedes
/// this handle: releasing (or dropping) the older handle then does nothing, so
/// `handle = try await client.constrain(id: "player", allow: …)` updates in place.
/// The handle keeps its client alive.
public final class ConstraintHandle: Sendable {
    /// The constraint's id on this client's connection.
    public let id: String
    /// The mask names it allows, as given.
    public let allow: [String]
    private let generation: UInt64
    private let client: OrientClient
    private let released = Atomic<Bool>(false)

    init(id: String, allow: [String], generation: UInt64, client: OrientClient) {
        self.id = id
        self.allow = allow
        self.generation = generation
        self.client = client
    }

    /// Whether `release()` was called.
    public var isReleased: Bool { released.load(ordering: .acquiring) }

    /// Releases the constraint (`release`) and waits for the daemon. Releasing
    /// twice, or a superseded handle, does nothing. Succeeds when the connection
    /// is down, since the daemon drops a connection's constraints when it closes
    /// (and the client will not re-register this one).
    public func release() async throws(OrientClientError) {
        guard !released.exchange(true, ordering: .acquiringAndReleasing) else { return }
        try await client.release(id: id, generation: generation)
    }

    deinit {
        if !released.load(ordering: .acquiring) {
            client.releaseInBackground(id: id, generation: generation)
        }
    }
}
