/// niri: `niri msg output NAME transform T`. niri maps touch input to an
/// output from its own configuration (`input { touch { map-to-output … } }`).
public struct NiriBackend: FollowBackend {
    public init() {}

    public var kind: BackendKind { .niri }

    public var outputQuery: [String]? { ["niri", "msg", "--json", "outputs"] }

    /// `niri msg --json outputs` prints an object keyed by connector name.
    public func outputNames(fromQuery text: String) throws(FollowError) -> [String] {
        let value = try parseJSON(text, tool: "niri msg --json outputs")
        guard let members = value.members else {
            throw FollowError("niri msg --json outputs printed \(value.kindDescription) where an object of outputs was expected")
        }
        return members.map { $0.key }
    }

    public func commands(for change: OrientationChange, output: String, answers: [String]) -> [[String]] {
        [["niri", "msg", "output", output, "transform", change.transform.wlOutputName]]
    }
}
