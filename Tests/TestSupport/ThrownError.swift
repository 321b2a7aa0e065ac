// Only where the toolchain offers Testing to this target: a test build has
// it, `swift build -c release` (which builds every target) does not.
#if canImport(Testing)
public import Testing

/// The error `body` throws, as `let error = thrownError(E.self) { … }`
/// gives it from swift-testing 6.1 on (Debian 13's 6.0 returns nothing); an
/// issue, and nil, when `body` throws nothing or an error of another type.
public func thrownError<E: Error, R>(
    _ type: E.Type, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> R
) -> E? {
    do {
        _ = try body()
        Issue.record("expected \(E.self) to be thrown; nothing was", sourceLocation: sourceLocation)
    } catch let error as E {
        return error
    } catch {
        Issue.record("expected \(E.self) to be thrown; \(error) was", sourceLocation: sourceLocation)
    }
    return nil
}
#endif
