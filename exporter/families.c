/* The metric families, following Prometheus' naming conventions: the
 * jetson_ prefix, base units in the name (hertz, bytes, watts, volts,
 * amperes, joules, celsius, seconds, ratio 0-1), _total counters for
 * energy and byte counts, one family per quantity with the instance as a
 * label. Strings (governors, profiles) become info-style families whose
 * value is 1. docs/exporter.md lists this table; a test holds
 * it to the D-Bus key table of org.jetsond.Jetson1.Metrics.xml. */
#include "families.h"

#include <glib.h>
#include <string.h>

#include "exposition.h"

#define PROC_LABELS { "name", "user" }, { "name", "user" }

const fam_family fam_table[] = {
        /* CPU */
        { "cpu.load", "jetson_cpu_total_load_ratio", FAM_GAUGE, "ratio", NULL, SCALE_PERCENT, NULL, { 0 }, { 0 },
          "Load of all CPUs together over the last interval, 0 to 1" },
        { "cpu.user", "jetson_cpu_total_user_ratio", FAM_GAUGE, "ratio", NULL, SCALE_PERCENT, NULL, { 0 }, { 0 },
          "Share of all CPUs' time in user mode over the last interval, 0 to 1" },
        { "cpu.nice", "jetson_cpu_total_nice_ratio", FAM_GAUGE, "ratio", NULL, SCALE_PERCENT, NULL, { 0 }, { 0 },
          "Share of all CPUs' time in user mode at a positive nice value over the last interval, 0 to 1" },
        { "cpu.system", "jetson_cpu_total_system_ratio", FAM_GAUGE, "ratio", NULL, SCALE_PERCENT, NULL, { 0 }, { 0 },
          "Share of all CPUs' time in the kernel (system, irq, softirq) over the last interval, 0 to 1" },
        { "cpu.idle", "jetson_cpu_total_idle_ratio", FAM_GAUGE, "ratio", NULL, SCALE_PERCENT, NULL, { 0 }, { 0 },
          "Share of all CPUs' time idle (idle and iowait) over the last interval, 0 to 1" },
        { "cpu.*.online", "jetson_cpu_online", FAM_GAUGE, NULL, "cpu", SCALE_NONE, NULL, { 0 }, { 0 },
          "1 if the CPU is online (nvpmodel parks cores)" },
        { "cpu.*.load", "jetson_cpu_load_ratio", FAM_GAUGE, "ratio", "cpu", SCALE_PERCENT, NULL, { 0 }, { 0 },
          "Load of one CPU over the last interval, 0 to 1" },
        { "cpu.*.user", "jetson_cpu_user_ratio", FAM_GAUGE, "ratio", "cpu", SCALE_PERCENT, NULL, { 0 }, { 0 },
          "Share of one CPU's time in user mode over the last interval, 0 to 1" },
        { "cpu.*.nice", "jetson_cpu_nice_ratio", FAM_GAUGE, "ratio", "cpu", SCALE_PERCENT, NULL, { 0 }, { 0 },
          "Share of one CPU's time in user mode at a positive nice value over the last interval, 0 to 1" },
        { "cpu.*.system", "jetson_cpu_system_ratio", FAM_GAUGE, "ratio", "cpu", SCALE_PERCENT, NULL, { 0 }, { 0 },
          "Share of one CPU's time in the kernel (system, irq, softirq) over the last interval, 0 to 1" },
        { "cpu.*.idle", "jetson_cpu_idle_ratio", FAM_GAUGE, "ratio", "cpu", SCALE_PERCENT, NULL, { 0 }, { 0 },
          "Share of one CPU's time idle (idle and iowait) over the last interval, 0 to 1" },
        { "cpu.*.freq", "jetson_cpu_frequency_hertz", FAM_GAUGE, "hertz", "cpu", SCALE_KILO, NULL, { 0 }, { 0 },
          "Current frequency of one CPU" },
        { "cpu.*.min_freq", "jetson_cpu_min_frequency_hertz", FAM_GAUGE, "hertz", "cpu", SCALE_KILO, NULL, { 0 },
          { 0 }, "Lower frequency limit of one CPU (scaling_min_freq)" },
        { "cpu.*.max_freq", "jetson_cpu_max_frequency_hertz", FAM_GAUGE, "hertz", "cpu", SCALE_KILO, NULL, { 0 },
          { 0 }, "Upper frequency limit of one CPU (scaling_max_freq)" },
        { "cpu.*.governor", "jetson_cpu_governor", FAM_INFO, NULL, "cpu", SCALE_NONE, "governor", { 0 }, { 0 },
          "cpufreq governor of one CPU" },
        /* GPU */
        { "gpu.load", "jetson_gpu_load_ratio", FAM_GAUGE, "ratio", NULL, SCALE_PERCENT, NULL, { 0 }, { 0 },
          "Load of the integrated GPU, 0 to 1" },
        { "gpu.freq", "jetson_gpu_frequency_hertz", FAM_GAUGE, "hertz", NULL, SCALE_KILO, NULL, { 0 }, { 0 },
          "Current GPU frequency" },
        { "gpu.video_freq", "jetson_gpu_video_frequency_hertz", FAM_GAUGE, "hertz", NULL, SCALE_KILO, NULL, { 0 },
          { 0 }, "Clock of the GPU's video engines (Thor: gpu-nvd-0)" },
        { "gpu.temp", "jetson_gpu_temperature_celsius", FAM_GAUGE, "celsius", NULL, SCALE_NONE, NULL, { 0 }, { 0 },
          "Temperature of the integrated GPU as NVML reads it (Thor)" },
        { "gpu.encoder_load", "jetson_gpu_encoder_load_ratio", FAM_GAUGE, "ratio", NULL, SCALE_PERCENT, NULL, { 0 },
          { 0 }, "Use of the integrated GPU's video encoders as NVML reads it (Thor), 0-1" },
        { "gpu.decoder_load", "jetson_gpu_decoder_load_ratio", FAM_GAUGE, "ratio", NULL, SCALE_PERCENT, NULL, { 0 },
          { 0 }, "Use of the integrated GPU's video decoders as NVML reads it (Thor), 0-1" },
        { "gpu.min_freq", "jetson_gpu_min_frequency_hertz", FAM_GAUGE, "hertz", NULL, SCALE_KILO, NULL, { 0 }, { 0 },
          "Lower GPU frequency limit" },
        { "gpu.max_freq", "jetson_gpu_max_frequency_hertz", FAM_GAUGE, "hertz", NULL, SCALE_KILO, NULL, { 0 }, { 0 },
          "Upper GPU frequency limit" },
        { "gpu.gpc*.freq", "jetson_gpu_gpc_frequency_hertz", FAM_GAUGE, "hertz", "gpc", SCALE_KILO, NULL, { 0 },
          { 0 }, "Measured clock of one graphics processing cluster (Orin)" },
        { "gpu.governor", "jetson_gpu_governor", FAM_INFO, NULL, NULL, SCALE_NONE, "governor", { 0 }, { 0 },
          "GPU devfreq governor" },
        { "gpu.railgate", "jetson_gpu_railgate_enabled", FAM_GAUGE, NULL, NULL, SCALE_NONE, NULL, { 0 }, { 0 },
          "1 if GPU rail gating (power-off when idle) is enabled" },
        { "gpu.3d_scaling", "jetson_gpu_3d_scaling_enabled", FAM_GAUGE, NULL, NULL, SCALE_NONE, NULL, { 0 }, { 0 },
          "1 if GPU 3D frequency scaling is enabled" },
        { "gpu.tpc_pg_mask", "jetson_gpu_tpc_power_gating_mask", FAM_GAUGE, NULL, NULL, SCALE_NONE, NULL, { 0 },
          { 0 }, "TPC power-gating mask set by nvpmodel (a set bit is a gated TPC)" },
        /* EMC */
        { "emc.load", "jetson_emc_load_ratio", FAM_GAUGE, "ratio", NULL, SCALE_PERCENT, NULL, { 0 }, { 0 },
          "External memory controller (DRAM) bandwidth utilisation, 0 to 1" },
        { "emc.freq", "jetson_emc_frequency_hertz", FAM_GAUGE, "hertz", NULL, SCALE_KILO, NULL, { 0 }, { 0 },
          "Current EMC (DRAM) frequency" },
        { "emc.min_freq", "jetson_emc_min_frequency_hertz", FAM_GAUGE, "hertz", NULL, SCALE_KILO, NULL, { 0 }, { 0 },
          "Lower EMC frequency limit" },
        { "emc.max_freq", "jetson_emc_max_frequency_hertz", FAM_GAUGE, "hertz", NULL, SCALE_KILO, NULL, { 0 }, { 0 },
          "Upper EMC frequency limit, after the nvpmodel cap" },
        /* Engines */
        { "engine.*.online", "jetson_engine_online", FAM_GAUGE, NULL, "engine", SCALE_NONE, NULL, { 0 }, { 0 },
          "1 if the hardware engine is clocked" },
        { "engine.*.freq", "jetson_engine_frequency_hertz", FAM_GAUGE, "hertz", "engine", SCALE_KILO, NULL, { 0 },
          { 0 }, "Clock of the hardware engine" },
        /* Memory */
        { "ram.total", "jetson_ram_total_bytes", FAM_GAUGE, "bytes", NULL, SCALE_KIBI, NULL, { 0 }, { 0 },
          "Total usable RAM (MemTotal)" },
        { "ram.used", "jetson_ram_used_bytes", FAM_GAUGE, "bytes", NULL, SCALE_KIBI, NULL, { 0 }, { 0 },
          "RAM in use: MemTotal minus MemFree, Buffers and Cached (as tegrastats)" },
        { "ram.free", "jetson_ram_free_bytes", FAM_GAUGE, "bytes", NULL, SCALE_KIBI, NULL, { 0 }, { 0 },
          "Free RAM (MemFree)" },
        { "ram.available", "jetson_ram_available_bytes", FAM_GAUGE, "bytes", NULL, SCALE_KIBI, NULL, { 0 }, { 0 },
          "RAM available for new programs (MemAvailable)" },
        { "ram.buffers", "jetson_ram_buffers_bytes", FAM_GAUGE, "bytes", NULL, SCALE_KIBI, NULL, { 0 }, { 0 },
          "Buffers (Buffers)" },
        { "ram.cached", "jetson_ram_cached_bytes", FAM_GAUGE, "bytes", NULL, SCALE_KIBI, NULL, { 0 }, { 0 },
          "Page cache (Cached)" },
        { "ram.shared", "jetson_ram_gpu_shared_bytes", FAM_GAUGE, "bytes", NULL, SCALE_KIBI, NULL, { 0 }, { 0 },
          "RAM shared with the GPU (nvmap)" },
        { "ram.lfb", "jetson_ram_largest_free_blocks", FAM_GAUGE, NULL, NULL, SCALE_NONE, NULL, { 0 }, { 0 },
          "Number of free 4 MiB blocks (lfb in tegrastats)" },
        { "ram.lfb_size", "jetson_ram_largest_free_block_size_bytes", FAM_GAUGE, "bytes", NULL, SCALE_KIBI, NULL,
          { 0 }, { 0 }, "Size of the largest free blocks of physical memory (4 MiB unless fragmented)" },
        { "ram.lfb_count", "jetson_ram_free_blocks_of_largest_size", FAM_GAUGE, NULL, NULL, SCALE_NONE, NULL, { 0 },
          { 0 }, "Number of free blocks of the largest free size" },
        { "swap.total", "jetson_swap_total_bytes", FAM_GAUGE, "bytes", NULL, SCALE_KIBI, NULL, { 0 }, { 0 },
          "Total swap (SwapTotal)" },
        { "swap.used", "jetson_swap_used_bytes", FAM_GAUGE, "bytes", NULL, SCALE_KIBI, NULL, { 0 }, { 0 },
          "Swap in use" },
        { "swap.cached", "jetson_swap_cached_bytes", FAM_GAUGE, "bytes", NULL, SCALE_KIBI, NULL, { 0 }, { 0 },
          "Swap cache (SwapCached)" },
        { "swap.in", "jetson_swap_in_bytes", FAM_COUNTER, "bytes", NULL, SCALE_KIBI, NULL, { 0 }, { 0 },
          "Data swapped in since boot (/proc/vmstat pswpin)" },
        { "swap.out", "jetson_swap_out_bytes", FAM_COUNTER, "bytes", NULL, SCALE_KIBI, NULL, { 0 }, { 0 },
          "Data swapped out since boot (/proc/vmstat pswpout)" },
        { "iram.total", "jetson_iram_total_bytes", FAM_GAUGE, "bytes", NULL, SCALE_KIBI, NULL, { 0 }, { 0 },
          "Size of the internal RAM (tegra210)" },
        { "iram.used", "jetson_iram_used_bytes", FAM_GAUGE, "bytes", NULL, SCALE_KIBI, NULL, { 0 }, { 0 },
          "Internal RAM in use (tegra210)" },
        /* Power and energy. node_exporter's hwmon collector gives an
         * INA3221 only volts and amperes: watts and joules are ours. */
        { "power.*.power", "jetson_rail_power_watts", FAM_GAUGE, "watts", "rail", SCALE_MILLI, NULL, { 0 }, { 0 },
          "Power through a rail: an INA3221 channel on a Jetson, a RAPL zone on a PC" },
        { "power.*.voltage", "jetson_rail_voltage_volts", FAM_GAUGE, "volts", "rail", SCALE_MILLI, NULL, { 0 }, { 0 },
          "Voltage of a power rail" },
        { "power.*.current", "jetson_rail_current_amperes", FAM_GAUGE, "amperes", "rail", SCALE_MILLI, NULL, { 0 },
          { 0 }, "Current through a power rail" },
        { "power.*.warn_current", "jetson_rail_warn_current_amperes", FAM_GAUGE, "amperes", "rail", SCALE_MILLI,
          NULL, { 0 }, { 0 }, "Warning (averaged) current limit of a power rail" },
        { "power.*.crit_current", "jetson_rail_crit_current_amperes", FAM_GAUGE, "amperes", "rail", SCALE_MILLI,
          NULL, { 0 }, { 0 }, "Critical (instantaneous) current limit of a power rail" },
        { "power.total", "jetson_board_power_watts", FAM_GAUGE, "watts", NULL, SCALE_MILLI, NULL, { 0 }, { 0 },
          "Board power: the input rail, else the sum of all rails" },
        { "power.total_is_sum", "jetson_board_power_summed", FAM_GAUGE, NULL, NULL, SCALE_NONE, NULL, { 0 }, { 0 },
          "1 if the board power is the sum of the rails (no input rail: an estimate)" },
        { "energy.total", "jetson_board_energy_joules", FAM_COUNTER, "joules", NULL, SCALE_MILLI, NULL, { 0 }, { 0 },
          "Energy of the board power, integrated since jetsond started" },
        { "energy.*", "jetson_rail_energy_joules", FAM_COUNTER, "joules", "rail", SCALE_MILLI, NULL, { 0 }, { 0 },
          "Energy drawn through a power rail, integrated since jetsond started" },
        /* Thermal and fans */
        { "temp.*", "jetson_temperature_celsius", FAM_GAUGE, "celsius", "zone", SCALE_NONE, NULL, { 0 }, { 0 },
          "Temperature of a thermal zone or hwmon sensor" },
        { "temp_trip.*.throttle", "jetson_temperature_throttle_trip_celsius", FAM_GAUGE, "celsius", "zone",
          SCALE_NONE, NULL, { 0 }, { 0 },
          "Lowest passive trip point of a thermal zone: the kernel throttles from there" },
        { "temp_trip.*.critical", "jetson_temperature_critical_trip_celsius", FAM_GAUGE, "celsius", "zone",
          SCALE_NONE, NULL, { 0 }, { 0 }, "Critical trip point of a thermal zone: the board shuts down there" },
        { "fan.*.speed", "jetson_fan_speed_ratio", FAM_GAUGE, "ratio", "fan", SCALE_PERCENT, NULL, { 0 }, { 0 },
          "Commanded speed of a fan (PWM / 255), 0 to 1" },
        { "fan.*.pwm", "jetson_fan_pwm", FAM_GAUGE, NULL, "fan", SCALE_NONE, NULL, { 0 }, { 0 },
          "PWM duty value of a fan, 0 to 255" },
        { "fan.*.rpm", "jetson_fan_rpm", FAM_GAUGE, "rpm", "fan", SCALE_NONE, NULL, { 0 }, { 0 },
          "Measured speed of a fan (tachometer), revolutions per minute as node_exporter's hwmon" },
        { "fan.*.profile", "jetson_fan_profile", FAM_INFO, NULL, "fan", SCALE_NONE, "profile", { 0 }, { 0 },
          "Control profile of a fan" },
        /* Modes */
        { "nvpmodel.mode", "jetson_nvpmodel_mode", FAM_GAUGE, NULL, NULL, SCALE_NONE, NULL, { "name" },
          { "name" }, "Current nvpmodel power mode ID, its name as a label" },
        { "nvpmodel.name", NULL, FAM_LABEL_ONLY, NULL, NULL, SCALE_NONE, NULL, { 0 }, { 0 }, NULL },
        { "jetson_clocks.active", "jetson_clocks_active", FAM_GAUGE, NULL, NULL, SCALE_NONE, NULL, { 0 }, { 0 },
          "1 if jetson_clocks is in effect (every clock pinned at its maximum)" },
        /* Discrete GPUs (NVML), by NVML index */
        { "dgpu.*.load", "jetson_dgpu_load_ratio", FAM_GAUGE, "ratio", "gpu", SCALE_PERCENT, NULL, { 0 }, { 0 },
          "Load of a discrete GPU, 0 to 1" },
        { "dgpu.*.mem_load", "jetson_dgpu_memory_load_ratio", FAM_GAUGE, "ratio", "gpu", SCALE_PERCENT, NULL, { 0 },
          { 0 }, "Memory-controller load of a discrete GPU, 0 to 1" },
        { "dgpu.*.mem_used", "jetson_dgpu_memory_used_bytes", FAM_GAUGE, "bytes", "gpu", SCALE_KIBI, NULL, { 0 },
          { 0 }, "Memory in use on a discrete GPU, as nvidia-smi shows it (the driver's reservation left out)" },
        { "dgpu.*.mem_total", "jetson_dgpu_memory_total_bytes", FAM_GAUGE, "bytes", "gpu", SCALE_KIBI, NULL, { 0 },
          { 0 }, "Memory of a discrete GPU" },
        { "dgpu.*.mem_reserved", "jetson_dgpu_memory_reserved_bytes", FAM_GAUGE, "bytes", "gpu", SCALE_KIBI, NULL,
          { 0 }, { 0 }, "Memory of a discrete GPU the driver reserves for itself, in neither used nor free" },
        { "dgpu.*.freq", "jetson_dgpu_frequency_hertz", FAM_GAUGE, "hertz", "gpu", SCALE_KILO, NULL, { 0 }, { 0 },
          "Graphics clock of a discrete GPU" },
        { "dgpu.*.sm_freq", "jetson_dgpu_sm_frequency_hertz", FAM_GAUGE, "hertz", "gpu", SCALE_KILO, NULL, { 0 },
          { 0 }, "Streaming-multiprocessor clock of a discrete GPU" },
        { "dgpu.*.mem_freq", "jetson_dgpu_memory_frequency_hertz", FAM_GAUGE, "hertz", "gpu", SCALE_KILO, NULL,
          { 0 }, { 0 }, "Memory clock of a discrete GPU" },
        { "dgpu.*.video_freq", "jetson_dgpu_video_frequency_hertz", FAM_GAUGE, "hertz", "gpu", SCALE_KILO, NULL,
          { 0 }, { 0 }, "Clock of a discrete GPU's video encoders and decoders" },
        { "dgpu.*.bar1_used", "jetson_dgpu_bar1_used_bytes", FAM_GAUGE, "bytes", "gpu", SCALE_KIBI, NULL, { 0 },
          { 0 }, "BAR1 memory in use on a discrete GPU (GPU memory mapped over PCIe)" },
        { "dgpu.*.ecc_volatile_corrected", "jetson_dgpu_ecc_volatile_corrected_errors", FAM_COUNTER, NULL, "gpu",
          SCALE_NONE, NULL, { 0 }, { 0 }, "Corrected ECC errors of a discrete GPU since its driver loaded (ECC on)" },
        { "dgpu.*.ecc_volatile_uncorrected", "jetson_dgpu_ecc_volatile_uncorrected_errors", FAM_COUNTER, NULL,
          "gpu", SCALE_NONE, NULL, { 0 }, { 0 },
          "Uncorrected ECC errors of a discrete GPU since its driver loaded (ECC on)" },
        { "dgpu.*.ecc_aggregate_corrected", "jetson_dgpu_ecc_aggregate_corrected_errors", FAM_COUNTER, NULL, "gpu",
          SCALE_NONE, NULL, { 0 }, { 0 }, "Corrected ECC errors over a discrete GPU's life (ECC on)" },
        { "dgpu.*.ecc_aggregate_uncorrected", "jetson_dgpu_ecc_aggregate_uncorrected_errors", FAM_COUNTER, NULL,
          "gpu", SCALE_NONE, NULL, { 0 }, { 0 }, "Uncorrected ECC errors over a discrete GPU's life (ECC on)" },
        { "dgpu.*.temp", "jetson_dgpu_temperature_celsius", FAM_GAUGE, "celsius", "gpu", SCALE_NONE, NULL, { 0 },
          { 0 }, "Temperature of a discrete GPU" },
        { "dgpu.*.power", "jetson_dgpu_power_watts", FAM_GAUGE, "watts", "gpu", SCALE_MILLI, NULL, { 0 }, { 0 },
          "Power drawn by a discrete GPU" },
        { "dgpu.*.power_limit", "jetson_dgpu_power_limit_watts", FAM_GAUGE, "watts", "gpu", SCALE_MILLI, NULL,
          { 0 }, { 0 }, "Enforced power limit of a discrete GPU" },
        { "dgpu.*.energy", "jetson_dgpu_energy_joules", FAM_COUNTER, "joules", "gpu", SCALE_MILLI, NULL, { 0 },
          { 0 }, "Energy drawn by a discrete GPU since its driver loaded (NVML's counter)" },
        { "dgpu.*.fan", "jetson_dgpu_fan_speed_ratio", FAM_GAUGE, "ratio", "gpu", SCALE_PERCENT, NULL, { 0 }, { 0 },
          "Fan speed of a discrete GPU, 0 to 1 of its maximum" },
        { "dgpu.*.encoder_load", "jetson_dgpu_encoder_load_ratio", FAM_GAUGE, "ratio", "gpu", SCALE_PERCENT, NULL,
          { 0 }, { 0 }, "Video encoder load of a discrete GPU, 0 to 1" },
        { "dgpu.*.decoder_load", "jetson_dgpu_decoder_load_ratio", FAM_GAUGE, "ratio", "gpu", SCALE_PERCENT, NULL,
          { 0 }, { 0 }, "Video decoder load of a discrete GPU, 0 to 1" },
        { "dgpu.*.pstate", "jetson_dgpu_performance_state", FAM_GAUGE, NULL, "gpu", SCALE_NONE, NULL, { 0 }, { 0 },
          "Performance state of a discrete GPU, 0 (fastest) to 15" },
        { "dgpu.*.throttle", "jetson_dgpu_clock_event_reasons", FAM_GAUGE, NULL, "gpu", SCALE_NONE, NULL, { 0 },
          { 0 }, "Why a discrete GPU's clocks are held down: NVML's bitmask (0 none)" },
        { "dgpu.*.throttle_reasons", "jetson_dgpu_clock_event_reason_names", FAM_INFO, NULL, "gpu", SCALE_NONE,
          "reasons", { 0 }, { 0 }, "The clock event reasons of a discrete GPU as NVML's names (\"none\" for 0)" },
        { "dgpu.*.pcie_rx", "jetson_dgpu_pcie_receive_bytes_per_second", FAM_GAUGE, NULL, "gpu", SCALE_NONE, NULL,
          { 0 }, { 0 }, "PCIe receive rate of a discrete GPU" },
        { "dgpu.*.pcie_tx", "jetson_dgpu_pcie_transmit_bytes_per_second", FAM_GAUGE, NULL, "gpu", SCALE_NONE, NULL,
          { 0 }, { 0 }, "PCIe transmit rate of a discrete GPU" },
        { "dgpu.*.mem_temp", "jetson_dgpu_memory_temperature_celsius", FAM_GAUGE, "celsius", "gpu", SCALE_NONE,
          NULL, { 0 }, { 0 }, "Memory (HBM) temperature of a discrete GPU" },
        { "dgpu.*.pcie_replay", "jetson_dgpu_pcie_replays", FAM_COUNTER, NULL, "gpu", SCALE_NONE, NULL, { 0 },
          { 0 }, "PCIe replays of a discrete GPU since its driver loaded" },
        { "dgpu.*.xid", "jetson_dgpu_last_xid", FAM_GAUGE, NULL, "gpu", SCALE_NONE, NULL, { 0 }, { 0 },
          "The last XID error of a discrete GPU, 0 none since jetsond started" },
        { "dgpu.*.xid_count", "jetson_dgpu_xid_errors", FAM_COUNTER, NULL, "gpu", SCALE_NONE, NULL, { 0 }, { 0 },
          "XID errors of a discrete GPU seen since jetsond started" },
        { "dgpu.*.tensor_active", "jetson_dgpu_tensor_active_ratio", FAM_GAUGE, "ratio", "gpu", SCALE_PERCENT, NULL,
          { 0 }, { 0 }, "Time the SMs of a discrete GPU ran tensor instructions, 0 to 1, over the last read period" },
        { "dgpu.*.gr_active", "jetson_dgpu_graphics_active_ratio", FAM_GAUGE, "ratio", "gpu", SCALE_PERCENT, NULL,
          { 0 }, { 0 }, "Time a graphics or compute engine of a discrete GPU was active, 0 to 1, over the last read period" },
        { "dgpu.*.dram_active", "jetson_dgpu_dram_active_ratio", FAM_GAUGE, "ratio", "gpu", SCALE_PERCENT, NULL,
          { 0 }, { 0 }, "Memory bandwidth of a discrete GPU in use, 0 to 1 of its peak, over the last read period" },
        { "dgpu.*.nvlink_rx", "jetson_dgpu_nvlink_receive_bytes_per_second", FAM_GAUGE, NULL, "gpu", SCALE_NONE,
          NULL, { 0 }, { 0 }, "NVLink receive rate of a discrete GPU, all links, over the last read period" },
        { "dgpu.*.nvlink_tx", "jetson_dgpu_nvlink_transmit_bytes_per_second", FAM_GAUGE, NULL, "gpu", SCALE_NONE,
          NULL, { 0 }, { 0 }, "NVLink transmit rate of a discrete GPU, all links, over the last read period" },
        { "dgpu.*.nvlink_rx_total", "jetson_dgpu_nvlink_received_bytes", FAM_COUNTER, "bytes", "gpu", SCALE_NONE,
          NULL, { 0 }, { 0 }, "Data a discrete GPU received over NVLink since its driver loaded (NVML's counter)" },
        { "dgpu.*.nvlink_tx_total", "jetson_dgpu_nvlink_transmitted_bytes", FAM_COUNTER, "bytes", "gpu", SCALE_NONE,
          NULL, { 0 }, { 0 }, "Data a discrete GPU sent over NVLink since its driver loaded (NVML's counter)" },
        { "dgpu.*.nvlink.*.rx", "jetson_dgpu_nvlink_link_receive_bytes_per_second", FAM_GAUGE, NULL, "gpu",
          SCALE_NONE, NULL, { 0 }, { 0 }, "NVLink receive rate of one link of a discrete GPU", "link" },
        { "dgpu.*.nvlink.*.tx", "jetson_dgpu_nvlink_link_transmit_bytes_per_second", FAM_GAUGE, NULL, "gpu",
          SCALE_NONE, NULL, { 0 }, { 0 }, "NVLink transmit rate of one link of a discrete GPU", "link" },
        { "dgpu.*.mig.*.mem_used", "jetson_dgpu_mig_memory_used_bytes", FAM_GAUGE, "bytes", "gpu", SCALE_KIBI, NULL,
          { 0 }, { 0 }, "Memory in use on one MIG device of a discrete GPU with MIG on", "mig" },
        { "dgpu.*.mig.*.mem_total", "jetson_dgpu_mig_memory_total_bytes", FAM_GAUGE, "bytes", "gpu", SCALE_KIBI,
          NULL, { 0 }, { 0 }, "Memory of one MIG device of a discrete GPU", "mig" },
        { "dgpu.*.mig.*.load", "jetson_dgpu_mig_load_ratio", FAM_GAUGE, "ratio", "gpu", SCALE_PERCENT, NULL, { 0 },
          { 0 }, "Load of one MIG device of a discrete GPU, 0 to 1, where NVML gives it", "mig" },
        { "dgpu.*.mig.*.gpu_instance", "jetson_dgpu_mig_gpu_instance", FAM_GAUGE, NULL, "gpu", SCALE_NONE, NULL,
          { 0 }, { 0 }, "GPU instance id of one MIG device of a discrete GPU", "mig" },
        { "dgpu.*.mig.*.compute_instance", "jetson_dgpu_mig_compute_instance", FAM_GAUGE, NULL, "gpu", SCALE_NONE,
          NULL, { 0 }, { 0 }, "Compute instance id of one MIG device of a discrete GPU", "mig" },
        { "dgpu.*.mig.*.uuid", "jetson_dgpu_mig_uuid", FAM_INFO, NULL, "gpu", SCALE_NONE, "uuid", { 0 }, { 0 },
          "UUID of one MIG device of a discrete GPU, as CUDA_VISIBLE_DEVICES takes it", "mig" },
        /* Throttling (issue 39): one counter per over-current channel that
         * only rises (jetsond's own count, so a driver reload is no reset),
         * a gauge per throttle reason, the kernel's caps. */
        { "throttle.oc*.events_counted", "jetson_throttle_oc_events", FAM_COUNTER, NULL, "channel", SCALE_NONE, NULL,
          { 0 }, { 0 }, "Over-current events of one SoC channel jetsond counted since it started" },
        { "throttle.oc*.events", "jetson_throttle_oc_boot_events", FAM_GAUGE, NULL, "channel", SCALE_NONE, NULL,
          { 0 }, { 0 }, "Over-current events of one SoC channel since boot, as the BPMP counts them" },
        { "throttle.oc*.armed", "jetson_throttle_oc_armed", FAM_GAUGE, NULL, "channel", SCALE_NONE, NULL, { 0 },
          { 0 }, "1 if the BPMP throttles the clocks on over-current of this channel" },
        { "throttle.oc*.counter", "jetson_throttle_oc_reading", FAM_INFO, NULL, "channel", SCALE_NONE, "state",
          { 0 }, { 0 }, "What the last reading of a channel's event count found: ok, went_back, unreadable, vanished" },
        { "throttle.oc*.resets", "jetson_throttle_oc_resets", FAM_COUNTER, NULL, "channel", SCALE_NONE, NULL, { 0 },
          { 0 }, "Readings that found a channel's event count lower than before (restarted)" },
        { "throttle.oc*.failed_reads", "jetson_throttle_oc_failed_reads", FAM_COUNTER, NULL, "channel", SCALE_NONE,
          NULL, { 0 }, { 0 }, "Readings that found no number in a channel's event count" },
        { "throttle.cap.*.state", "jetson_throttle_cap_state", FAM_GAUGE, NULL, "device", SCALE_NONE, NULL, { 0 },
          { 0 }, "Cap the kernel applies through a cooling device (cur_state; 0 none)" },
        { "throttle.cap.*.max_state", "jetson_throttle_cap_max_state", FAM_GAUGE, NULL, "device", SCALE_NONE, NULL,
          { 0 }, { 0 }, "Highest state of a cooling device" },
        { "throttle.reason.*.active", "jetson_throttle_active", FAM_GAUGE, NULL, "reason", SCALE_NONE, NULL, { 0 },
          { 0 }, "1 while a throttle reason holds: over_current, thermal_cpu, thermal_gpu, thermal_soc" },
        { "throttle.active", "jetson_throttled", FAM_GAUGE, NULL, NULL, SCALE_NONE, NULL, { 0 }, { 0 },
          "1 while any throttle reason holds" },
        /* Sums and the list of jetson_throttle_active, for the other views. */
        { "throttle.reasons", NULL, FAM_LABEL_ONLY, NULL, NULL, SCALE_NONE, NULL, { 0 }, { 0 }, NULL },
        { "throttle.oc_events", NULL, FAM_LABEL_ONLY, NULL, NULL, SCALE_NONE, NULL, { 0 }, { 0 }, NULL },
        { "throttle.oc_events_counted", NULL, FAM_LABEL_ONLY, NULL, NULL, SCALE_NONE, NULL, { 0 }, { 0 }, NULL },
        /* GPU processes */
        { "process.*.gpu_mem", "jetson_process_gpu_memory_bytes", FAM_GAUGE, "bytes", "pid", SCALE_KIBI, NULL,
          PROC_LABELS, "GPU memory held by a process: nvmap's, plus NVML's over every NVIDIA GPU" },
        { "process.*.cpu", "jetson_process_cpu_ratio", FAM_GAUGE, "ratio", "pid", SCALE_PERCENT, NULL, PROC_LABELS,
          "CPU use of a process holding GPU memory (1 is one full CPU)" },
        { "process.*.rss", "jetson_process_resident_memory_bytes", FAM_GAUGE, "bytes", "pid", SCALE_KIBI, NULL,
          PROC_LABELS, "Resident memory of a process holding GPU memory" },
        { "process.*.dgpu.*.mem", "jetson_process_dgpu_memory_bytes", FAM_GAUGE, "bytes", "pid", SCALE_KIBI, NULL,
          PROC_LABELS, "GPU memory a process uses on one discrete GPU (NVML)", "gpu" },
        { "process.*.dgpu.*.sm", "jetson_process_dgpu_sm_ratio", FAM_GAUGE, "ratio", "pid", SCALE_PERCENT, NULL,
          PROC_LABELS, "Streaming-multiprocessor use of a process on one discrete GPU (NVML), 0 to 1", "gpu" },
        { "process.*.dgpu.*.mem_util", "jetson_process_dgpu_memory_bandwidth_ratio", FAM_GAUGE, "ratio", "pid",
          SCALE_PERCENT, NULL, PROC_LABELS,
          "Memory bandwidth use of a process on one discrete GPU (NVML), 0 to 1", "gpu" },
        { "process.*.dgpu.*.enc", "jetson_process_dgpu_encoder_ratio", FAM_GAUGE, "ratio", "pid", SCALE_PERCENT,
          NULL, PROC_LABELS, "Video encoder use of a process on one discrete GPU (NVML), 0 to 1", "gpu" },
        { "process.*.dgpu.*.dec", "jetson_process_dgpu_decoder_ratio", FAM_GAUGE, "ratio", "pid", SCALE_PERCENT,
          NULL, PROC_LABELS, "Video decoder use of a process on one discrete GPU (NVML), 0 to 1", "gpu" },
        { "process.*.start_time", "jetson_process_start_time_seconds", FAM_GAUGE, "seconds", "pid", SCALE_NONE, NULL,
          PROC_LABELS, "When a process holding GPU memory started, seconds since the Unix epoch" },
        { "process.*.dgpu.*.type", "jetson_process_dgpu_type", FAM_INFO, NULL, "pid", SCALE_NONE, "type",
          PROC_LABELS, "A process's contexts on one discrete GPU: compute, graphics or compute+graphics", "gpu" },
        { "process.*.dgpu.*.gpu_instance", "jetson_process_dgpu_gpu_instance", FAM_GAUGE, NULL, "pid", SCALE_NONE,
          NULL, PROC_LABELS, "With MIG on, the GPU instance a process runs in on one discrete GPU", "gpu" },
        { "process.*.name", NULL, FAM_LABEL_ONLY, NULL, NULL, SCALE_NONE, NULL, { 0 }, { 0 }, NULL },
        /* A PID is no quantity: the parent is for views that draw trees. */
        { "process.*.ppid", NULL, FAM_LABEL_ONLY, NULL, NULL, SCALE_NONE, NULL, { 0 }, { 0 }, NULL },
        { "process.*.user", NULL, FAM_LABEL_ONLY, NULL, NULL, SCALE_NONE, NULL, { 0 }, { 0 }, NULL },
        /* System */
        { "uptime", "jetson_uptime_seconds", FAM_GAUGE, "seconds", NULL, SCALE_NONE, NULL, { 0 }, { 0 },
          "Time since boot" },
        { "disk.total_bytes", "jetson_root_filesystem_size_bytes", FAM_GAUGE, "bytes", NULL, SCALE_NONE, NULL, { 0 },
          { 0 }, "Size of the filesystem holding /" },
        { "disk.available_bytes", "jetson_root_filesystem_available_bytes", FAM_GAUGE, "bytes", NULL, SCALE_NONE,
          NULL, { 0 }, { 0 }, "Space available to unprivileged users on the filesystem holding /" },
        { "disk.read_bytes", "jetson_disk_read_bytes", FAM_COUNTER, "bytes", NULL, SCALE_NONE, NULL, { 0 }, { 0 },
          "Bytes read from the physical disks since boot" },
        { "disk.write_bytes", "jetson_disk_written_bytes", FAM_COUNTER, "bytes", NULL, SCALE_NONE, NULL, { 0 }, { 0 },
          "Bytes written to the physical disks since boot" },
        { "net.rx_bytes", "jetson_network_receive_bytes", FAM_COUNTER, "bytes", NULL, SCALE_NONE, NULL, { 0 }, { 0 },
          "Bytes received on all network interfaces except lo since boot" },
        { "net.tx_bytes", "jetson_network_transmit_bytes", FAM_COUNTER, "bytes", NULL, SCALE_NONE, NULL, { 0 },
          { 0 }, "Bytes sent on all network interfaces except lo since boot" },
};
const size_t fam_table_len = sizeof fam_table / sizeof fam_table[0];

/* One segment of a key against one of a pattern. */
static bool segment_matches(const char *k, size_t klen, const char *p, size_t plen, fam_instances *inst)
{
        if (plen > 0 && p[plen - 1] == '*') {
                size_t prefix = plen - 1;
                if (klen <= prefix || memcmp(k, p, prefix) != 0 || inst->n == G_N_ELEMENTS(inst->start))
                        return false;
                inst->start[inst->n] = k + prefix;
                inst->len[inst->n++] = klen - prefix;
                return true;
        }
        return klen == plen && memcmp(k, p, plen) == 0;
}

static bool pattern_matches(const char *key, const char *pattern, fam_instances *inst)
{
        const char *k = key, *p = pattern;
        for (;;) {
                const char *kend = strchrnul(k, '.'), *pend = strchrnul(p, '.');
                if (!segment_matches(k, (size_t)(kend - k), p, (size_t)(pend - p), inst))
                        return false;
                if (*kend == '\0' || *pend == '\0')
                        return *kend == *pend;
                k = kend + 1;
                p = pend + 1;
        }
}

int fam_match(const char *key, fam_instances *inst)
{
        for (size_t i = 0; i < fam_table_len; i++) {
                *inst = (fam_instances){ 0 };
                if (pattern_matches(key, fam_table[i].key, inst))
                        return (int)i;
        }
        return -1;
}

bool exp_key_known(const char *key)
{
        fam_instances inst;
        return fam_match(key, &inst) >= 0;
}

/* Families that come from outside the sample; KEY names their source. */
const fam_family fam_up = { "NameOwnerChanged, Sample", "jetson_up", FAM_GAUGE, NULL, NULL, SCALE_NONE, NULL,
                            { 0 }, { 0 }, "1 if jetsond is on the bus and its latest sample is current, else 0" };
const fam_family fam_board = { "Board.Model, Module, SoC, L4T, JetPack, CudaArch", "jetson", FAM_INFO, NULL, NULL,
                               SCALE_NONE, NULL, { 0 }, { 0 },
                               "Identity of the board, from jetsond's Board properties" };
const fam_family fam_default_mode = { "NVPModel.DefaultMode", "jetson_nvpmodel_default_mode", FAM_GAUGE, NULL, NULL,
                                      SCALE_NONE, NULL, { 0 }, { 0 }, "nvpmodel power mode ID the board starts in" };
const fam_family fam_timestamp = { "Sample timestamp_usec", "jetson_sample_timestamp_seconds", FAM_GAUGE,
                                   "seconds", NULL, SCALE_NONE, NULL, { 0 }, { 0 },
                                   "Time of the newest reading in the sample shown, seconds since the Unix epoch" };

const fam_family fam_dgpu_props[FAM_DGPU_PROPS] = {
        [FAM_DGPU_INFO] = { "DiscreteGpu.Name, UUID, PciBusId, DriverVersion, CudaDriverVersion, ComputeCapability",
                            "jetson_dgpu", FAM_INFO, NULL, "gpu", SCALE_NONE, NULL, { 0 }, { 0 },
                            "Identity and versions of a discrete GPU, from its DiscreteGpu properties" },
        [FAM_DGPU_BAR1_TOTAL] = { "DiscreteGpu.Bar1Total", "jetson_dgpu_bar1_total_bytes", FAM_GAUGE, "bytes", "gpu",
                                  SCALE_NONE, NULL, { 0 }, { 0 }, "Size of a discrete GPU's BAR1" },
        [FAM_DGPU_PERSISTENCE] = { "DiscreteGpu.PersistenceMode", "jetson_dgpu_persistence_mode", FAM_GAUGE, NULL,
                                   "gpu", SCALE_NONE, NULL, { 0 }, { 0 },
                                   "1 if a discrete GPU's driver stays loaded with no client (nvidia-smi -pm)" },
        [FAM_DGPU_ECC] = { "DiscreteGpu.EccMode", "jetson_dgpu_ecc_mode", FAM_GAUGE, NULL, "gpu", SCALE_NONE, NULL,
                           { 0 }, { 0 }, "1 if a discrete GPU's memory runs with ECC" },
        [FAM_DGPU_ECC_PENDING] = { "DiscreteGpu.EccModePending", "jetson_dgpu_ecc_mode_pending", FAM_GAUGE, NULL,
                                   "gpu", SCALE_NONE, NULL, { 0 }, { 0 },
                                   "1 if a discrete GPU runs with ECC after its next reset (nvidia-smi -e)" },
        [FAM_DGPU_DISPLAY_MODE] = { "DiscreteGpu.DisplayMode", "jetson_dgpu_display_mode", FAM_GAUGE, NULL, "gpu",
                                    SCALE_NONE, NULL, { 0 }, { 0 },
                                    "1 if a display may be connected to a discrete GPU" },
        [FAM_DGPU_DISPLAY_ACTIVE] = { "DiscreteGpu.DisplayActive", "jetson_dgpu_display_active", FAM_GAUGE, NULL,
                                      "gpu", SCALE_NONE, NULL, { 0 }, { 0 },
                                      "1 if a display is initialised on a discrete GPU" },
        [FAM_DGPU_COMPUTE_MODE] = { "DiscreteGpu.ComputeMode", "jetson_dgpu_compute_mode", FAM_INFO, NULL, "gpu",
                                    SCALE_NONE, "mode", { 0 }, { 0 },
                                    "Which processes may use a discrete GPU (nvidia-smi -c): default, "
                                    "exclusive_process, prohibited" },
};
const char *const fam_dgpu_props_labels[FAM_DGPU_PROPS] = {
        [FAM_DGPU_INFO] = "gpu,name,uuid,pci_bus_id,driver_version,cuda_driver_version,compute_capability",
        [FAM_DGPU_BAR1_TOTAL] = "gpu",
        [FAM_DGPU_PERSISTENCE] = "gpu",
        [FAM_DGPU_ECC] = "gpu",
        [FAM_DGPU_ECC_PENDING] = "gpu",
        [FAM_DGPU_DISPLAY_MODE] = "gpu",
        [FAM_DGPU_DISPLAY_ACTIVE] = "gpu",
        [FAM_DGPU_COMPUTE_MODE] = "gpu,mode",
};

const char *fam_type_name(fam_kind kind)
{
        return kind == FAM_COUNTER ? "counter" : kind == FAM_INFO ? "info" : "gauge";
}

const char *fam_sample_suffix(fam_kind kind)
{
        return kind == FAM_COUNTER ? "_total" : kind == FAM_INFO ? "_info" : "";
}

static void list_family(GString *out, const fam_family *f, const char *labels)
{
        g_string_append_printf(out, "%s%s\t%s\t%s\t%s\t%s\n", f->name, fam_sample_suffix(f->kind),
                               fam_type_name(f->kind),
                               labels, f->key, f->help);
}

GString *exp_list_families(void)
{
        GString *out = g_string_new(NULL);
        list_family(out, &fam_up, "-");
        list_family(out, &fam_board, "model,module,soc,l4t,jetpack,cuda_arch");
        for (size_t i = 0; i < fam_table_len; i++) {
                const fam_family *f = &fam_table[i];
                if (f->kind == FAM_LABEL_ONLY)
                        continue;
                GString *labels = g_string_new(f->label ? f->label : "");
                if (f->label2)
                        g_string_append_printf(labels, ",%s", f->label2);
                for (size_t j = 0; j < G_N_ELEMENTS(f->extra_label) && f->extra_label[j]; j++)
                        g_string_append_printf(labels, "%s%s", labels->len ? "," : "", f->extra_label[j]);
                if (f->value_label)
                        g_string_append_printf(labels, "%s%s", labels->len ? "," : "", f->value_label);
                list_family(out, f, labels->len ? labels->str : "-");
                g_string_free(labels, TRUE);
        }
        for (int i = 0; i < FAM_DGPU_PROPS; i++)
                list_family(out, &fam_dgpu_props[i], fam_dgpu_props_labels[i]);
        list_family(out, &fam_default_mode, "-");
        list_family(out, &fam_timestamp, "-");
        return out;
}
