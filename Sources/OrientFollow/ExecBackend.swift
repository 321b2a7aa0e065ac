/// No compositor commands: only the `--exec` template runs (see `FollowPlan`).
public struct ExecBackend: FollowBackend {
    public init() {}

    public var kind: BackendKind { .exec }

    public var outputQuery: [String]? { nil }

    public func outputNames(fromQuery text: String) -> [String] { [] }

    public func commands(for change: OrientationChange, output: String, answers: [String]) -> [[String]] { [] }
}
