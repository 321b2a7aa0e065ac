// orient-example: follows orientd's state and lays out three items along the
// axis it gives, showing a landscape-only "player" view for a while.
//
//   orient-example [--socket PATH] [--states N]
//
// Prints one line per state: the orientation and the items' frames. With
// --states N it stops after N states (default: run until interrupted).
#if canImport(Glibc)
import Glibc
#endif
import OrientClient
import OrientProtocol

var socketPath: String?
var limit = Int.max
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--socket": socketPath = arguments.popFirst()
    case "--states": limit = arguments.popFirst().flatMap { Int($0) } ?? limit
    default:
        print("usage: orient-example [--socket PATH] [--states N]")
        exit(64)
    }
}

let client = OrientClient(socketPath: socketPath)
let items = [Size(width: 160, height: 90), Size(width: 120, height: 120), Size(width: 200, height: 40)]
let window = Size(width: 480, height: 480)

let player = PlayerView(client: client)
var seen = 0
// The current state first, then every change, across daemon restarts.
for await state in client.states() {
    seen += 1
    let frames = AdaptiveStack.layout(sizes: items, in: window, for: state, alignment: .center, spacing: 8)
    let shown = frames.map { "(\(Int($0.x)),\(Int($0.y)) \(Int($0.width))×\(Int($0.height)))" }.joined(separator: " ")
    print("\(state.orientation.rawValue) \(state.axis.rawValue): \(shown)" + (player.isShown ? " [player shown]" : ""))
    if seen >= limit { break }
    // Show the player from the second state on, hide it again after the fourth.
    do {
        if seen == 2 { try await player.show() }
        if seen == 4 { try await player.hide() }
    } catch {
        print("orient-example: \(error)")
    }
}
try? await player.hide()
