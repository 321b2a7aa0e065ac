/// The release of orientd: the daemon's `hello` and `status` replies and
/// `--version`, and orientctl's, which comes with it.
package let orientdVersion = "0.2.0"
