import OrientClient
import OrientProtocol

/// A "view" that only makes sense in landscape, like a video player: while it
/// is shown it holds a constraint allowing `landscape` (both landscape
/// orientations, whichever way the panel is built), and hiding it releases
/// the constraint, as SwiftUI's `.supportedInterfaceOrientations(.landscape)`
/// applies while a view is on screen.
final class PlayerView {
    private let client: OrientClient
    private var constraint: ConstraintHandle?

    init(client: OrientClient) {
        self.client = client
    }

    var isShown: Bool { constraint != nil }

    /// Shows the view: from now on the daemon keeps the screen in landscape.
    func show() async throws(OrientClientError) {
        guard constraint == nil else { return }
        constraint = try await client.constrain(id: "example-player", allow: [.landscape])
    }

    /// Hides the view: the screen may rotate freely again. (Dropping the handle
    /// would release it too; the daemon also drops it if the app exits.)
    func hide() async throws(OrientClientError) {
        guard let constraint else { return }
        self.constraint = nil
        try await constraint.release()
    }
}
