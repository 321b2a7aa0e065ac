// `tracegen plot`: replays a trace through the classifier and draws what it
// saw and decided as an SVG (docs/classifier.md, "Plots").
//
// It lives in tracegen, not orientctl: orientctl speaks only the protocol and
// does not link the classifier, while tracegen already links it to write traces.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import OrientProtocol
import OrientSense

/// One step of a replay: the filtered features and the classifier's state after it.
struct PlotPoint {
    var tMs: Double
    var theta: Double
    var tilt: Double
    var magnitude: Double
    var rawMagnitude: Double
    var published: Orientation
    var diagnostics: ClassifierDiagnostics
    /// The hinge detector after this reading, for a trace with a base accelerometer.
    var hinge: HingePoint?
}

/// The hinge angle of one reading and the tablet mode after it.
struct HingePoint {
    /// `HingeAngle.degrees` of the pair, nil when it cannot be known (hinge vertical).
    var angle: Double?
    /// Whether the detector used the reading (not moving, not vertical).
    var trusted: Bool
    var mode: TabletMode
    var hold: HingeHold?
}

/// Replays `trace` (mount matrix applied) through a classifier with `config`, a
/// point per reading.
///
/// With base samples, each reading is paired with the base's latest at or
/// before its time and fed to a `HingeModeDetector` with `hinge`.
func replayForPlot(_ trace: Trace, config: ClassifierConfig, hinge: HingeConfig) -> [PlotPoint] {
    var classifier = Classifier(config: config)
    var detector = HingeModeDetector(config: hinge)
    var nextBase = 0
    var points: [PlotPoint] = []
    points.reserveCapacity(trace.samples.count)
    for sample in trace.samples {
        let panel = Sample(tMs: sample.tMs, vector: trace.mountMatrix.apply(sample.vector))
        var hingePoint: HingePoint?
        while nextBase < trace.baseSamples.count, trace.baseSamples[nextBase].tMs <= sample.tMs { nextBase += 1 }
        if nextBase > 0 {
            let base = trace.baseMountMatrix.apply(trace.baseSamples[nextBase - 1].vector)
            detector.update(tMs: sample.tMs, lid: panel.vector, base: base)
            let angle = HingeAngle.degrees(lid: panel.vector, base: base, config: hinge)
            let trusted = detector.hold == nil || detector.hold == .folded
            hingePoint = HingePoint(angle: angle, trusted: trusted, mode: detector.mode, hold: detector.hold)
        }
        var lastTick = -Double.infinity
        while let deadline = classifier.nextDeadline, deadline < sample.tMs, deadline > lastTick {
            lastTick = deadline
            _ = classifier.tick(atMs: deadline)
        }
        _ = classifier.process(panel)
        guard let f = classifier.filtered else { continue }
        let m = (f * f).sum().squareRoot()
        let raw = (panel.vector * panel.vector).sum().squareRoot()
        var theta = atan2(f.x, -f.y) * 180 / .pi
        if theta < 0 { theta += 360 }
        let tilt = m > 0 ? asin(max(-1, min(1, config.zSign * f.z / m))) * 180 / .pi : 0
        points.append(PlotPoint(
            tMs: sample.tMs, theta: theta, tilt: tilt, magnitude: m, rawMagnitude: raw.isFinite ? raw : 0,
            published: classifier.orientation, diagnostics: classifier.diagnostics, hinge: hingePoint))
    }
    return points
}

/// Colours of the orientations (bands and the published line).
func colour(_ o: Orientation?) -> String {
    switch o {
    case .normal?: "#1b9e77"
    case .leftUp?: "#d95f02"
    case .bottomUp?: "#7570b3"
    case .rightUp?: "#e7298a"
    default: "#bbbbbb"
    }
}

func escapeXML(_ text: String) -> String {
    var out = ""
    for c in text {
        switch c {
        case "&": out += "&amp;"
        case "<": out += "&lt;"
        case ">": out += "&gt;"
        case "\"": out += "&quot;"
        default: out.append(c)
        }
    }
    return out
}

func fmt(_ x: Double) -> String {
    let r = (x * 10).rounded() / 10
    return r == r.rounded() ? String(Int(r)) : String(r)
}

/// Colours of the tablet modes (the hinge panel and the state strip).
func colour(_ mode: TabletMode) -> String {
    switch mode {
    case .tablet: "#1f78b4"
    case .laptop: "#b15928"
    case .unknown: "#bbbbbb"
    }
}

/// The SVG: four panels sharing the time axis, five with a hinge angle.
func renderPlot(_ points: [PlotPoint], title: String, config: ClassifierConfig, zSource: String, hinge: HingeConfig? = nil) -> String {
    let width = 1200.0, left = 70.0, right = 20.0, plotWidth = width - left - right
    let t0 = points.first?.tMs ?? 0, t1 = max((points.last?.tMs ?? 1), t0 + 1)
    func x(_ t: Double) -> Double { left + (t - t0) / (t1 - t0) * plotWidth }
    var svg = ""
    var top = 50.0
    func panel(_ name: String, height: Double, range: ClosedRange<Double>, ticks: [Double], unit: String,
               body: (_ y: (Double) -> Double) -> Void) {
        func y(_ v: Double) -> Double { top + height - (min(max(v, range.lowerBound), range.upperBound) - range.lowerBound) / (range.upperBound - range.lowerBound) * height }
        svg += "<rect x='\(fmt(left))' y='\(fmt(top))' width='\(fmt(plotWidth))' height='\(fmt(height))' fill='white' stroke='#444'/>\n"
        for tick in ticks {
            svg += "<line x1='\(fmt(left))' x2='\(fmt(left + plotWidth))' y1='\(fmt(y(tick)))' y2='\(fmt(y(tick)))' stroke='#eee'/>"
            svg += "<text x='\(fmt(left - 4))' y='\(fmt(y(tick) + 4))' text-anchor='end'>\(fmt(tick))</text>\n"
        }
        svg += "<text x='12' y='\(fmt(top + height / 2))' transform='rotate(-90 12 \(fmt(top + height / 2)))' text-anchor='middle'>\(escapeXML(name)) \(unit.isEmpty ? "" : " (\(unit))")</text>\n"
        body(y)
        top += height + 30
    }
    func polyline(_ values: [(Double, Double)], colour: String, width: Double = 1.2) -> String {
        guard !values.isEmpty else { return "" }
        // A jump of more than 180° (θ wrapping) breaks the line.
        var out = "", current: [String] = []
        var last: Double?
        for (t, v) in values {
            if let l = last, abs(v - l) > 180 {
                out += "<polyline fill='none' stroke='\(colour)' stroke-width='\(width)' points='\(current.joined(separator: " "))'/>\n"
                current = []
            }
            current.append("\(fmt(x(t))),\(fmt(v))")
            last = v
        }
        out += "<polyline fill='none' stroke='\(colour)' stroke-width='\(width)' points='\(current.joined(separator: " "))'/>\n"
        return out
    }
    // θ with the hysteresis bands: each orientation's centre ±(45 − gap/2) is
    // where it is kept; leaving needs 45 + gap/2.
    panel("in-plane angle θ, filtered", height: 220, range: 0...360, ticks: [0, 90, 180, 270, 360], unit: "°") { y in
        let stay = 45 - config.adjacentGapDeg / 2
        for turns in 0...4 {
            let c = Double(turns) * 90
            let o = Orientation(quarterTurns: turns % 4)
            svg += "<rect x='\(fmt(left))' width='\(fmt(plotWidth))' y='\(fmt(y(c + stay)))' height='\(fmt(y(c - stay) - y(c + stay)))' fill='\(colour(o))' opacity='0.12'/>\n"
        }
        // The published orientation as a thick line at its centre.
        var segments: [(Double, Double)] = []
        for p in points where p.published != .undefined {
            let c = Double(p.published.quarterTurns ?? 0) * 90
            segments.append((p.tMs, y(c == 0 && p.theta > 180 ? 360 : c)))
        }
        svg += polyline(segments, colour: "#333", width: 3)
        svg += polyline(points.map { ($0.tMs, y($0.theta)) }, colour: "#1f78b4")
    }
    panel("tilt φ, filtered", height: 160, range: -90...90, ticks: [-90, -40, -15, 0, 25, 65, 80, 90], unit: "°") { y in
        let lo = config.tiltMinDeg.min() ?? -25, hi = config.tiltMaxDeg.max() ?? 70
        svg += "<rect x='\(fmt(left))' width='\(fmt(plotWidth))' y='\(fmt(y(hi)))' height='\(fmt(y(lo) - y(hi)))' fill='#1b9e77' opacity='0.10'/>\n"
        if !config.zSignKnown {
            svg += "<rect x='\(fmt(left))' width='\(fmt(plotWidth))' y='\(fmt(y(-lo)))' height='\(fmt(y(-hi) - y(-lo)))' fill='#1b9e77' opacity='0.06'/>\n"
        }
        for (v, c) in [(config.overheadEnterDeg, "#d62728"), (config.overheadExitDeg, "#ff9896"), (config.maxTiltDeg, "#999"), (-config.maxTiltDeg, "#999")] {
            svg += "<line x1='\(fmt(left))' x2='\(fmt(left + plotWidth))' y1='\(fmt(y(v)))' y2='\(fmt(y(v)))' stroke='\(c)' stroke-dasharray='4 3'/>\n"
        }
        svg += polyline(points.map { ($0.tMs, y($0.tilt)) }, colour: "#6a3d9a")
    }
    panel("magnitude", height: 120, range: 0...25, ticks: [0, 5.8, 9.8, 13.8, 25], unit: "m/s²") { y in
        let g = config.standardGravity
        svg += "<rect x='\(fmt(left))' width='\(fmt(plotWidth))' y='\(fmt(y(g + config.accelToleranceFiltered)))' height='\(fmt(y(g - config.accelToleranceFiltered) - y(g + config.accelToleranceFiltered)))' fill='#1b9e77' opacity='0.10'/>\n"
        for v in [g + config.accelToleranceRaw, g - config.accelToleranceRaw, config.nearZeroMagnitude] {
            svg += "<line x1='\(fmt(left))' x2='\(fmt(left + plotWidth))' y1='\(fmt(y(v)))' y2='\(fmt(y(v)))' stroke='#d62728' stroke-dasharray='4 3'/>\n"
        }
        svg += polyline(points.map { ($0.tMs, y($0.rawMagnitude)) }, colour: "#bbbbbb", width: 0.8)
        svg += polyline(points.map { ($0.tMs, y($0.magnitude)) }, colour: "#333")
    }
    // The hinge angle: the thresholds, the folded zones, every reading's angle
    // (grey) and the ones the detector trusted (in the colour of the mode after them).
    if let hinge {
        panel("hinge angle", height: 160, range: 0...360, ticks: [0, hinge.tabletExitDeg, 180, hinge.tabletEnterDeg, 360], unit: "°") { y in
            for (from, to) in [(0, hinge.foldedZoneDeg), (360 - hinge.foldedZoneDeg, 360)] {
                svg += "<rect x='\(fmt(left))' width='\(fmt(plotWidth))' y='\(fmt(y(to)))' height='\(fmt(y(from) - y(to)))' fill='#999' opacity='0.15'/>\n"
            }
            for (v, mode) in [(hinge.tabletEnterDeg, TabletMode.tablet), (hinge.tabletExitDeg, .laptop)] {
                svg += "<line x1='\(fmt(left))' x2='\(fmt(left + plotWidth))' y1='\(fmt(y(v)))' y2='\(fmt(y(v)))' stroke='\(colour(mode))' stroke-dasharray='4 3'/>\n"
            }
            var run: [(Double, Double)] = []
            for p in points {
                if let angle = p.hinge?.angle {
                    run.append((p.tMs, y(angle)))
                } else {
                    svg += polyline(run, colour: "#cccccc", width: 0.8)
                    run = []
                }
            }
            svg += polyline(run, colour: "#cccccc", width: 0.8)
            for p in points {
                guard let h = p.hinge, h.trusted, let angle = h.angle else { continue }
                svg += "<circle cx='\(fmt(x(p.tMs)))' cy='\(fmt(y(angle)))' r='2' fill='\(colour(h.mode))'/>"
            }
            svg += "\n"
        }
    }
    // State strips: published, raw candidate (darker once held past the glance
    // hold), filtered candidate, hold-offs, overhead latch; with a hinge, the
    // tablet mode and why it held.
    var rows = ["published", "raw candidate", "filtered candidate", "hold-off", "overhead latch"]
    if hinge != nil { rows += ["tablet mode", "hinge hold"] }
    panel("state", height: Double(rows.count) * 22, range: 0...Double(rows.count), ticks: [], unit: "") { y in
        for (i, name) in rows.enumerated() {
            svg += "<text x='\(fmt(left + 4))' y='\(fmt(y(Double(rows.count - i)) + 15))' font-size='11'>\(name)</text>\n"
        }
        for (index, p) in points.enumerated() {
            let next = index + 1 < points.count ? points[index + 1].tMs : p.tMs
            let x0 = x(p.tMs), w = max(0.5, x(next) - x0)
            func cell(_ row: Int, _ fill: String, opacity: Double = 1) {
                svg += "<rect x='\(fmt(x0))' y='\(fmt(y(Double(rows.count - row)) + 2))' width='\(fmt(w))' height='18' fill='\(fill)' opacity='\(opacity)'/>"
            }
            if p.published != .undefined { cell(0, colour(p.published), opacity: 0.8) }
            if let k = p.diagnostics.rawCandidate, k != p.published {
                let held = p.tMs - p.diagnostics.rawCandidateSince >= p.diagnostics.glanceHoldMs
                cell(1, colour(k), opacity: held ? 0.9 : 0.4)
            }
            if let k = p.diagnostics.filteredCandidate { cell(2, colour(k), opacity: 0.6) }
            if p.tMs < p.diagnostics.holdUntil { cell(3, "#999999") }
            if p.diagnostics.overheadLatched { cell(4, "#d62728") }
            if let h = p.hinge {
                if h.mode != .unknown { cell(5, colour(h.mode), opacity: 0.8) }
                switch h.hold {
                case .moving?: cell(6, "#999999")
                case .hingeVertical?: cell(6, "#6a3d9a", opacity: 0.6)
                case .folded?: cell(6, "#999999", opacity: 0.3)
                case .unusable?: cell(6, "#d62728")
                case nil: break
                }
            }
        }
        svg += "\n"
    }
    // Time axis.
    let step = [1000.0, 2000, 5000, 10000, 20000, 50000].first { (t1 - t0) / $0 <= 20 } ?? 100000
    var t = (t0 / step).rounded(.up) * step
    while t <= t1 {
        svg += "<text x='\(fmt(x(t)))' y='\(fmt(top - 12))' text-anchor='middle'>\(fmt(t / 1000)) s</text>"
        t += step
    }
    var legend = ""
    for (i, o) in Orientation.cardinal.enumerated() {
        legend += "<rect x='\(fmt(left + Double(i) * 110))' y='\(fmt(top + 4))' width='12' height='12' fill='\(colour(o))'/>"
        legend += "<text x='\(fmt(left + Double(i) * 110 + 16))' y='\(fmt(top + 14))'>\(o.rawValue)</text>"
    }
    if hinge != nil {
        let entries: [(String, String)] = [
            (colour(TabletMode.tablet), "tablet"), (colour(TabletMode.laptop), "laptop"), ("#999999", "hold: moving"),
            ("#6a3d9a", "hold: hinge vertical"), ("#dddddd", "hold: folded"),
        ]
        for (i, (fill, name)) in entries.enumerated() {
            let x0 = left + 440 + Double(i) * 135
            legend += "<rect x='\(fmt(x0))' y='\(fmt(top + 4))' width='12' height='12' fill='\(fill)'/>"
            legend += "<text x='\(fmt(x0 + 16))' y='\(fmt(top + 14))'>\(name)</text>"
        }
    }
    let height = top + 30
    return """
        <svg xmlns='http://www.w3.org/2000/svg' width='\(fmt(width))' height='\(fmt(height))' font-family='sans-serif' font-size='12'>
        <rect width='100%' height='100%' fill='#fafafa'/>
        <text x='\(fmt(left))' y='22' font-size='15' font-weight='bold'>\(escapeXML(title))</text>
        <text x='\(fmt(left))' y='40' font-size='11'>z sign \(escapeXML(zSource)); blue θ/purple φ filtered; black: published; bands: hysteresis (θ), tilt limits and overhead −40/−15 (φ), acceleration gates (|a|)</text>
        \(svg)\(legend)
        </svg>

        """
}

/// `tracegen plot TRACE [-o FILE.svg] [--z-sign auto|1|-1]`.
func plot(_ arguments: [String]) -> Int32 {
    var input: String?, output = "-", setting = ZSignSetting.auto
    var index = 0
    while index < arguments.count {
        let argument = arguments[index]
        switch argument {
        case "-o", "--output", "--z-sign":
            guard index + 1 < arguments.count else { fail("\(argument) needs a value", code: 64) }
            let value = arguments[index + 1]
            if argument == "--z-sign" {
                if value == "auto" { setting = .auto } else if let x = DecimalNumber.parse(value), x == 1 || x == -1 { setting = .fixed(x) } else {
                    fail("--z-sign must be auto, 1 or -1, not '\(value.prefix(32))'", code: 64)
                }
            } else {
                output = value
            }
            index += 2
            continue
        default:
            guard input == nil, !argument.hasPrefix("-") || argument == "-" else { fail("plot: unexpected '\(argument.prefix(64))'\n\(usage)", code: 64) }
            input = argument
        }
        index += 1
    }
    guard let path = input else { fail("plot needs a TRACE\n\(usage)", code: 64) }
    guard let file = fopen(path, "rb") else { fail("cannot open \(path): \(String(cString: strerror(errno)))", code: 66) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = fread(&buffer, 1, buffer.count, file)
        if n <= 0 { break }
        bytes.append(contentsOf: buffer[0..<n])
    }
    fclose(file)
    let trace: Trace
    do {
        trace = try TraceReader.parse(bytes, file: path)
    } catch {
        fail("\(error)", code: 65)
    }
    let zSign = ZSign.decide(setting: setting, driverName: nil, traceHeader: trace.extraHeaders.first { $0.key == "z_sign" }?.value)
    var config = zSign.applied(to: ClassifierConfig())
    config.onChange = trace.onChange
    if let rate = trace.rateHz, rate.isFinite, rate > 0 { config.sampleRateHz = min(1000, max(10, rate)) }
    let name = path.split(separator: "/").last.map(String.init) ?? path
    let title = trace.description.map { "\(name): \($0)" } ?? trace.extraHeaders.first { $0.key == "recording" }.map { "\(name): \($0.value)" } ?? name
    let hinge = trace.baseSamples.isEmpty ? nil : zSign.applied(to: HingeConfig())
    let svg = renderPlot(
        replayForPlot(trace, config: config, hinge: hinge ?? HingeConfig()), title: title, config: config, zSource: "\(zSign)",
        hinge: hinge)
    return writeFile(svg, to: output) ? 0 : 73
}
