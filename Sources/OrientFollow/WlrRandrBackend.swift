/// Any compositor with wlr-output-management (river, labwc, Wayfire, …):
/// `wlr-randr --output NAME --transform T`. Touch mapping is the compositor's.
public struct WlrRandrBackend: FollowBackend {
    public init() {}

    public var kind: BackendKind { .wlrRandr }

    public var outputQuery: [String]? { ["wlr-randr"] }

    /// Each output starts a line at column 0 with its name (then its
    /// description in quotes); its details follow, indented.
    public func outputNames(fromQuery text: String) -> [String] {
        text.split(separator: "\n").compactMap { line in
            guard let first = line.first, first != " ", first != "\t" else { return nil }
            return line.split(separator: " ", maxSplits: 1).first.map(String.init)
        }
    }

    public func commands(for change: OrientationChange, output: String, answers: [String]) -> [[String]] {
        [["wlr-randr", "--output", output, "--transform", change.transform.wlOutputName]]
    }
}
