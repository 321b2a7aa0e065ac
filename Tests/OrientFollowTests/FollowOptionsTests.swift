import OrientProtocol
import Testing

@testable import OrientFollow

/// `follow`'s options, the exec template, and choosing the backend.
@Suite("Follow options")
struct FollowOptionsTests {
    @Test("options take their value as the next word or after '='")
    func parse() throws {
        let options = try FollowOptions.parse([
            "--backend", "sway", "--output=HEADLESS-1", "--timeout", "0.5", "--disable-input", "type:touchpad", "--disable-keyboard",
            "--disable-touchpad",
        ])
        #expect(options.disableTouchpad)
        #expect(options.backend == .sway)
        #expect(options.output == "HEADLESS-1")
        #expect(options.timeout == 0.5)
        #expect(options.disabledInputs == ["type:touchpad"])
        #expect(options.disableKeyboard)
    }

    @Test("--exec alone means the exec backend")
    func execAlone() throws {
        #expect(try FollowOptions.parse(["--exec", "true"]).backend == .exec)
        #expect(try FollowOptions.parse(["--exec", "true", "--backend", "x11"]).backend == .x11)
    }

    @Test(
        "bad options are errors that name the option and the value",
        arguments: [
            (["--backend", "weston"], "unknown backend 'weston' (expected sway, hyprland, niri, wlr-randr, x11, exec)"),
            (["--output", "eDP-1;exit"], "bad output name 'eDP-1;exit': use the connector name, e.g. eDP-1 (letters, digits, - _ . :)"),
            (["--output", ""], "bad output name '': use the connector name, e.g. eDP-1 (letters, digits, - _ . :)"),
            (["--output"], "--output needs a value"),
            (["--timeout", "-1"], "--timeout needs a number of seconds between 0 and 3600, not '-1'"),
            (["--timeout", "nan"], "--timeout needs a number of seconds between 0 and 3600, not 'nan'"),
            (["--compositor-timeout=0"], "--compositor-timeout needs a number of seconds between 0 and 3600, not '0'"),
            (["--disable-input", "kbd\"; exec x"], "bad input name 'kbd\"; exec x': printable text without '\"', ',' or ';'"),
            (["--backend", "exec"], "--backend exec needs --exec TEMPLATE"),
            (["--frobnicate"], "unknown option '--frobnicate' for follow"),
            (["eDP-1"], "unexpected argument 'eDP-1'"),
            (["--exec", "echo {orientaton}"], "--exec template: unknown placeholder '{orientaton}' at column 6 (known: {orientation}, {previous}, {transform}, {xrandr}, {output})"),
            (["--exec", "echo {orientation"], "--exec template: '{' at column 6 is not closed (write '{{' for a brace)"),
            (["--exec", "echo }"], "--exec template: '}' at column 6 closes nothing (write '}}' for a brace)"),
            (["--exec", " "], "--exec needs a command (the template is empty)"),
        ])
    func badOptions(words: [String], message: String) {
        #expect(throws: FollowError(message)) { try FollowOptions.parse(words) }
    }

    @Test("templates expand every placeholder, keep doubled braces, and quote values for the shell")
    func templates() throws {
        let change = OrientationChange(orientation: .rightUp, previous: .normal, initial: false)
        let template = try ExecTemplate("f {orientation} {previous} {transform} {xrandr} {output} {{x}}")
        #expect(template.expanded(for: change, output: "eDP-1") == "f right-up normal 270 right eDP-1 {x}")
        #expect(template.expanded(for: change, output: "a b'$(x)") == #"f right-up normal 270 right 'a b'\''$(x)' {x}"#)
        #expect(template.expanded(for: change, output: "") == "f right-up normal 270 right '' {x}")
    }

    @Test(
        "the backend comes from the first session variable that is set",
        arguments: [
            (["SWAYSOCK": "/run/user/1000/sway-ipc.sock", "WAYLAND_DISPLAY": "wayland-1", "DISPLAY": ":0"], BackendKind.sway),
            (["HYPRLAND_INSTANCE_SIGNATURE": "abc", "WAYLAND_DISPLAY": "wayland-1"], .hyprland),
            (["NIRI_SOCKET": "/run/user/1000/niri.sock", "DISPLAY": ":0"], .niri),
            (["WAYLAND_DISPLAY": "wayland-0", "DISPLAY": ":1"], .wlrRandr),
            (["DISPLAY": ":0", "SWAYSOCK": ""], .x11),
        ])
    func detect(environment: [String: String], kind: BackendKind) {
        #expect(BackendKind.detect(environment: environment) == kind)
    }

    @Test("no session variable and no --backend is an error that says so")
    func noBackend() {
        #expect(throws: FollowError.self) { try FollowPlan(options: FollowOptions(), environment: ["HOME": "/root"]) }
    }

    @Test("disabling inputs is refused where the backend cannot do it")
    func disableUnsupported() throws {
        var options = FollowOptions()
        options.backend = .niri
        options.disableKeyboard = true
        #expect(throws: FollowError("--disable-keyboard works with sway and x11, not niri")) {
            try FollowPlan(options: options, environment: [:])
        }
    }

    @Test(
        "the socket watched for compositor restarts",
        arguments: [
            (BackendKind.sway, ["SWAYSOCK": "/run/user/1/sway.sock"], "/run/user/1/sway.sock" as String?),
            (.hyprland, ["HYPRLAND_INSTANCE_SIGNATURE": "sig", "XDG_RUNTIME_DIR": "/run/user/1"], "/run/user/1/hypr/sig/.socket.sock"),
            (.wlrRandr, ["WAYLAND_DISPLAY": "wayland-1", "XDG_RUNTIME_DIR": "/run/user/1"], "/run/user/1/wayland-1"),
            (.x11, ["DISPLAY": ":0.0"], "/tmp/.X11-unix/X0"),
            (.x11, ["DISPLAY": "remote:10"], nil),
            (.exec, ["SWAYSOCK": "/s"], nil),
        ])
    func endpoints(kind: BackendKind, environment: [String: String], path: String?) {
        #expect(BackendKind.endpoint(of: kind, environment: environment) == path)
    }
}
