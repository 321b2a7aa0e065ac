package import OrientConfig
package import OrientSensors

/// Every sensor the daemon reads, found and followed through one libudev
/// monitor: the accelerometer (`HardwareSensor`, with its mount matrix,
/// calibration and adaptive polling) and one `SensorSlot` each for light,
/// proximity and the compass, whose drivers are listed here in the order
/// they are tried (iio-sensor-proxy's order).
package final class SensorHub {
    /// The drivers of each kind beside the accelerometer.
    package static var drivers: [SensorKind: [any SensorDriver.Type]] { [
        .light: [IIOPollLight.self, IIOBufferLight.self, HwmonLightDriver.self, SensorCoreLight.self],
        .proximity: [IIOPollProximity.self, InputProximity.self, SensorCoreProximity.self],
        .compass: [IIOBufferCompass.self, SensorCoreCompass.self],
    ] }

    /// The accelerometer.
    package let accelerometer: HardwareSensor
    /// A 2-in-1's second accelerometer, in the base: the hinge angle's (tablet mode).
    package let base: HardwareSensor
    /// Light, proximity and compass.
    package let slots: [SensorKind: SensorSlot]
    /// The kernel's tablet-mode switch, when the machine has one.
    package let tabletSwitch: TabletModeSwitch
    /// A Qualcomm phone's Sensor Core, followed once udev tags a device for it.
    package let core: SensorCore
    private let udev: Udev
    private let loop: EventLoop
    private let log: Log
    /// Enumerates sysfs for each batch of udev events off the loop: on a
    /// hub's re-creation the machine is busy with udev's own work, and each
    /// look at sysfs took hundreds of milliseconds, which on the loop held up
    /// the accelerometer coming back.
    private let enumerator: Poller<Udev.Enumeration>
    /// Events the enumeration in flight was asked for, and those come since.
    private var enumerating: [Udev.Event] = []
    private var pending: [Udev.Event] = []

    package init(loop: EventLoop, log: Log, config: DaemonConfig) throws(SystemError) {
        self.loop = loop
        self.log = log
        udev = try Udev()
        let core = SensorCore(loop: loop, log: log)
        self.core = core
        accelerometer = HardwareSensor(loop: loop, log: log, config: config, udev: udev, core: core)
        base = HardwareSensor(loop: loop, log: log, config: config, udev: udev, core: core, role: .base)
        var slots: [SensorKind: SensorSlot] = [:]
        let context = SensorContext(loop: loop, log: log, core: core)
        for (kind, drivers) in SensorHub.drivers { slots[kind] = SensorSlot(kind: kind, drivers: drivers, context: context) }
        self.slots = slots
        tabletSwitch = TabletModeSwitch(loop: loop, log: log)
        enumerator = Poller(loop: loop, log: log)
        // The service coming or going shows or hides the Sensor Core's sensors.
        core.onChange = { [unowned self] in
            accelerometer.rescan(reason: "Sensor Core \(core.availability)")
            rescanSlots()
        }
    }

    /// The slot of `kind` (nil for the accelerometer).
    package subscript(kind: SensorKind) -> SensorSlot? { slots[kind] }

    /// Starts following udev and chooses every sensor.
    package func start() {
        do {
            let fd = try udev.startMonitor()
            loop.watch(fd, for: .readable) { [unowned self] _ in self.udevEvents() }
            let own = ThreadOwned(try Udev())
            enumerator.start(name: "orientd-udev", askNow: false, read: { own.value.enumerate() }) { [unowned self] result, _ in
                self.enumerated(result)
            }
        } catch {
            log.warning("udev monitor unavailable (\(error)); hotplug will not be followed")
        }
        accelerometer.start()
        base.start()
        rescanSlots()
    }

    /// A reloaded configuration.
    package func reconfigure(_ config: DaemonConfig) {
        accelerometer.reconfigure(config)
        base.reconfigure(config)
        rescanSlots()
    }

    private func udevEvents() {
        let events = udev.receiveEvents().filter(Udev.concernsSensors)
        guard !events.isEmpty else { return }
        for event in events { log.info("udev: \(event.action.rawValue) \(event.sysname)") }
        pending += events
        if !enumerator.isReading { askEnumeration() }
    }

    private func askEnumeration() {
        enumerating += pending
        pending = []
        enumerator.pollNow()
    }


    /// The enumeration for the events asked for: both accelerometers and
    /// every other sensor choose from it; then the next, if events came meanwhile.
    /// Returns when to enumerate next (never, until events come).
    private func enumerated(_ result: Udev.Enumeration) -> Double {
        let events = enumerating
        enumerating = []
        log.info("udev: looked at sysfs in \(Int(result.tookMs)) ms (\(result.iio.count) IIO, \(result.sensors.count) sensor devices)")
        udev.batch(result) {
            accelerometer.udevEvents(events)
            base.udevEvents(events)
            rescanSlots()
        }
        if !pending.isEmpty { askEnumeration() }
        return .infinity
    }

    private func rescanSlots() {
        let devices = core.annotated(udev.sensorDevices())
        for kind in SensorKind.allCases { slots[kind]?.rescan(devices) }
        tabletSwitch.rescan(devices)
    }
}
