#if canImport(Glibc)
import Glibc
#endif
import OrientSensors

/// libssc (`libssc.so.2`), loaded at run time: the library that speaks to a
/// Qualcomm phone's Snapdragon Sensor Core (QMI service 400 over QRTR). Only
/// phones have it, and only some distributions package it (Debian: `libssc2`,
/// in sid; postmarketOS), so orientd builds and runs without it and loads it
/// when a Sensor Core device is found.
///
/// Its calls are used as iio-sensor-proxy 3.9's `drv-ssc-*.c` use them: for
/// each kind, `ssc_sensor_<kind>_new_sync`, `_open_sync`, `_close_sync`, and
/// the `measurement` signal. GLib's functions come through the same handle
/// (libssc links GLib and GObject). Loaded only in the Sensor Core process
/// (`SensorCoreProcess`); every call but `load` runs on its thread.
struct LibSSC: @unchecked Sendable {
    /// The library's file name, and the package that has it (for `status`).
    static let soname = "libssc.so.2"
    static let package = "libssc2"

    typealias NewSync = @convention(c) (OpaquePointer?, UnsafeMutablePointer<UnsafeMutableRawPointer?>?) -> OpaquePointer?
    typealias OpenClose = @convention(c) (OpaquePointer?, OpaquePointer?, UnsafeMutablePointer<UnsafeMutableRawPointer?>?) -> Int32

    /// One kind's three calls.
    struct Calls {
        let new: NewSync
        let open: OpenClose
        let close: OpenClose
    }

    let calls: [SensorKind: Calls]
    let signalConnect: @convention(c) (OpaquePointer?, UnsafePointer<CChar>, UnsafeRawPointer?, UnsafeMutableRawPointer?, OpaquePointer?, Int32) -> UInt
    let signalDisconnect: @convention(c) (OpaquePointer?, UInt) -> Void
    let objectUnref: @convention(c) (OpaquePointer?) -> Void
    let errorFree: @convention(c) (UnsafeMutableRawPointer?) -> Void
    /// `g_main_context_iteration(NULL, may_block)`.
    let iterate: @convention(c) (OpaquePointer?, Int32) -> Int32
    /// `g_main_context_wakeup(NULL)`: safe from any thread.
    let wakeup: @convention(c) (OpaquePointer?) -> Void

    /// libssc's name for each kind in its symbols.
    static let symbolKinds: [SensorKind: String] = [
        .accelerometer: "accelerometer", .light: "light", .proximity: "proximity", .compass: "compass",
    ]

    /// Loads the library and every symbol, or says why it cannot.
    static func load() -> Result<LibSSC, LoadError> {
        guard let handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL) else {
            return .failure(LoadError(message: String(cString: dlerror())))
        }
        func symbol<T>(_ name: String, as type: T.Type) throws(LoadError) -> T {
            guard let pointer = dlsym(handle, name) else {
                throw LoadError(message: "\(soname) has no \(name)")
            }
            return unsafeBitCast(pointer, to: type)
        }
        do throws(LoadError) {
            var calls: [SensorKind: Calls] = [:]
            for (kind, name) in symbolKinds {
                calls[kind] = Calls(
                    new: try symbol("ssc_sensor_\(name)_new_sync", as: NewSync.self),
                    open: try symbol("ssc_sensor_\(name)_open_sync", as: OpenClose.self),
                    close: try symbol("ssc_sensor_\(name)_close_sync", as: OpenClose.self))
            }
            return .success(LibSSC(
                calls: calls,
                signalConnect: try symbol("g_signal_connect_data", as: (@convention(c) (OpaquePointer?, UnsafePointer<CChar>, UnsafeRawPointer?, UnsafeMutableRawPointer?, OpaquePointer?, Int32) -> UInt).self),
                signalDisconnect: try symbol("g_signal_handler_disconnect", as: (@convention(c) (OpaquePointer?, UInt) -> Void).self),
                objectUnref: try symbol("g_object_unref", as: (@convention(c) (OpaquePointer?) -> Void).self),
                errorFree: try symbol("g_error_free", as: (@convention(c) (UnsafeMutableRawPointer?) -> Void).self),
                iterate: try symbol("g_main_context_iteration", as: (@convention(c) (OpaquePointer?, Int32) -> Int32).self),
                wakeup: try symbol("g_main_context_wakeup", as: (@convention(c) (OpaquePointer?) -> Void).self)))
        } catch {
            dlclose(handle)
            return .failure(error)
        }
    }

    /// Why libssc could not be loaded.
    struct LoadError: Error, Sendable, CustomStringConvertible {
        var message: String
        var description: String { message }
    }

    /// The message of a `GError` (`struct { GQuark domain; gint code; gchar *message; }`), freed.
    func take(_ error: UnsafeMutableRawPointer?) -> String {
        guard let error else { return "no reason given" }
        defer { errorFree(error) }
        let message = error.load(fromByteOffset: 8, as: UnsafePointer<CChar>?.self)
        return message.map { String(cString: $0) } ?? "no reason given"
    }
}
