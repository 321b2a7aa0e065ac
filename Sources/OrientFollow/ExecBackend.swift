/// No compositor commands: only the `--exec` template runs (see `FollowPlan`).
package struct ExecBackend: FollowBackend {
    package init() {}

    package var kind: BackendKind { .exec }

    package var outputQuery: [String]? { nil }

    package func outputNames(fromQuery text: String) -> [String] { [] }

    package func commands(for change: OrientationChange, output: String, answers: [String]) -> [[String]] { [] }
}
