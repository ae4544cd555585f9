import BLEDissect
import Foundation
import Testing

/// The built-in formats against tshark: every fixture of `BuiltinDissectorTests` goes into
/// one small btsnoop capture (a Find Information exchange names its handle, then a
/// Handle Value Notification, or a Read Response for a descriptor, carries the value), tshark
/// decodes it once with `-T fields`, and each row below compares our decoded fields with
/// tshark's, field by field: raw integers with raw integers (tshark prints bits shifted
/// down, as we keep them), IEEE 754 and 11073 values as numbers, text as text.
@Suite("tshark oracle: built-in characteristic and descriptor formats")
struct TsharkValueOracleTests {
  /// `/usr/bin/tshark`, or `tshark` on PATH.
  static let tshark: URL? = {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
    let directories = ["/usr/bin"] + path.split(separator: ":").map(String.init)
    return directories.map { URL(fileURLWithPath: $0).appending(path: "tshark") }
      .first { FileManager.default.isExecutableFile(atPath: $0.path) }
  }()

  /// The six Date Time fields, under `group` (`date_time.`), as tshark names them.
  static func dateTime(_ group: String = "") -> [String] {
    ["year", "month", "day", "hours", "minutes", "seconds"].map { "\(group)\($0)=btatt.\($0)" }
  }

  /// Per format: `our.field.path=tshark.field` for every field tshark decodes that the
  /// format has. A path goes through groups and flags by id; a repeated field gives all
  /// its occurrences, as tshark's `-E occurrence=a` does.
  static let agreements: [(uuid: String, pairs: [String])] = [
    ("2a00", ["name=btatt.device_name"]),
    ("2a01", ["appearance=btatt.appearance"]),
    ("2a02", ["privacy=btatt.peripheral_privacy_flag"]),
    ("2a03", ["address=btatt.reconnection_address"]),
    (
      "2a04",
      [
        "min_interval=btatt.minimum_connection_interval", "max_interval=btatt.maximum_connection_interval",
        "latency=btatt.slave_latency", "timeout=btatt.connection_supervision_timeout_multiplier",
      ]
    ),
    ("2aa6", ["resolution=btatt.central_address_resolution"]),
    ("2ac9", ["rpa_only=btatt.resolvable_private_address"]),
    ("2a05", ["start=btatt.starting_handle", "end=btatt.ending_handle"]),
    (
      "2a23",
      [
        "manufacturer=btatt.system_id.manufacturer_identifier",
        "oui=btatt.system_id.organizationally_unique_identifier",
      ]
    ),
    ("2a24", ["model=btatt.model_number_string"]),
    ("2a25", ["serial=btatt.serial_number_string"]),
    ("2a26", ["firmware=btatt.firmware_revision_string"]),
    ("2a27", ["hardware=btatt.hardware_revision_string"]),
    ("2a28", ["software=btatt.software_revision_string"]),
    ("2a29", ["manufacturer=btatt.manufacturer_string"]),
    (
      "2a50",
      [
        "source=btatt.pnp_id.vendor_id_source", "vendor=btatt.pnp_id.vendor_id", "product=btatt.pnp_id.product_id",
        "version=btatt.pnp_id.product_version",
      ]
    ),
    ("2a19", ["level=btatt.battery_level"]),
    (
      "2a1b",
      [
        "level=btatt.battery_level", "state=btatt.battery_power_state",
        "state.present=btatt.battery_power_state.present", "state.discharging=btatt.battery_power_state.discharging",
        "state.charging=btatt.battery_power_state.charging", "state.level_state=btatt.battery_power_state.level",
      ]
    ),
    (
      "2a1a",
      [
        "state=btatt.battery_power_state", "state.present=btatt.battery_power_state.present",
        "state.discharging=btatt.battery_power_state.discharging", "state.charging=btatt.battery_power_state.charging",
        "state.level_state=btatt.battery_power_state.level",
      ]
    ),
    (
      "2a37",
      [
        "flags=btatt.heart_rate_measurement.flags", "flags.rr_present=btatt.heart_rate_measurement.flags.rr_interval",
        "flags.energy_present=btatt.heart_rate_measurement.flags.energy_expended",
        "flags.value_16=btatt.heart_rate_measurement.flags.value_16", "heart_rate=btatt.heart_rate_measurement.value.8",
        "rr_interval=btatt.heart_rate_measurement.rr_interval",
      ]
    ),
    ("2a38", ["location=btatt.body_sensor_location"]),
    ("2a39", ["opcode=btatt.heart_rate_control_point"]),
    ("2a06", ["level=btatt.alert_level"]),
    ("2a07", ["power=btatt.tx_power_level"]),
    ("2a08", dateTime()),
    ("2a09", ["day=btatt.day_of_week"]),
    ("2a0a", dateTime("date_time.") + ["day_of_week=btatt.day_of_week"]),
    ("2a0b", dateTime("date_time.") + ["day_of_week=btatt.day_of_week", "fractions=btatt.fractions100"]),
    ("2a0c", dateTime("date_time.") + ["day_of_week=btatt.day_of_week", "fractions=btatt.fractions256"]),
    ("2a0d", ["offset=btatt.dst_offset"]),
    ("2a0e", ["zone=btatt.timezone"]),
    ("2a0f", ["zone=btatt.timezone", "dst=btatt.dst_offset"]),
    ("2a11", dateTime("date_time.") + ["dst=btatt.dst_offset"]),
    ("2a12", ["accuracy=btatt.time_accuracy"]),
    ("2a13", ["source=btatt.time_source"]),
    (
      "2a14",
      [
        "source=btatt.time_source", "accuracy=btatt.time_accuracy", "days=btatt.days_since_update",
        "hours=btatt.hours_since_update",
      ]
    ),
    ("2a16", ["command=btatt.update_control_point"]),
    ("2a17", ["state=btatt.time_current_state", "result=btatt.time_result"]),
    (
      "2a2b",
      dateTime("date_time.") + [
        "day_of_week=btatt.day_of_week", "fractions=btatt.fractions256", "reason=btatt.adjust_reason",
        "reason.manual=btatt.adjust_reason.manual_time_update",
        "reason.external=btatt.adjust_reason.external_reference_time_update",
        "reason.time_zone=btatt.adjust_reason.change_of_timezone", "reason.dst=btatt.adjust_reason.change_of_dst",
      ]
    ),
    (
      "2a1c",
      dateTime("time_stamp.") + [
        "flags=btatt.temperature_measurement.flags",
        "flags.fahrenheit=btatt.temperature_measurement.flags.temperature_unit",
        "flags.time_stamp_present=btatt.temperature_measurement.flags.timestamp",
        "flags.type_present=btatt.temperature_measurement.flags.temperature_type", "type=btatt.temperature_type",
      ]
    ),
    ("2a1d", ["type=btatt.temperature_type"]),
    (
      "2a1e",
      [
        "flags=btatt.temperature_measurement.flags",
        "flags.fahrenheit=btatt.temperature_measurement.flags.temperature_unit",
        "flags.time_stamp_present=btatt.temperature_measurement.flags.timestamp",
        "flags.type_present=btatt.temperature_measurement.flags.temperature_type",
      ]
    ),
    ("2a21", ["interval=btatt.measurement_interval"]),
    (
      "2a35",
      dateTime("time_stamp.") + [
        "flags=btatt.blood_pressure_measurement.flags", "flags.kpa=btatt.blood_pressure_measurement.flags.unit",
        "flags.time_stamp_present=btatt.blood_pressure_measurement.flags.timestamp",
        "flags.pulse_rate_present=btatt.blood_pressure_measurement.flags.pulse_rate",
        "flags.user_id_present=btatt.blood_pressure_measurement.flags.user_id",
        "flags.status_present=btatt.blood_pressure_measurement.flags.measurement_status",
        "systolic=btatt.blood_pressure_measurement.compound_value.systolic.mmhg",
        "diastolic=btatt.blood_pressure_measurement.compound_value.diastolic.mmhg",
        "mean_arterial=btatt.blood_pressure_measurement.compound_value.arterial_pressure.mmhg",
        "pulse_rate=btatt.blood_pressure_measurement.pulse_rate", "user_id=btatt.blood_pressure_measurement.user_id",
        "status=btatt.blood_pressure_measurement.status",
        "status.body_movement=btatt.blood_pressure_measurement.status.body_movement",
        "status.cuff_fit=btatt.blood_pressure_measurement.status.cuff_fit_too_loose",
        "status.irregular_pulse=btatt.blood_pressure_measurement.status.irregular_pulse",
        "status.pulse_range=btatt.blood_pressure_measurement.status.pulse_rate_range_detection",
        "status.position=btatt.blood_pressure_measurement.status.improper_measurement_position",
      ]
    ),
    (
      "2a36",
      [
        "flags=btatt.blood_pressure_measurement.flags", "flags.kpa=btatt.blood_pressure_measurement.flags.unit",
        "cuff_pressure=btatt.blood_pressure_measurement.compound_value.systolic.mmhg",
        "diastolic=btatt.blood_pressure_measurement.compound_value.diastolic.mmhg",
        "mean_arterial=btatt.blood_pressure_measurement.compound_value.arterial_pressure.mmhg",
      ]
    ),
    (
      "2a49",
      [
        "features=btatt.blood_pressure.feature",
        "features.body_movement=btatt.blood_pressure.feature.body_movement_detection",
        "features.cuff_fit=btatt.blood_pressure.feature.cuff_fit_detection",
        "features.irregular_pulse=btatt.blood_pressure.feature.irregular_pulse_detection",
        "features.pulse_range=btatt.blood_pressure.feature.puls_rate_range",
        "features.position=btatt.blood_pressure.feature.measurement_position_detection",
        "features.multiple_bond=btatt.blood_pressure.feature.multiple_bond",
      ]
    ),
    (
      "2a18",
      dateTime("base_time.") + [
        "flags=btatt.glucose_measurement.flags",
        "flags.time_offset_present=btatt.glucose_measurement.flags.time_offset_present",
        "flags.concentration_present=btatt.glucose_measurement.flags.glucose_concentration_type_and_sample_location_present",
        "flags.mol_per_l=btatt.glucose_measurement.flags.glucose_concentration_units",
        "flags.status_present=btatt.glucose_measurement.flags.sensor_status_annunciation_present",
        "flags.context_follows=btatt.glucose_measurement.flags.context_information_follows",
        "sequence=btatt.glucose_measurement.sequence_number", "time_offset=btatt.glucose_measurement.time_offset",
        "concentration=btatt.glucose_measurement.glucose_concentration.kg_per_l",
        "type_and_location=btatt.glucose_measurement.type_and_sample_location",
        "type_and_location.type=btatt.glucose_measurement.type_and_sample_location.type",
        "type_and_location.location=btatt.glucose_measurement.type_and_sample_location.sample_location",
        "status=btatt.glucose_measurement.sensor_status_annunciation",
        "status.battery_low=btatt.glucose_measurement.sensor_status_annunciation.battery_low",
        "status.malfunction=btatt.glucose_measurement.sensor_status_annunciation.fault",
        "status.sample_size=btatt.glucose_measurement.sensor_status_annunciation.size_insufficient",
        "status.strip_insertion=btatt.glucose_measurement.sensor_status_annunciation.strip_insertion_error",
        "status.strip_type=btatt.glucose_measurement.sensor_status_annunciation.strip_type_incorrect",
        "status.result_high=btatt.glucose_measurement.sensor_status_annunciation.result_too_high",
        "status.result_low=btatt.glucose_measurement.sensor_status_annunciation.result_too_lower",
        "status.temperature_high=btatt.glucose_measurement.sensor_status_annunciation.temperature_too_high",
        "status.temperature_low=btatt.glucose_measurement.sensor_status_annunciation.temperature_too_low",
        "status.read_interrupted=btatt.glucose_measurement.sensor_status_annunciation.read_interrupted",
        "status.device_fault=btatt.glucose_measurement.sensor_status_annunciation.general_fault",
        "status.time_fault=btatt.glucose_measurement.sensor_status_annunciation.time_fault",
      ]
    ),
    (
      "2a51",
      [
        "features=btatt.glucose.feature",
        "features.low_battery=btatt.glucose.feature.low_battery_detection_during_measurement",
        "features.malfunction=btatt.glucose.feature.sensor_malfunction_detection",
        "features.sample_size=btatt.glucose.feature.sensor_sample_size",
        "features.strip_insertion=btatt.glucose.feature.sensor_strip_insertion_error_detection",
        "features.strip_type=btatt.glucose.feature.sensor_strip_type_error_detection",
        "features.result_high_low=btatt.glucose.feature.sensor_result_high_low_detection",
        "features.temperature_high_low=btatt.glucose.feature.sensor_temperature_high_low_detection",
        "features.read_interrupt=btatt.glucose.feature.sensor_read_interrupt_detection",
        "features.device_fault=btatt.glucose.feature.general_device_fault",
        "features.time_fault=btatt.glucose.feature.time_fault",
        "features.multiple_bond=btatt.glucose.feature.multiple_bond",
      ]
    ),
    (
      "2a34",
      [
        "flags=btatt.glucose_measurement_context.flags",
        "flags.carbohydrate_present=btatt.glucose_measurement_context.flags.carbohydrate_id_and_carbohydrate",
        "flags.meal_present=btatt.glucose_measurement_context.flags.meal",
        "flags.tester_health_present=btatt.glucose_measurement_context.flags.tester_health",
        "flags.exercise_present=btatt.glucose_measurement_context.flags.exercise_duration_and_exercise_intensity",
        "flags.medication_present=btatt.glucose_measurement_context.flags.medication_id_and_medication",
        "flags.medication_liters=btatt.glucose_measurement_context.flags.medication_value_units",
        "flags.hba1c_present=btatt.glucose_measurement_context.flags.hba1c",
        "flags.extended_present=btatt.glucose_measurement_context.flags.extended_flags",
        "sequence=btatt.glucose_measurement_context.sequence_number",
        "carbohydrate_id=btatt.glucose_measurement_context.carbohydrate_id",
        "carbohydrate=btatt.glucose_measurement_context.carbohydrate.kg", "meal=btatt.glucose_measurement_context.meal",
        "tester_health=btatt.glucose_measurement_context.tester_and_health",
      ]
    ),
    (
      "2a52",
      [
        "opcode=btatt.record_access_control_point.opcode", "operator=btatt.record_access_control_point.operator",
        "request=btatt.record_access_control_point.request_opcode",
        "response=btatt.record_access_control_point.response_code",
      ]
    ),
    (
      "2a53",
      [
        "flags=btatt.rsc_measurement.flags",
        "flags.stride_present=btatt.rsc_measurement.flags.instantaneous_stride_length_present",
        "flags.distance_present=btatt.rsc_measurement.flags.total_distance_present",
        "flags.running=btatt.rsc_measurement.flags.type_of_movement", "speed=btatt.rsc_measurement.instantaneous_speed",
        "cadence=btatt.rsc_measurement.instantaneous_cadence",
        "stride=btatt.rsc_measurement.instantaneous_stride_length", "distance=btatt.rsc_measurement.total_distance",
      ]
    ),
    (
      "2a54",
      [
        "features=btatt.rsc.feature", "features.stride=btatt.rsc.feature.instantaneous_stride_length_measurement",
        "features.distance=btatt.rsc.feature.total_distance_measurement",
        "features.running=btatt.rsc.feature.walking_or_running_status",
        "features.calibration=btatt.rsc.feature.calibration_procedure",
        "features.multiple_locations=btatt.rsc.feature.multiple_sensor_locations",
      ]
    ),
    (
      "2a55",
      [
        "opcode=btatt.sc_control_point.opcode", "request=btatt.sc_control_point.request_opcode",
        "response=btatt.sc_control_point.response_value",
      ]
    ),
    (
      "2a5b",
      [
        "flags=btatt.csc_measurement.flags", "flags.wheel_present=btatt.csc_measurement.flags.wheel_revolution_data",
        "flags.crank_present=btatt.csc_measurement.flags.crank_revolution_data",
        "wheel_revolutions=btatt.csc_measurement.cumulative_wheel_revolutions",
        "crank_revolutions=btatt.csc_measurement.cumulative_crank_revolutions",
      ]
    ),
    (
      "2a5c",
      [
        "features=btatt.csc.feature", "features.wheel=btatt.csc.feature.wheel_revolution_data",
        "features.crank=btatt.csc.feature.crank_revolution_data",
        "features.multiple_locations=btatt.csc.feature.multiple_sensor_locations",
      ]
    ),
    ("2a5d", ["location=btatt.sensor_location"]),
    (
      "2a63",
      [
        "flags=btatt.cycling_power_measurement.flags",
        "flags.balance_present=btatt.cycling_power_measurement.flags.pedal_power_balance",
        "flags.balance_left=btatt.cycling_power_measurement.flags.pedal_power_balance_reference",
        "flags.torque_present=btatt.cycling_power_measurement.flags.accumulated_torque",
        "flags.crank_based=btatt.cycling_power_measurement.flags.accumulated_torque_source",
        "flags.wheel_present=btatt.cycling_power_measurement.flags.wheel_revolution_data",
        "flags.crank_present=btatt.cycling_power_measurement.flags.crank_revolution_data",
        "flags.forces_present=btatt.cycling_power_measurement.flags.extreme_force_magnitudes",
        "flags.torques_present=btatt.cycling_power_measurement.flags.extreme_torque_magnitudes",
        "flags.angles_present=btatt.cycling_power_measurement.flags.extreme_angles",
        "flags.top_present=btatt.cycling_power_measurement.flags.top_dead_spot_angle",
        "flags.bottom_present=btatt.cycling_power_measurement.flags.bottom_dead_spot_angle",
        "flags.energy_present=btatt.cycling_power_measurement.flags.accumulated_energy",
        "flags.offset_compensation=btatt.cycling_power_measurement.flags.offset_compensation_indicator",
        "power=btatt.cycling_power_measurement.instantaneous_power",
        "crank_revolutions=btatt.cycling_power_measurement.crank_revolution_data_cumulative_crank_revolutions",
        "crank_time=btatt.cycling_power_measurement.crank_revolution_data_last_crank_event_time",
      ]
    ),
    (
      "2a65",
      [
        "features=btatt.cycling_power_feature", "features.balance=btatt.cycling_power_feature.pedal_power_balance",
        "features.torque=btatt.cycling_power_feature.accumulated_torque",
        "features.wheel=btatt.cycling_power_feature.wheel_revolution_data",
        "features.crank=btatt.cycling_power_feature.crank_revolution_data",
        "features.magnitudes=btatt.cycling_power_feature.extreme_magnitudes",
        "features.angles=btatt.cycling_power_feature.extreme_angles",
        "features.dead_spots=btatt.cycling_power_feature.top_and_bottom_dead_spot_angles",
        "features.energy=btatt.cycling_power_feature.accumulated_energy",
        "features.offset_indicator=btatt.cycling_power_feature.offset_compensation_indicator",
        "features.offset=btatt.cycling_power_feature.offset_compensation",
        "features.masking=btatt.cycling_power_feature.cycling_power_measurement_characteristic_content_masking",
        "features.multiple_locations=btatt.cycling_power_feature.multiple_sensor_locations",
        "features.crank_length=btatt.cycling_power_feature.crank_length_adjustment",
        "features.chain_length=btatt.cycling_power_feature.chain_length_adjustment",
        "features.chain_weight=btatt.cycling_power_feature.chain_weight_adjustment",
        "features.span_length=btatt.cycling_power_feature.span_length_adjustment",
        "features.context=btatt.cycling_power_feature.sensor_measurement_context",
        "features.direction=btatt.cycling_power_feature.instantaneous_measurement_direction",
        "features.calibration_date=btatt.cycling_power_feature.factory_calibration_date",
      ]
    ),
    (
      "2a64",
      [
        "flags=btatt.csc_measurement.flags",
        "flags.crank_present=btatt.cycling_power_vector.flags.crank_revolution_data",
        "flags.angle_present=btatt.cycling_power_vector.flags.first_crank_measurement_angle",
        "flags.forces_present=btatt.cycling_power_vector.flags.instantaneous_force_magnitude_array",
        "flags.torques_present=btatt.cycling_power_vector.flags.instantaneous_torque_magnitude_array",
        "flags.direction=btatt.cycling_power_vector.flags.instantaneous_measurement_direction",
        "crank_revolutions=btatt.csc_measurement.cumulative_crank_revolutions",
        "crank_time=btatt.csc_measurement.last_crank_event_time",
        "first_angle=btatt.csc_measurement.first_crank_measurement_angle",
        "forces=btatt.csc_measurement.instantaneous_force_magnitude_array",
      ]
    ),
    (
      "2a66",
      [
        "opcode=btatt.cycling_power_control_point.opcode",
        "cumulative=btatt.cycling_power_control_point.cumulative_value",
      ]
    ),
    (
      "2a67",
      dateTime("utc_time.") + [
        "flags=btatt.location_and_speed.flags",
        "flags.speed_present=btatt.location_and_speed.flags.instantaneous_speed",
        "flags.distance_present=btatt.location_and_speed.flags.total_distance",
        "flags.location_present=btatt.location_and_speed.flags.location",
        "flags.elevation_present=btatt.location_and_speed.flags.elevation",
        "flags.heading_present=btatt.location_and_speed.flags.heading",
        "flags.rolling_time_present=btatt.location_and_speed.flags.rolling_time",
        "flags.utc_present=btatt.location_and_speed.flags.utc_time",
        "flags.position_status=btatt.location_and_speed.flags.position_status",
        "flags.format_3d=btatt.location_and_speed.flags.speed_and_distance_format",
        "flags.elevation_source=btatt.location_and_speed.flags.elevation_source",
        "flags.heading_source=btatt.location_and_speed.flags.heading_source",
        "speed=btatt.location_and_speed.instantaneous_speed", "distance=btatt.location_and_speed.total_distance",
        "latitude=btatt.location_and_speed.location.latitude", "longitude=btatt.location_and_speed.location.longitude",
        "elevation=btatt.location_and_speed.elevation", "heading=btatt.location_and_speed.heading",
        "rolling_time=btatt.location_and_speed.rolling_time",
      ]
    ),
    (
      "2a68",
      dateTime("eta.") + [
        "flags=btatt.navigation.flags", "flags.remaining_distance_present=btatt.navigation.flags.remaining_distance",
        "flags.remaining_vertical_present=btatt.navigation.flags.remaining_vertical_distance",
        "flags.eta_present=btatt.navigation.flags.estimated_time_of_arrival",
        "flags.position_status=btatt.navigation.flags.position_status",
        "flags.heading_source=btatt.navigation.flags.heading_source",
        "flags.indicator_type=btatt.navigation.flags.navigation_indicator_type",
        "flags.waypoint_reached=btatt.navigation.flags.waypoint_reached",
        "flags.destination_reached=btatt.navigation.flags.destination_reached", "bearing=btatt.navigation.bearing",
        "heading=btatt.navigation.heading", "remaining_distance=btatt.navigation.remaining_distance",
        "remaining_vertical=btatt.navigation.remaining_vertical_distance",
      ]
    ),
    (
      "2a69",
      [
        "flags=btatt.position_quality.flags",
        "flags.in_solution_present=btatt.position_quality.flags.number_of_beacons_in_solution",
        "flags.in_view_present=btatt.position_quality.flags.number_of_beacons_in_view",
        "flags.ttff_present=btatt.position_quality.flags.time_to_first_fix",
        "flags.ehpe_present=btatt.position_quality.flags.ehpe", "flags.evpe_present=btatt.position_quality.flags.evpe",
        "flags.hdop_present=btatt.position_quality.flags.hdop", "flags.vdop_present=btatt.position_quality.flags.vdop",
        "flags.position_status=btatt.position_quality.flags.position_status",
        "in_solution=btatt.position_quality.number_of_beacons_in_solution",
        "in_view=btatt.position_quality.number_of_beacons_in_view", "ttff=btatt.position_quality.time_to_first_fix",
        "ehpe=btatt.position_quality.ehpe", "evpe=btatt.position_quality.evpe", "hdop=btatt.position_quality.hdop",
        "vdop=btatt.position_quality.vdop",
      ]
    ),
    (
      "2a6a",
      [
        "features=btatt.ln_feature", "features.speed=btatt.ln_feature.instantaneous_speed",
        "features.distance=btatt.ln_feature.total_distance", "features.location=btatt.ln_feature.location",
        "features.elevation=btatt.ln_feature.elevation", "features.heading=btatt.ln_feature.heading",
        "features.rolling_time=btatt.ln_feature.rolling_time", "features.utc_time=btatt.ln_feature.utc_time",
        "features.remaining_distance=btatt.ln_feature.remaining_distance",
        "features.remaining_vertical=btatt.ln_feature.remaining_vertical_distance",
        "features.eta=btatt.ln_feature.estimated_time_of_arrival",
        "features.in_solution=btatt.ln_feature.number_of_beacons_in_solution",
        "features.in_view=btatt.ln_feature.number_of_beacons_in_view",
        "features.ttff=btatt.ln_feature.time_to_first_fix",
        "features.ehpe=btatt.ln_feature.estimated_horizontal_position_error",
        "features.evpe=btatt.ln_feature.estimated_vertical_position_error",
        "features.hdop=btatt.ln_feature.horizontal_dilution_of_precision",
        "features.vdop=btatt.ln_feature.vertical_dilution_of_precision",
        "features.masking=btatt.ln_feature.location_and_speed_characteristic_content_masking",
        "features.fix_rate=btatt.ln_feature.fix_rate_setting",
        "features.elevation_setting=btatt.ln_feature.elevation_setting",
        "features.position_status=btatt.ln_feature.position_status",
      ]
    ),
    ("2a6b", ["opcode=btatt.ln_control_point.opcode", "navigation=btatt.ln_control_point.navigation_control"]),
    ("2a2c", ["declination=btatt.magnetic_declination"]),
    ("2a6c", ["elevation=btatt.elevation"]),
    ("2a6d", ["pressure=btatt.pressure"]),
    ("2a6e", ["temperature=btatt.temperature"]),
    ("2a6f", ["humidity=btatt.humidity"]),
    ("2a70", ["speed=btatt.true_wind_speed"]),
    ("2a71", ["direction=btatt.true_wind_direction"]),
    ("2a72", ["speed=btatt.apparent_wind_speed"]),
    ("2a73", ["direction=btatt.apparent_wind_direction"]),
    ("2a74", ["factor=btatt.gust_factor"]),
    ("2a75", ["concentration=btatt.pollen_concentration"]),
    ("2a76", ["index=btatt.uv_index"]),
    ("2a77", ["irradiance=btatt.irradiance"]),
    ("2a78", ["rainfall=btatt.rainfall"]),
    ("2a79", ["chill=btatt.wind_chill"]),
    // tshark spells the Heat Index field "heart_index".
    ("2a7a", ["index=btatt.heart_index"]),
    ("2a7b", ["dew_point=btatt.dew_point"]),
    ("2aa3", ["trend=btatt.barometric_pressure_trend"]),
    (
      "2a7d",
      [
        "flags=btatt.descriptor_value_changed.flags",
        "flags.source=btatt.descriptor_value_changed.flags.source_of_change",
        "flags.trigger_settings=btatt.descriptor_value_changed.flags.change_to_one_or_more_es_trigger_setting_descriptors",
        "flags.configuration=btatt.descriptor_value_changed.flags.change_to_es_configuration_descriptor",
        "flags.measurement=btatt.descriptor_value_changed.flags.change_to_es_measurement_descriptor",
        "flags.user_description=btatt.descriptor_value_changed.flags.change_to_characteristic_user_description_descriptor",
      ]
    ),
    ("2aa0", ["x=btatt.hf_btatt_magnetic_flux_density.x", "y=btatt.hf_btatt_magnetic_flux_density.y"]),
    (
      "2aa1",
      [
        "x=btatt.hf_btatt_magnetic_flux_density.x", "y=btatt.hf_btatt_magnetic_flux_density.y",
        "z=btatt.hf_btatt_magnetic_flux_density.z",
      ]
    ),
    ("2a7e", ["limit=btatt.aerobic_heart_rate_lower_limit"]),
    ("2a7f", ["threshold=btatt.aerobic_threshold"]),
    ("2a80", ["age=btatt.age"]),
    ("2a81", ["limit=btatt.anaerobic_heart_rate_lower_limit"]),
    ("2a82", ["limit=btatt.anaerobic_heart_rate_upper_limit"]),
    ("2a83", ["threshold=btatt.anaerobic_threshold"]),
    ("2a84", ["limit=btatt.aerobic_heart_rate_upper_limit"]),
    ("2a85", ["year=btatt.year", "month=btatt.month", "day=btatt.day"]),
    ("2a86", ["year=btatt.year", "month=btatt.month", "day=btatt.day"]),
    ("2a87", ["email=btatt.email_address"]),
    ("2a88", ["limit=btatt.fat_burn_heart_rate_lower_limit"]),
    ("2a89", ["limit=btatt.fat_burn_heart_rate_upper_limit"]),
    ("2a8a", ["name=btatt.first_name"]),
    (
      "2a8b",
      [
        "very_light_light=btatt.five_zone_heart_rate_limits.very_light_light_limit",
        "light_moderate=btatt.five_zone_heart_rate_limits.light_moderate_limit",
        "moderate_hard=btatt.five_zone_heart_rate_limits.moderate_hard_limit",
        "hard_maximum=btatt.five_zone_heart_rate_limits.hard_maximum_limit",
      ]
    ),
    ("2a8c", ["gender=btatt.gender"]),
    ("2a8d", ["max=btatt.heart_rate_max"]),
    ("2a8e", ["height=btatt.height"]),
    ("2a8f", ["circumference=btatt.hip_circumference"]),
    ("2a90", ["name=btatt.last_name"]),
    ("2a91", ["max=btatt.maximum_recommended_heart_rate"]),
    ("2a92", ["rest=btatt.resting_heart_rate"]),
    ("2a93", ["sport=btatt.sport_type_for_aerobic_and_anaerobic_thresholds"]),
    (
      "2a94",
      [
        "light_moderate=btatt.three_zone_heart_rate_limits.light_moderate",
        "moderate_hard=btatt.three_zone_heart_rate_limits.moderate_hard",
      ]
    ),
    ("2a95", ["limit=btatt.two_zone_heart_rate_limit.fat_burn_fitness"]),
    ("2a96", ["vo2_max=btatt.vo2_max"]),
    ("2a97", ["circumference=btatt.waist_circumference"]),
    ("2a98", ["weight=btatt.weight"]),
    ("2a99", ["increment=btatt.database_change_increment"]),
    ("2a9a", ["index=btatt.user_index"]),
    ("2aa2", ["language=btatt.language"]),
    (
      "2a9f",
      [
        "opcode=btatt.user_control_point.opcode", "request=btatt.user_control_point.request_opcode",
        "result=btatt.user_control_point.response_value", "parameter=btatt.user_index",
      ]
    ),
    (
      "2a9d",
      dateTime("time_stamp.") + [
        "flags=btatt.weight_measurement.flags", "flags.imperial=btatt.weight_measurement.flags.measurement_units",
        "flags.time_stamp_present=btatt.weight_measurement.flags.timestamp",
        "flags.user_id_present=btatt.weight_measurement.flags.user_id",
        "flags.bmi_present=btatt.weight_measurement.flags.bmi_and_height", "weight=btatt.weight_measurement.weight.kg",
        "user_id=btatt.weight_measurement.user_id", "bmi=btatt.weight_measurement.bmi",
        "height=btatt.weight_measurement.height.m",
      ]
    ),
    (
      "2a9e",
      [
        "features=btatt.weight_scale_feature", "features.time_stamp=btatt.weight_scale_feature.timestamp",
        "features.multiple_users=btatt.weight_scale_feature.multiple_users",
        "features.bmi=btatt.weight_scale_feature.bmi",
        "features.weight_resolution=btatt.weight_scale_feature.weight_measurement_resolution",
        "features.height_resolution=btatt.weight_scale_feature.height_measurement_resolution",
      ]
    ),
    (
      "2a9b",
      [
        "features=btatt.body_composition_feature", "features.time_stamp=btatt.body_composition_feature.timestamp",
        "features.multiple_users=btatt.body_composition_feature.multiple_users",
        "features.basal_metabolism=btatt.body_composition_feature.basal_metabolism",
        "features.muscle_percentage=btatt.body_composition_feature.muscle_percentage",
        "features.muscle_mass=btatt.body_composition_feature.muscle_mass",
        "features.fat_free_mass=btatt.body_composition_feature.fat_free_mass",
        "features.soft_lean_mass=btatt.body_composition_feature.soft_lean_mass",
        "features.body_water_mass=btatt.body_composition_feature.body_water_mass",
        "features.impedance=btatt.body_composition_feature.impedance",
        "features.weight=btatt.body_composition_feature.weight",
        "features.height=btatt.body_composition_feature.height",
        "features.mass_resolution=btatt.body_composition_feature.mass_measurement_resolution",
        "features.height_resolution=btatt.body_composition_feature.height_measurement_resolution",
      ]
    ),
    (
      "2a9c",
      dateTime("time_stamp.") + [
        "flags=btatt.body_composition_measurement.flags",
        "flags.imperial=btatt.body_composition_measurement.flags.measurement_units",
        "flags.time_stamp_present=btatt.body_composition_measurement.flags.timestamp",
        "flags.user_id_present=btatt.body_composition_measurement.flags.user_id",
        "flags.basal_present=btatt.body_composition_measurement.flags.basal_metabolism",
        "flags.muscle_percentage_present=btatt.body_composition_measurement.flags.muscle_percentage",
        "flags.muscle_mass_present=btatt.body_composition_measurement.flags.muscle_mass",
        "flags.fat_free_present=btatt.body_composition_measurement.flags.fat_free_mass",
        "flags.soft_lean_present=btatt.body_composition_measurement.flags.soft_lean_mass",
        "flags.water_present=btatt.body_composition_measurement.flags.body_water_mass",
        "flags.impedance_present=btatt.body_composition_measurement.flags.impedance",
        "flags.weight_present=btatt.body_composition_measurement.flags.weight",
        "flags.height_present=btatt.body_composition_measurement.flags.height",
        "flags.multiple_packet=btatt.body_composition_measurement.flags.multiple_packet_measurement",
        "body_fat=btatt.body_composition_measurement.body_fat_percentage",
        "user_id=btatt.body_composition_measurement.user_id", "weight=btatt.body_composition_measurement.weight.kg",
        "height=btatt.body_composition_measurement.height.meter",
      ]
    ),
    (
      "2a5e",
      dateTime("timestamp.") + [
        "flags=btatt.plxs.spot_check_measurement.flags",
        "flags.timestamp_present=btatt.plxs.spot_check_measurement.flags.timestamp",
        "flags.status_present=btatt.plxs.spot_check_measurement.flags.measurement_status",
        "flags.device_status_present=btatt.plxs.spot_check_measurement.flags.device_and_sensor_status",
        "flags.pai_present=btatt.plxs.spot_check_measurement.flags.pulse_amplitude_index",
        "flags.clock_not_set=btatt.plxs.spot_check_measurement.flags.device_clock_is_not_set",
        "spo2=btatt.plxs.spot_check_measurement.spo2", "pr=btatt.plxs.spot_check_measurement.pulse_rate",
        "status=btatt.plxs.spot_check_measurement.measurement_status",
      ]
    ),
    (
      "2a5f",
      [
        "flags=btatt.plxs.continuous_measurement.flags",
        "flags.fast_present=btatt.plxs.continuous_measurement.flags.spo2pr_fast",
        "flags.slow_present=btatt.plxs.continuous_measurement.flags.spo2pr_slow",
        "flags.status_present=btatt.plxs.continuous_measurement.flags.measurement_status",
        "flags.device_status_present=btatt.plxs.continuous_measurement.flags.device_and_sensor_status",
        "flags.pai_present=btatt.plxs.continuous_measurement.flags.pulse_amplitude_index",
        "spo2=btatt.plxs.spot_check_measurement.spo2", "pr=btatt.plxs.spot_check_measurement.pulse_rate",
      ]
    ),
    (
      "2a60",
      [
        "features=btatt.plxs.features.supported_features",
        "features.status_supported=btatt.plxs.features.supported_features.measurement_status",
        "features.device_status_supported=btatt.plxs.features.supported_features.device_and_sensor_status",
        "features.storage=btatt.plxs.features.supported_features.measurement_storage_for_spot_check",
        "features.timestamp=btatt.plxs.features.supported_features.timestamp_storage_for_spot_check",
        "features.fast=btatt.plxs.features.supported_features.spo2pr_fast",
        "features.slow=btatt.plxs.features.supported_features.spo2pr_slow",
        "features.pai=btatt.plxs.features.supported_features.pulse_amplitude_index",
        "features.multiple_bonds=btatt.plxs.features.supported_features.multiple_bonds",
        "status_support=btatt.plxs.spot_check_measurement.measurement_status",
        "device_status_support=btatt.plxs.spot_check_measurement.device_and_sensor_status",
      ]
    ),
    (
      "2a3f",
      [
        "status=btatt.alert.status", "status.ringer=btatt.alert_status.ringer_state",
        "status.vibrate=btatt.alert.status.vibrate_state", "status.display=btatt.alert.status.display_alert_status",
      ]
    ),
    ("2a40", ["command=btatt.ringer_control_point"]),
    ("2a41", ["setting=btatt.ringer_setting"]),
    ("2a43", ["category=btatt.alert.category_id"]),
    ("2a44", ["command=btatt.alert.command_id", "category=btatt.alert.category_id"]),
    ("2a45", ["category=btatt.alert.category_id", "count=btatt.alert.unread_count"]),
    (
      "2a46",
      [
        "category=btatt.alert.category_id", "count=btatt.alert.number_of_new_alert",
        "text=btatt.text_string_information",
      ]
    ),
    (
      "2a42",
      [
        "categories=btatt.alert.category_id_bitmask_1",
        "categories.simple=btatt.alert.category_id_bitmask_1.simple_alert",
        "categories.email=btatt.alert.category_id_bitmask_1.email",
        "categories.news=btatt.alert.category_id_bitmask_1.news",
        "categories.call=btatt.alert.category_id_bitmask_1.call",
        "categories.missed_call=btatt.alert.category_id_bitmask_1.missed_call",
        "categories.sms=btatt.alert.category_id_bitmask_1.sms_mms",
        "categories.voice_mail=btatt.alert.category_id_bitmask_1.voice_mail",
        "categories.schedule=btatt.alert.category_id_bitmask_1.schedule",
        "categories_1=btatt.alert.category_id_bitmask_2",
        "categories_1.high_priority=btatt.alert.category_id_bitmask_2.high_prioritized_alert",
        "categories_1.instant_message=btatt.alert.category_id_bitmask_2.instant_message",
      ]
    ),
    (
      "2a47",
      [
        "categories=btatt.alert.category_id_bitmask_1",
        "categories.simple=btatt.alert.category_id_bitmask_1.simple_alert",
        "categories.schedule=btatt.alert.category_id_bitmask_1.schedule",
        "categories.call=btatt.alert.category_id_bitmask_1.call",
      ]
    ),
    (
      "2a48",
      [
        "categories=btatt.alert.category_id_bitmask_1",
        "categories.simple=btatt.alert.category_id_bitmask_1.simple_alert",
        "categories.call=btatt.alert.category_id_bitmask_1.call", "categories_1=btatt.alert.category_id_bitmask_2",
        "categories_1.high_priority=btatt.alert.category_id_bitmask_2.high_prioritized_alert",
        "categories_1.instant_message=btatt.alert.category_id_bitmask_2.instant_message",
      ]
    ),
    (
      "2a4a",
      [
        "bcd_hid=btatt.hogp.bcd_hid", "country=btatt.hogp.b_country_code", "flags=btatt.hogp.flags",
        "flags.remote_wake=btatt.hogp.flags.remote_wake",
        "flags.normally_connectable=btatt.hogp.flags.normally_connectable",
      ]
    ),
    ("2a4c", ["command=btatt.hogp.hid_control_point_command"]),
    ("2a4e", ["mode=btatt.hogp.protocol_mode"]),
    ("2a4f", ["interval=btatt.le_scan_interval", "window=btatt.le_scan_window"]),
    ("2a31", ["refresh=btatt.scan_refresh"]),
    (
      "2a22",
      [
        "modifiers.left_ctrl=usbhid.boot_report.keyboard.modifier.left_ctrl",
        "modifiers.left_shift=usbhid.boot_report.keyboard.modifier.left_shift",
        "modifiers.left_alt=usbhid.boot_report.keyboard.modifier.left_alt",
        "modifiers.left_gui=usbhid.boot_report.keyboard.modifier.left_gui",
        "modifiers.right_ctrl=usbhid.boot_report.keyboard.modifier.right_ctrl",
        "modifiers.right_shift=usbhid.boot_report.keyboard.modifier.right_shift",
        "modifiers.right_alt=usbhid.boot_report.keyboard.modifier.right_alt",
        "modifiers.right_gui=usbhid.boot_report.keyboard.modifier.right_gui",
        "reserved=usbhid.boot_report.keyboard.reserved",
      ]
    ),
    (
      "2a32",
      [
        "leds.num_lock=usbhid.boot_report.keyboard.leds.num_lock",
        "leds.caps_lock=usbhid.boot_report.keyboard.leds.caps_lock",
        "leds.scroll_lock=usbhid.boot_report.keyboard.leds.scroll_lock",
        "leds.compose=usbhid.boot_report.keyboard.leds.compose", "leds.kana=usbhid.boot_report.keyboard.leds.kana",
      ]
    ),
    (
      "2a33",
      [
        "buttons.button_1=usbhid.boot_report.mouse.button.left",
        "buttons.button_2=usbhid.boot_report.mouse.button.right",
        "buttons.button_3=usbhid.boot_report.mouse.button.middle", "x=usbhid.boot_report.mouse.x_displacement",
        "y=usbhid.boot_report.mouse.y_displacement",
      ]
    ),
    // tshark shows the first octet of Digital states whole, as one number.
    ("2a56", ["octets.states=btatt.digital"]),
    ("2a58", ["analog=btatt.analog"]),
    ("2a1f", ["temperature=btatt.temperature_celsius"]),
    ("2a20", ["temperature=btatt.temperature_fahrenheit"]),
    ("2a3a", ["removable=btatt.removable.removable"]),
    ("2a3b", ["required=btatt.service_required.service_required"]),
    ("2a3c", ["temperature=btatt.scientific_temperature_celsius"]),
    ("2a3d", ["text=btatt.string"]),
    ("2a3e", ["availability=btatt.network_availability"]),
    (
      "2aa4",
      [
        "opcode=btatt.bond_management_control_point.opcode",
        "authorization=btatt.bond_management_control_point.authorization_code",
      ]
    ),
    (
      "2aa5",
      [
        "features.requesting_both=btatt.bond_management_feature.delete_bond_of_current_br_edr_and_le_connection",
        "features.requesting_both_code=btatt.bond_management_feature.authorization_code_required_for_feature_above.1",
        "features.requesting_bredr=btatt.bond_management_feature.delete_bond_of_current_br_edr_transport_only_connection",
        "features.requesting_bredr_code=btatt.bond_management_feature.authorization_code_required_for_feature_above.2",
        "features.requesting_le=btatt.bond_management_feature.delete_bond_of_current_le_transport_only_connection",
        "features.requesting_le_code=btatt.bond_management_feature.authorization_code_required_for_feature_above.3",
        "features.all_both=btatt.bond_management_feature.remove_all_bonds_on_br_edr_and_le_server",
        "features.all_both_code=btatt.bond_management_feature.authorization_code_required_for_feature_above.4",
        "features_2.all_bredr=btatt.bond_management_feature.remove_all_bonds_on_br_edr_transport_only_server",
        "features_2.all_bredr_code=btatt.bond_management_feature.authorization_code_required_for_feature_above.5",
        "features_2.all_le=btatt.bond_management_feature.remove_all_bonds_on_le_transport_only_server",
        "features_2.all_le_code=btatt.bond_management_feature.authorization_code_required_for_feature_above.6",
        "features_2.others_both=btatt.bond_management_feature.remove_all_but_the_active_bond_on_br_edr_and_le_server",
        "features_2.others_both_code=btatt.bond_management_feature.authorization_code_required_for_feature_above.7",
        "features_2.others_bredr=btatt.bond_management_feature.remove_all_but_the_active_bond_on_br_edr_transport_only_server",
        "features_2.others_bredr_code=btatt.bond_management_feature.authorization_code_required_for_feature_above.8",
        "features_3.others_le=btatt.bond_management_feature.remove_all_but_the_active_bond_on_le_transport_only_server",
        "features_3.others_le_code=btatt.bond_management_feature.authorization_code_required_for_feature_above.9",
        "features_3.identify=btatt.bond_management_feature.identify_yourself",
        "features_3.extension=btatt.bond_management_feature.feature_extension",
      ]
    ),
    (
      "2aa7",
      [
        "size=btatt.cgm_measurement.size", "flags=btatt.cgm_measurement.flags",
        "concentration=btatt.cgm_measurement.glucose_concentration", "time_offset=btatt.cgm_measurement.time_offset",
        "status=btatt.cgm.sensor_status_annunciation.status",
        "status.session_stopped=btatt.cgm.sensor_status_annunciation.status.session_stopped",
        "status.battery_low=btatt.cgm.sensor_status_annunciation.status.device_battery_low",
        "status.sensor_type=btatt.cgm.sensor_status_annunciation.status.sensor_type_incorrect_for_device",
        "status.malfunction=btatt.cgm.sensor_status_annunciation.status.sensor_malfunction",
        "status.device_alert=btatt.cgm.sensor_status_annunciation.status.device_specific_alert",
        "status.device_fault=btatt.cgm.sensor_status_annunciation.status.general_device_fault_has_occurred_in_the_sensor",
        "trend=btatt.cgm_measurement.trend_information", "quality=btatt.cgm_measurement.quality",
      ]
    ),
    (
      "2aa8",
      [
        "features=btatt.cgm_feature.feature", "features.calibration=btatt.cgm_feature.feature.calibration",
        "features.patient_alerts=btatt.cgm_feature.feature.patient_high_low_alerts",
        "features.hypo_alerts=btatt.cgm_feature.feature.hypo_alerts",
        "features.hyper_alerts=btatt.cgm_feature.feature.hyper_alerts",
        "features.rate_alerts=btatt.cgm_feature.feature.rate_of_increase_decrease_alerts",
        "features.device_alert=btatt.cgm_feature.feature.device_specific_alert",
        "features.malfunction=btatt.cgm_feature.feature.sensor_malfunction_detection",
        "features.temperature=btatt.cgm_feature.feature.sensor_temperature_high_low_detection",
        "features.result=btatt.cgm_feature.feature.sensor_result_high_low_detection",
        "features.battery=btatt.cgm_feature.feature.low_battery_detection",
        "features.sensor_type=btatt.cgm_feature.feature.sensor_type_error_detection",
        "features.device_fault=btatt.cgm_feature.feature.general_device_fault",
        "features.e2e_crc=btatt.cgm_feature.feature.e2e_crc",
        "features.multiple_bond=btatt.cgm_feature.feature.multiple_bond",
        "features.multiple_sessions=btatt.cgm_feature.feature.multiple_sessions",
        "features.trend=btatt.cgm_feature.feature.trend_information",
        "features.quality=btatt.cgm_feature.feature.quality", "type_and_location=btatt.cgm.type_and_sample_location",
        "crc=btatt.cgm.e2e_crc",
      ]
    ),
    (
      "2aa9",
      [
        "time_offset=btatt.cgm.time_offset", "status=btatt.cgm.sensor_status_annunciation.status",
        "status.session_stopped=btatt.cgm.sensor_status_annunciation.status.session_stopped",
        "status.battery_low=btatt.cgm.sensor_status_annunciation.status.device_battery_low",
        "status.sensor_type=btatt.cgm.sensor_status_annunciation.status.sensor_type_incorrect_for_device",
        "status.malfunction=btatt.cgm.sensor_status_annunciation.status.sensor_malfunction",
        "status.device_alert=btatt.cgm.sensor_status_annunciation.status.device_specific_alert",
        "status.device_fault=btatt.cgm.sensor_status_annunciation.status.general_device_fault_has_occurred_in_the_sensor",
        "cal_temp=btatt.cgm.sensor_status_annunciation.cal_temp",
        "cal_temp.time_sync=btatt.cgm_measurement.sensor_cal_temp_annunciation.cal_temp.time_synchronization_between_sensor_and_collector_required",
        "cal_temp.calibration_not_allowed=btatt.cgm_measurement.sensor_cal_temp_annunciation.cal_temp.calibration_not_allowed",
        "cal_temp.calibration_recommended=btatt.cgm_measurement.sensor_cal_temp_annunciation.cal_temp.calibration_recommended",
        "cal_temp.calibration_required=btatt.cgm_measurement.sensor_cal_temp_annunciation.cal_temp.calibration_required",
        "cal_temp.temperature_high=btatt.cgm_measurement.sensor_cal_temp_annunciation.cal_temp.sensor_temperature_too_high_for_valid_test_result_at_time_of_measurement",
        "cal_temp.temperature_low=btatt.cgm.sensor_status_annunciation.cal_temp.sensor_temperature_too_low_for_valid_test_result_at_time_of_measurement",
        "warning=btatt.cgm.sensor_status_annunciation.warning",
        "warning.patient_low=btatt.cgm_measurement.sensor_warning_annunciation.warning.sensor_result_lower_than_the_patient_low_level",
        "warning.patient_high=btatt.cgm_measurement.sensor_warning_annunciation.warning.sensor_result_higher_than_the_patient_high_level",
        "warning.hypo=btatt.cgm_measurement.sensor_warning_annunciation.warning.sensor_result_lower_than_the_hypo_level",
        "warning.hyper=btatt.cgm_measurement.sensor_warning_annunciation.warning.sensor_result_higher_than_the_hyper_level",
        "warning.decrease=btatt.cgm_measurement.sensor_warning_annunciation.warning.sensor_rate_of_decrease_exceeded",
        "warning.increase=btatt.cgm_measurement.sensor_warning_annunciation.warning.sensor_rate_of_increase_exceeded",
        "warning.too_low=btatt.cgm_measurement.sensor_warning_annunciation.warning.sensor_result_lower_than_the_device_can_process",
        "warning.too_high=btatt.cgm.sensor_status_annunciation.warning.sensor_result_higher_than_the_device_can_process",
        "crc=btatt.cgm.e2e_crc",
      ]
    ),
    ("2aaa", dateTime("start.") + ["zone=btatt.timezone", "dst=btatt.dst_offset", "crc=btatt.cgm.e2e_crc"]),
    ("2aab", ["run_time=btatt.cgm.session_run_time"]),
    (
      "2aac",
      [
        "opcode=btatt.cgm_specific_ops_control_point.opcode",
        "interval=btatt.cgm_specific_ops_control_point.operand.communication_interval",
      ]
    ),
    (
      "2aad",
      [
        "configuration=btatt.indoor_positioning_configuration",
        "configuration.coordinates=btatt.indoor_positioning_configuration.coordinates",
        "configuration.coordinate_system=btatt.indoor_positioning_configuration.coordinate_system",
        "configuration.tx_power=btatt.indoor_positioning_configuration.tx_power",
        "configuration.altitude=btatt.indoor_positioning_configuration.altitude",
        "configuration.floor=btatt.indoor_positioning_configuration.floor_number",
        "configuration.uncertainty=btatt.indoor_positioning_configuration.uncertainty",
        "configuration.location_name=btatt.indoor_positioning_configuration.location_name",
      ]
    ),
    ("2aae", ["latitude=btatt.latitude"]),
    ("2aaf", ["longitude=btatt.longitude"]),
    ("2ab0", ["north=btatt.local_north_coordinate"]),
    ("2ab1", ["east=btatt.local_east_coordinate"]),
    (
      "2ab4",
      [
        "uncertainty=btatt.uncertainty", "uncertainty.mobile=btatt.uncertainty.stationary",
        "uncertainty.update_time=btatt.uncertainty.update_time", "uncertainty.precision=btatt.uncertainty.precision",
      ]
    ),
    ("2ab5", ["name=btatt.location_name"]),
    ("2ab6", ["uri=btatt.uri"]),
    ("2ab7", ["headers=btatt.http_headers"]),
    (
      "2ab8",
      [
        "status=btatt.http_status_code", "data_status=btatt.http_data_status",
        "data_status.headers_received=btatt.http_data_status.headers_received",
        "data_status.headers_truncated=btatt.http_data_status.headers_truncated",
        "data_status.body_received=btatt.http_data_status.body_received",
        "data_status.body_truncated=btatt.http_data_status.body_truncated",
      ]
    ),
    ("2ab9", ["body=btatt.http_entity_body"]),
    ("2aba", ["opcode=btatt.control_point.opcode"]),
    ("2abb", ["security=btatt.https_security"]),
    (
      "2abd",
      [
        "oacp=btatt.ots.oacp", "oacp.create=btatt.ots.oacp.create", "oacp.delete=btatt.ots.oacp.delete",
        "oacp.checksum=btatt.ots.oacp.calculate_checksum", "oacp.execute=btatt.ots.oacp.execute",
        "oacp.read=btatt.ots.oacp.read", "oacp.write=btatt.ots.oacp.write",
        "oacp.append=btatt.ots.oacp.appending_additional_data_to_object",
        "oacp.truncate=btatt.ots.oacp.truncation_of_objects", "oacp.patch=btatt.ots.oacp.patching_of_object",
        "oacp.abort=btatt.ots.oacp.abort", "olcp=btatt.ots.olcp", "olcp.go_to=btatt.ots.olcp.go_to",
        "olcp.order=btatt.ots.olcp.order", "olcp.count=btatt.ots.olcp.request_number_of_objects",
        "olcp.clear_marking=btatt.ots.olcp.clear_marking",
      ]
    ),
    ("2abe", ["name=btatt.ots.object_name"]),
    ("2ac0", ["current=btatt.ots.current_size", "allocated=btatt.ots.allocated_size"]),
    ("2ac1", dateTime()),
    ("2ac2", dateTime()),
    ("2ac3", ["id=btatt.ots.object_id"]),
    (
      "2ac4",
      [
        "properties=btatt.ots.properties", "properties.delete=btatt.ots.properties.delete",
        "properties.execute=btatt.ots.properties.execute", "properties.read=btatt.ots.properties.read",
        "properties.write=btatt.ots.properties.write", "properties.append=btatt.ots.properties.append",
        "properties.truncate=btatt.ots.properties.truncate", "properties.patch=btatt.ots.properties.patch",
        "properties.mark=btatt.ots.properties.mark",
      ]
    ),
    ("2ac5", ["opcode=btatt.ots.action.opcode", "offset=btatt.ots.offset", "length=btatt.ots.length"]),
    ("2ac6", ["opcode=btatt.ots.list.opcode", "object=btatt.ots.object_id"]),
    ("2ac7", ["filter=btatt.ots.filter", "name=btatt.ots.name_string"]),
    (
      "2ac8",
      [
        "flags=btatt.ots.flags", "flags.source=btatt.ots.flags.source_of_change",
        "flags.contents=btatt.ots.flags.change_occurred_to_the_object_contents",
        "flags.metadata=btatt.ots.flags.change_occurred_to_the_object_metadata",
        "flags.creation=btatt.ots.flags.object_creation", "flags.deletion=btatt.ots.flags.object_deletion",
        "object=btatt.ots.object_id",
      ]
    ),
    (
      "2ad3",
      [
        "flags=btatt.training_status", "flags.string_present=btatt.training_status.training_status_string",
        "flags.extended_string=btatt.training_status.extended_string", "status=btatt.training_status.status",
        "text=btatt.training_status.status_string",
      ]
    ),
    (
      "2ad4",
      [
        "minimum=btatt.supported_speed_range.minimum_speed", "maximum=btatt.supported_speed_range.maximum_speed",
        "increment=btatt.supported_speed_range.minimum_increment",
      ]
    ),
    (
      "2ad5",
      [
        "minimum=btatt.supported_inclination_range.minimum_inclination",
        "maximum=btatt.supported_inclination_range.maximum_inclination",
        "increment=btatt.supported_inclination_range.minimum_increment",
      ]
    ),
    (
      "2ad6",
      [
        "minimum=btatt.supported_resistance_level_range.minimum_resistance_level",
        "maximum=btatt.supported_resistance_level_range.maximum_resistance_level",
        "increment=btatt.supported_resistance_level_range.minimum_increment",
      ]
    ),
    (
      "2ad7",
      [
        "minimum=btatt.supported_heart_rate_range.minimum_heart_rate",
        "maximum=btatt.supported_heart_rate_range.maximum_heart_rate",
        "increment=btatt.supported_heart_rate_range.minimum_increment",
      ]
    ),
    (
      "2ad8",
      [
        "minimum=btatt.supported_power_range.minimum_power", "maximum=btatt.supported_power_range.maximum_power",
        "increment=btatt.supported_power_range.minimum_increment",
      ]
    ),
    ("2ada", ["opcode=btatt.fitness_machine_status.opcode", "power=btatt.fitness_machine.power"]),
    (
      "2900",
      [
        "properties=btatt.characteristic_extended_properties",
        "properties.reliable_write=btatt.characteristic_extended_properties.reliable_write",
        "properties.writable_auxiliaries=btatt.characteristic_extended_properties.writable_auxiliaries",
      ]
    ),
    ("2901", ["description=btatt.characteristic_user_description"]),
    (
      "2902",
      [
        "configuration=btatt.characteristic_configuration_client",
        "configuration.notification=btatt.characteristic_configuration_client.notification",
        "configuration.indication=btatt.characteristic_configuration_client.indication",
      ]
    ),
    (
      "2903",
      [
        "configuration=btatt.characteristic_configuration_server",
        "configuration.broadcast=btatt.characteristic_configuration_server.broadcast",
      ]
    ),
    (
      "2904",
      [
        "format=btatt.characteristic_presentation.format", "exponent=btatt.characteristic_presentation.exponent",
        "unit=btatt.characteristic_presentation.unit", "namespace=btatt.characteristic_presentation.namespace",
        "description=btatt.characteristic_presentation.namespace_description",
      ]
    ),
    ("2908", ["id=btatt.report_reference.report_id", "type=btatt.report_reference.report_type"]),
    ("2909", ["count=btatt.number_of_digitals"]),
    ("290a", ["condition=btatt.value_trigger_setting.condition"]),
    ("290b", ["logic=btatt.esp.trigger_logic"]),
    (
      "290c",
      [
        "flags=btatt.esp.flags", "sampling=btatt.esp.sampling_function", "period=btatt.esp.measurement_period",
        "update=btatt.esp.update_interval", "application=btatt.esp.application",
        "uncertainty=btatt.esp.measurement_uncertainty",
      ]
    ),
    ("290d", ["condition=btatt.esp.condition"]),
    ("290e", ["condition=btatt.time_trigger_setting.condition", "interval=btatt.time_trigger_setting.time_interval"]),
  ]

  /// Fields tshark 4.0 decodes against the specification, each shown by the test below to
  /// still disagree, so that a fixed tshark brings them back into `agreements`.
  static let defects: [(uuid: String, pair: String, why: String)] = [
    (
      "2acc", "features=btatt.fitness_machine_features",
      "reads the Fitness Machine Features field big-endian (GATT values are little-endian)"
    ),
    (
      "2acc", "targets=btatt.target_setting_features",
      "reads the Target Setting Features field big-endian (GATT values are little-endian)"
    ),
    (
      "2a1c", "temperature=btatt.temperature_measurement.value.celsius",
      "shows 0 for the IEEE 11073 FLOAT 36.7 (0xff00016f)"
    ),
    (
      "2a1e", "temperature=btatt.temperature_measurement.value.fahrenheit",
      "shows 0 for the IEEE 11073 FLOAT 100.8 (0xff0003f0)"
    ),
    (
      "2aa7", "flags.quality_present=btatt.cgm_measurement.flags.cgm_quality",
      "numbers the CGM Measurement flags from the most significant bit (CGM Quality Present is bit 1, as CGMS and Nordic's CGMS have it)"
    ),
    (
      "2aa8", "type_and_location.type=btatt.cgm.type_and_sample_location.type",
      "takes the CGM Type from the high nibble (the Type is the low nibble, as in Glucose Measurement, which tshark reads so)"
    ),
    (
      "2a34", "tester_health.tester=btatt.glucose_measurement_context.tester_and_health.tester",
      "takes the Tester from the high nibble (the Tester is the low nibble, the Health the high one)"
    ),
  ]

  /// Formats tshark 4.0 does not decode (it shows their value as bytes); the test below
  /// checks that it still does not.
  static let notDecodedByTshark: Set<String> = [
    // Fitness machine data and control point: tshark marks them "Undecoded".
    "2acd", "2ace", "2acf", "2ad0", "2ad1", "2ad2", "2ad9",
    // Object Type, External Report Reference: no field.
    "2abf", "2907",
    // Database Hash, Client and Server Supported Features, Battery Level Status and Critical Status.
    "2b29", "2b2a", "2b3a", "2bed", "2be9",
    // The GSS scalars of the mesh device properties.
    "2ae2", "2ae3", "2ae4", "2ae5", "2ae6", "2ae7", "2ae8", "2ae9", "2aea", "2aeb", "2aec", "2aed", "2aee", "2aef",
    "2af0", "2af2", "2af3", "2af5", "2af6", "2af7", "2af8", "2bde", "2af9", "2afa", "2afb", "2afc", "2afd", "2afe",
    "2aff", "2b00", "2b01", "2b02", "2b03", "2b04", "2b05", "2b06", "2b07", "2b08", "2b09", "2b0a", "2b0b", "2b0c",
    "2b0d", "2b0e", "2b10", "2b12", "2b14", "2b15", "2b16", "2b17", "2be6", "2b18", "2b19", "2be8", "2be0", "2bdf",
    "2b1b", "2b1c",
    // LE Audio.
    "2b7d", "2b7e", "2b7f", "2b80", "2b81", "2b82", "2b83", "2b77", "2b78", "2b7a", "2b7b", "2b7c", "2bc3", "2b85",
    "2b86", "2b87", "2bca", "2bcc", "2bcd", "2bce", "2b51", "2bda", "2bdc", "2bba", "2b93", "2b97", "2b98", "2b99",
    "2ba3", "2bb3", "2bb5", "2bbb", "2bbd", "2bc0", "2bc1", "2bc2",
  ]

  /// Formats tshark decodes into fields the format keeps whole, so there is nothing to
  /// compare field by field.
  static let decodedWhole: [String: String] = [
    "2a2a": "an IEEE 11073-20601 regulatory list: bleanalyze keeps it as bytes, its layout is not the GSS's",
    "2a4b": "a USB HID report descriptor: tshark parses its items, the format keeps the bytes",
    "2905": "handles tshark lists without values",
    "2906": "tshark cannot size the bounds without the characteristic's format, and shows none",
  ]
  // MARK: - Running tshark

  /// One fixture per frame: its UUID, and the frame tshark numbers it by.
  struct Capture {
    var url: URL
    var frames: [String: Int]
  }

  /// A btsnoop (datalink 1002, H4) of every fixture: an LE Connection Complete, then per
  /// fixture a Find Information Request/Response that names handle 0x0010+n, then the
  /// value: a Handle Value Notification, or for a descriptor a Read Request and Response.
  static let capture: Capture? = {
    func le16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)] }
    func be32(_ value: Int) -> [UInt8] { (0..<4).reversed().map { UInt8(value >> (8 * $0) & 0xFF) } }
    /// ACL handle 0x0040, L2CAP channel 4 (ATT).
    func acl(_ att: [UInt8]) -> [UInt8] { [0x02, 0x40, 0x20] + le16(att.count + 4) + le16(att.count) + [4, 0] + att }
    // LE Connection Complete: Success, handle 0x0040, central, peer D4:36:39:67:A2:61.
    var packets: [(bytes: [UInt8], received: Bool)] = [
      (
        [
          0x04, 0x3E, 0x13, 0x01, 0x00, 0x40, 0x00, 0x00, 0x00, 0x61, 0xA2, 0x67, 0x39, 0x36, 0xD4, 0x18, 0x00, 0x00,
          0x00, 0x48, 0x00, 0x00,
        ], true
      )
    ]
    var frames: [String: Int] = [:]
    for (index, fixture) in BuiltinDissectorTests.fixtures.enumerated() {
      guard let uuid = UInt16(fixture.uuid, radix: 16) else { return nil }
      let handle = le16(0x10 + index)
      let value = BuiltinDissectorTests.bytes(fixture.hex)
      packets.append((acl([0x04] + handle + handle), false))
      packets.append((acl([0x05, 0x01] + handle + le16(Int(uuid))), true))
      if fixture.uuid.hasPrefix("29") {
        packets.append((acl([0x0A] + handle), false))
        packets.append((acl([0x0B] + value), true))
      } else {
        packets.append((acl([0x1B] + handle + value), true))
      }
      frames[fixture.uuid] = packets.count
    }
    var file = Array("btsnoop\0".utf8) + be32(1) + be32(1002)
    for (index, packet) in packets.enumerated() {
      // Flags: bit 0 received, bit 1 command or event. Time: µs since year 0, 1 ms apart
      // from 2024-05-14 09:30 UTC.
      let flags = (packet.received ? 1 : 0) | (index == 0 ? 2 : 0)
      let time = 0x00DC_DDB3_0F2F_8000 + 1_715_679_000_000_000 + UInt64(index) * 1000
      file += be32(packet.bytes.count) + be32(packet.bytes.count) + be32(flags) + be32(0)
      file += (0..<8).reversed().map { UInt8(truncatingIfNeeded: time >> (8 * $0)) } + packet.bytes
    }
    // One file per test process; those of processes that are gone are removed.
    let temporary = FileManager.default.temporaryDirectory
    for name in (try? FileManager.default.contentsOfDirectory(atPath: temporary.path)) ?? []
    where name.hasPrefix("bleanalyze-oracle-") {
      if let pid = Int32(name.dropFirst("bleanalyze-oracle-".count).prefix { $0.isNumber }), kill(pid, 0) != 0,
        errno == ESRCH
      {
        try? FileManager.default.removeItem(at: temporary.appending(path: name))
      }
    }
    let url = temporary.appending(path: "bleanalyze-oracle-\(getpid()).btsnoop")
    guard (try? Data(file).write(to: url)) != nil else { return nil }
    return Capture(url: url, frames: frames)
  }()

  /// tshark's `-T fields` of every frame: frame number → field → its values joined by ","
  /// (`-E occurrence=a`); nil when tshark could not run.
  static let decoded: [Int: [String: String]]? = {
    guard let tshark, let capture else { return nil }
    let fields = Set((agreements.flatMap(\.pairs) + defects.map(\.pair)).compactMap { $0.split(separator: "=").last })
      .map(String.init).sorted()
    let process = Process()
    process.executableURL = tshark
    process.arguments =
      ["-n", "-r", capture.url.path, "-T", "fields", "-E", "occurrence=a", "-e", "frame.number"]
      + fields.flatMap { ["-e", $0] }
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    guard (try? process.run()) != nil else { return nil }
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { return nil }
    var result: [Int: [String: String]] = [:]
    for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
      let columns = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
      guard columns.count == fields.count + 1, let frame = Int(columns[0]) else { continue }
      result[frame] = Dictionary(uniqueKeysWithValues: zip(fields, columns.dropFirst()).filter { !$0.1.isEmpty })
    }
    return result
  }()

  // MARK: - Comparing

  /// The text of our field at `path` (ids joined by "."), as tshark would print it: raw
  /// integers in decimal, numbers, text; a repeated field gives every occurrence.
  static func ourValues(_ fields: [DecodedField], _ path: ArraySlice<Substring>) -> [DecodedField] {
    guard let id = path.first else { return [] }
    var found: [DecodedField] = []
    for field in fields where field.id == id {
      let occurrences: [DecodedField]
      if case .list(let items) = field.value { occurrences = items } else { occurrences = [field] }
      for occurrence in occurrences {
        found += path.count == 1 ? [occurrence] : ourValues(occurrence.children, path.dropFirst())
      }
    }
    return found
  }

  /// Whether tshark's text for one occurrence says what our field holds.
  static func agrees(_ field: DecodedField, _ text: String) -> Bool {
    let digits = text.replacing(":", with: "")
    switch field.value {
    case .text(let value): return value == text
    case .bytes(let value): return value.map { String(format: "%02x", $0) }.joined() == digits
    default: break
    }
    if let raw = field.raw {
      // tshark prints integers in decimal (signed as signed) or 0x-hex, addresses as
      // colon-separated hex; compare within the field's width.
      let mask: UInt64 = field.hexDigits == 0 || field.hexDigits >= 16 ? .max : (1 << (4 * field.hexDigits)) - 1
      if let number = Int64(text) { return raw & mask == UInt64(bitPattern: number) & mask }
      if text.hasPrefix("0x"), let number = UInt64(text.dropFirst(2), radix: 16) { return raw & mask == number & mask }
      if text.contains(":"), let number = UInt64(digits, radix: 16) { return raw & mask == number & mask }
    }
    if let number = Double(text) {
      switch field.value {
      case .real(let value, _): return abs(value - number) <= 1e-9 * max(1, abs(number))
      case .named(_, let name) where name == "NaN": return number.isNaN
      default: return false
      }
    }
    return false
  }

  /// Our values and tshark's for one `path=field` pair of a fixture; nil when they agree.
  static func disagreement(uuid: String, pair: String) throws -> String? {
    let parts = pair.split(separator: "=")
    let fixture = try #require(BuiltinDissectorTests.fixtures.first { $0.uuid == uuid }, "no fixture for \(uuid)")
    let result = try #require(
      DissectorLibrary.builtin.decode(BuiltinDissectorTests.bytes(fixture.hex), uuid: BluetoothUUID(uuid)!))
    let ours = ourValues(result.fields, parts[0].split(separator: ".")[...])
    let frame = try #require(capture?.frames[uuid])
    let theirs = decoded?[frame]?[String(parts[1])].map { $0.split(separator: ",").map(String.init) } ?? []
    if !ours.isEmpty, ours.count == theirs.count, zip(ours, theirs).allSatisfy(agrees) { return nil }
    return "\(uuid) \(pair): ours \(ours.map { "\($0.raw.map(String.init) ?? "\($0.value)")" }), tshark \(theirs)"
  }

  @Test(
    "a built-in format agrees with tshark on every field tshark decodes",
    .enabled(if: tshark != nil, "tshark not installed; skipping oracle test"), arguments: agreements)
  func agreesWithTshark(uuid: String, pairs: [String]) throws {
    try #require(Self.decoded != nil, "tshark failed on the fixture capture")
    for pair in pairs {
      let problem = try Self.disagreement(uuid: uuid, pair: pair)
      #expect(problem == nil, "\(problem ?? "")")
    }
  }

  @Test(
    "tshark 4.0 still decodes these fields against the specification",
    .enabled(if: tshark != nil, "tshark not installed; skipping oracle test"), arguments: defects)
  func tsharkDefect(uuid: String, pair: String, why: String) throws {
    try #require(Self.decoded != nil, "tshark failed on the fixture capture")
    #expect(try Self.disagreement(uuid: uuid, pair: pair) != nil, "tshark now agrees on \(pair) (\(why))")
  }

  /// Every fixture is compared, excused as a tshark defect, decoded whole by us, or not
  /// decoded by tshark at all; and tshark decodes none of the last.
  @Test(
    "every built-in format is compared with tshark or listed as one tshark does not decode",
    .enabled(if: tshark != nil, "tshark not installed; skipping oracle test"))
  func everyFormatIsAccountedFor() throws {
    let compared = Set(Self.agreements.map(\.uuid))
    #expect(compared.count == Self.agreements.count, "one row per format")
    let excused = Set(Self.defects.map(\.uuid)).subtracting(compared)
    for fixture in BuiltinDissectorTests.fixtures {
      let places = [
        compared.contains(fixture.uuid), excused.contains(fixture.uuid), Self.notDecodedByTshark.contains(fixture.uuid),
        Self.decodedWhole[fixture.uuid] != nil,
      ]
      #expect(places.filter { $0 }.count == 1, "\(fixture.uuid) is in \(places.filter { $0 }.count) lists")
    }
    let fields = Self.agreements.map(\.pairs.count).reduce(0, +)
    print(
      "tshark value oracle: \(compared.count) formats compared on \(fields) fields, \(Self.defects.count) tshark defects "
        + "in \(Set(Self.defects.map(\.uuid)).count) formats, \(Self.notDecodedByTshark.count) formats tshark does not "
        + "decode, \(Self.decodedWhole.count) it decodes deeper than the format")
    // tshark decodes none of the formats said not to be decoded: their frames have no
    // btatt field but the value itself.
    let capture = try #require(Self.capture)
    let frames = Self.notDecodedByTshark.compactMap { capture.frames[$0] }.map(String.init)
    let process = Process()
    process.executableURL = Self.tshark
    process.arguments = [
      "-n", "-r", capture.url.path, "-T", "json", "-Y", "frame.number in {\(frames.joined(separator: ", "))}",
    ]
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let packets = try #require(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
    #expect(packets.count == frames.count)
    // The ATT header, the handle and its UUID, the value as bytes (with the "Undecoded" note
    // tshark hangs under it), the request a response answers, and notes.
    let plain: Set<String> = [
      "btatt.opcode", "btatt.opcode_tree", "btatt.handle", "btatt.handle_tree", "btatt.uuid16", "btatt.value",
      "btatt.value_tree", "btatt.undecoded", "btatt.request_in_frame", "btatt.mtu.exceeded", "_ws.expert",
    ]
    for packet in packets {
      let layers = (packet["_source"] as? [String: Any])?["layers"] as? [String: Any]
      let frame = (layers?["frame"] as? [String: Any])?["frame.number"] as? String ?? "?"
      let btatt = layers?["btatt"] as? [String: Any] ?? [:]
      let decodedKeys = btatt.keys.filter { !plain.contains($0) }
      #expect(decodedKeys.isEmpty, "tshark decodes frame \(frame): \(decodedKeys.sorted())")
    }
  }
}
