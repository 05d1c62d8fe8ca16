/* Format parsers, fed the fact sheet's literal examples and broken input. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "board.h"
#include "board_tables.h"
#include "cpu.h"
#include "dpkg.h"
#include "engines.h"
#include "fan.h"
#include "fixture.h"
#include "memory.h"
#include "nvpmodel.h"
#include "parse.h"
#include "power.h"
#include "processes.h"
#include "swap.h"
#include "system.h"
#include "thermal.h"

static void test_proc_stat_and_load(void **state)
{
        (void) state;
        jd_cpu_ticks agg, cores[4], agg2, cores2[4];
        const char *a = "cpu  100 0 100 800 0 0 0 0 0 0\ncpu0 50 0 50 400 0 0 0 0 0 0\n"
                        "cpu1 50 0 50 400 0 0 0 0 0 0\nintr 1 2 3\n";
        const char *b = "cpu  250 0 150 1000 100 0 0 7 0 0\ncpu0 150 0 100 450 0 0 0 0 0 0\n"
                        "cpu1 100 0 50 500 100 0 0 0 0 0\nintr 1 2 3\n";
        assert_true(jd_parse_proc_stat(a, &agg, cores, 4));
        assert_true(jd_parse_proc_stat(b, &agg2, cores2, 4));
        assert_true(cores[0].valid && cores[1].valid);
        assert_false(cores[2].valid);
        /* aggregate: Δbusy = 200, Δtotal = 200 + 200 idle + 100 iowait = 500 -> 40 %;
         * steal (field 8) is not part of the total */
        jd_opt_dbl load = jd_cpu_load(&agg, &agg2);
        assert_true(load.present);
        assert_dbl_equal(load.value, 40.0);
        load = jd_cpu_load(&cores[0], &cores2[0]);
        assert_dbl_equal(load.value, 75.0); /* 150 busy of 200 */
        load = jd_cpu_load(&cores[1], &cores2[1]);
        assert_dbl_equal(load.value, 20.0); /* 50 of 250 */
        /* No time passed, or counters went back: absent, never 0 or negative. */
        assert_false(jd_cpu_load(&agg2, &agg2).present);
        assert_false(jd_cpu_load(&agg2, &agg).present);
        jd_cpu_ticks invalid = { 0 };
        assert_false(jd_cpu_load(&invalid, &agg2).present);
        assert_false(jd_parse_proc_stat("", &agg, cores, 4));
        assert_false(jd_parse_proc_stat("cpu  1 2\n", &agg, cores, 4));
        assert_false(jd_parse_proc_stat("garbage\n", &agg, cores, 4));
}

static void test_meminfo(void **state)
{
        (void) state;
        jd_memory_sample m = { 0 };
        const char *text = "MemTotal:       30536000 kB\nMemFree:        20000000 kB\n"
                           "MemAvailable:   25000000 kB\nBuffers:          100000 kB\n"
                           "Cached:          3000000 kB\nSwapCached:            0 kB\n"
                           "SwapTotal:      15268000 kB\nSwapFree:       15000000 kB\n"
                           "SReclaimable:     200000 kB\nHugePages_Total:       0\n"
                           "NvMapMemFree:      48640 kB\nNvMapMemUsed:     471460 kB\n";
        assert_true(jd_parse_meminfo(text, &m));
        assert_int_equal(m.total.value, 30536000);
        assert_int_equal(m.used.value, 30536000 - 20000000 - 100000 - 3000000);
        assert_int_equal(m.cached.value, 3200000); /* Cached + SReclaimable */
        assert_int_equal(m.swap_used.value, 268000);
        assert_int_equal(m.shared.value, 471460);
        assert_false(jd_parse_meminfo("", &m));
        assert_false(jd_parse_meminfo("MemTotal: lots kB\n", &m));
        assert_true(jd_parse_meminfo("MemTotal: 100 kB\nNvMapMemUsed: 0 kB\n", &m));
        assert_false(m.shared.present); /* 0 = not tracked */
        assert_false(m.used.present);
}

static void test_buddyinfo_and_nvmap_total(void **state)
{
        (void) state;
        uint64_t kib;
        jd_buddy_free lfb;
        const char *text =
                "Node 0, zone      DMA      3      2      2      1      3      2      4      3      2      2    480\n"
                "Node 0, zone   Normal    150    80    40    20    10     5     3     2     1     1   2900\n";
        assert_true(jd_parse_buddyinfo_free(text, &lfb));
        assert_int_equal(lfb.lfb, 3380);
        assert_int_equal(lfb.largest_kib, 4096);
        assert_int_equal(lfb.largest_count, 3380);
        /* Fragmented: no 4 MiB block, five of 1 MiB (order 8) over two
         * zones, as tegrastats' "lfb 5x1MB". */
        assert_true(jd_parse_buddyinfo_free("Node 0, zone DMA 9 8 7 6 5 4 3 2 2 0 0\n"
                                           "Node 0, zone Normal 9 8 7 6 5 4 3 2 3 0 0\n", &lfb));
        assert_int_equal(lfb.lfb, 0);
        assert_int_equal(lfb.largest_kib, 1024);
        assert_int_equal(lfb.largest_count, 5);
        /* Nothing free at all: no largest size. */
        assert_true(jd_parse_buddyinfo_free("Node 0, zone DMA 0 0 0 0 0 0 0 0 0 0 0\n", &lfb));
        assert_int_equal(lfb.largest_count, 0);
        assert_false(jd_parse_buddyinfo_free("Node 0, zone DMA 1 2 3\n", &lfb));
        assert_true(jd_parse_nvmap_total("CLIENT PROCESS PID SIZE\ntotal 0K\n", &kib));
        assert_int_equal(kib, 0);
        assert_true(jd_parse_nvmap_total("x\ntotal                                              292992K\n", &kib));
        assert_int_equal(kib, 292992);
        assert_false(jd_parse_nvmap_total("total lots\n", &kib));
}

static void test_swaps_and_fstab(void **state)
{
        (void) state;
        jd_swap_sample s = { 0 };
        const char *text = "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n"
                           "/dev/zram0                              partition\t507292\t\t0\t\t5\n"
                           "/my\\040swap                             file\t\t1048572\t\t1024\t\t-2\n";
        assert_true(jd_parse_proc_swaps(text, &s));
        assert_int_equal(s.n, 2);
        assert_string_equal(s.swaps[0].type, "zram");
        assert_int_equal(s.swaps[0].size_bytes, 507292ull * 1024);
        assert_string_equal(s.swaps[1].path, "/my swap");
        assert_string_equal(s.swaps[1].type, "file");
        assert_int_equal(s.swaps[1].used_bytes, 1024ull * 1024);
        assert_int_equal(s.swaps[1].priority, -2);
        assert_false(jd_parse_proc_swaps("", &s));

        const char *fstab = "# /swfile none swap sw 0 0\n/dev/root / ext4 defaults 0 1\n"
                            "/swfile\tnone  swap\tsw 0 0\n/my\\040swap none swap sw 0 0\n";
        assert_true(jd_fstab_has_swap(fstab, "/swfile"));
        assert_true(jd_fstab_has_swap(fstab, "/my swap"));
        assert_false(jd_fstab_has_swap(fstab, "/dev/root"));
        assert_false(jd_fstab_has_swap("#/swapfile none swap sw 0 0\n", "/swapfile"));
        /* fstab(5) ignores a line with only a spec: it is not joined with the next */
        assert_false(jd_fstab_has_swap("/dev/sda1\n/mnt/x swap sw 0 0\n", "/dev/sda1"));
        /* a swap line cut short, and one whose size is no number */
        assert_true(jd_parse_proc_swaps("Filename Type Size Used Priority\n/a file 10\n/b file x 0 1\n/c file 4 0 -1\n", &s));
        assert_int_equal(s.n, 1);
        assert_string_equal(s.swaps[0].path, "/c");
        jd_swap_sample_clear(&s);
}

static void test_nvpmodel(void **state)
{
        (void) state;
        jd_nvpmodel_sample s = { 0 };
        const char *conf = "< PARAM TYPE=FILE NAME=CPU_ONLINE >\nCORE_0 /sys/devices/system/cpu/cpu0/online\n"
                           "< POWER_MODEL ID=0 NAME=MAXN >\nCPU_ONLINE CORE_0 1\n"
                           "< POWER_MODEL ID=1 NAME=MODE_15W >\n< POWER_MODEL ID=7 NAME=CUSTOM_7 >\n"
                           "< PM_CONFIG DEFAULT=1 >\n";
        assert_true(jd_parse_nvpmodel_conf(conf, &s));
        assert_int_equal(s.n_modes, 3);
        assert_int_equal(s.modes[2].id, 7);
        assert_string_equal(s.modes[2].name, "CUSTOM_7");
        assert_int_equal(s.default_id.value, 1);
        assert_string_equal(jd_nvpmodel_mode_name(&s, 1), "MODE_15W");
        assert_null(jd_nvpmodel_mode_name(&s, 5));
        assert_true(jd_parse_nvpmodel_status("pmode:0002 fmode:quiet\n", &s));
        assert_int_equal(s.current_id.value, 2);
        assert_string_equal(s.fan_mode, "quiet");
        assert_true(jd_parse_nvpmodel_status("pmode:0010 fmode:fanNull", &s));
        assert_int_equal(s.current_id.value, 10); /* decimal, not octal */
        assert_false(jd_parse_nvpmodel_status("pmode:xx", &s));
        assert_false(s.current_id.present);
        assert_false(jd_parse_nvpmodel_conf("garbage\n< POWER_MODEL >\n", &s));
        jd_nvpmodel_sample_clear(&s);
}

static void test_nvfancontrol(void **state)
{
        (void) state;
        jd_fan_profile *names = NULL;
        size_t cap = 0;
        char def[32], out[32];
        const char *conf = "<FAN 1>\n  FAN_PROFILE cool {\n   0 0 255 2900\n  }\n  FAN_PROFILE quiet {\n  }\n"
                           "  FAN_DEFAULT_PROFILE quiet\n";
        assert_int_equal(jd_parse_nvfancontrol_profiles(conf, &names, &cap, def, sizeof(def)), 2);
        assert_string_equal(names[0], "cool");
        assert_string_equal(names[1], "quiet");
        assert_string_equal(def, "quiet");
        /* "FAN_PROFILE" alone does not take the next line's first word */
        assert_int_equal(jd_parse_nvfancontrol_profiles("FAN_PROFILE\nphantom {\n}\n", &names, &cap, def, sizeof(def)), 0);
        /* a name longer than its slot is left out, never cut into another name */
        assert_int_equal(jd_parse_nvfancontrol_profiles("FAN_PROFILE a_profile_name_of_more_than_32_chars {\n", &names,
                                                        &cap, def, sizeof(def)),
                         0);
        free(names);
        const char *status = "FAN1:FAN_PROFILE:cool\nFAN1:FAN_GOVERNOR:pid\nFAN1:FAN_CONTROL:open_loop\n";
        assert_true(jd_parse_nvfancontrol_status(status, 1, "FAN_GOVERNOR", out, sizeof(out)));
        assert_string_equal(out, "pid");
        assert_false(jd_parse_nvfancontrol_status(status, 2, "FAN_PROFILE", out, sizeof(out)));
        assert_int_equal(jd_fan_pwm_from_percent(20), 51);
        assert_int_equal(jd_fan_pwm_from_percent(50), 127);
        assert_int_equal(jd_fan_pwm_from_percent(70), 178);
        assert_int_equal(jd_fan_pwm_from_percent(100), 255);
        assert_dbl_equal(jd_fan_percent_from_pwm(51), 20.0);
        assert_true(fabs(jd_fan_percent_from_pwm(1) - 0.39) < 0.01);
}

static void test_processes(void **state)
{
        (void) state;
        jd_opt_u64 total;
        const char *maps =
                "CLIENT                        PROCESS      PID        SIZE\n"
                "                                          BASE        SIZE    FLAGS  SHARE       UID                  MAPS            MAPSIZE\n"
                "user                             Xorg     2245      18560K\n"
                "                                             0      18560K      300      1 00000000a1b2c3d4                            18560K\n"
                "\n"
                "user                      Web Content     3127      10240K\n"
                "kernel                             -        0       1024K\n"
                "total                                              292992K\n";
        jd_process *p = NULL;
        size_t cap = 0;
        size_t n = jd_parse_nvmap_clients(maps, &p, &cap, &total);
        assert_int_equal(n, 2);
        assert_int_equal(p[0].pid, 2245);
        assert_string_equal(p[0].name, "Xorg");
        assert_int_equal(p[0].gpu_kib, 18560);
        assert_string_equal(p[1].name, "Web Content");
        assert_int_equal(total.value, 292992);
        free(p);

        char st;
        uint32_t ppid;
        uint64_t ticks, start, btime;
        int64_t prio;
        const char *stat = "4711 ((my) app) S 17 4711 4711 0 -1 4194560 500 0 0 0 150 50 0 0 20 0 3 0 12345 1000 200";
        assert_true(jd_parse_pid_stat(stat, &st, &ppid, &ticks, &prio, &start));
        assert_int_equal(st, 'S');
        assert_int_equal(ppid, 17);
        assert_int_equal(ticks, 200);
        assert_int_equal(prio, 20);
        assert_int_equal(start, 12345);
        assert_false(jd_parse_pid_stat("4711 (x) S 1 2", &st, &ppid, &ticks, &prio, &start));
        assert_false(jd_parse_pid_stat("no parens", &st, &ppid, &ticks, &prio, &start));
        /* a parent beyond 32 bits is no PID */
        assert_false(jd_parse_pid_stat("4711 (x) S 4294967296 4711 4711 0 -1 4194560 500 0 0 0 150 50 0 0 20 0 3 0 "
                                       "12345 1000 200", &st, &ppid, &ticks, &prio, &start));
        /* btime: its own line, not a word inside another; none: false */
        assert_true(jd_parse_btime("cpu  1 2 3\nintr 5 btime 7\nbtime 1732087654\nprocesses 9\n", &btime));
        assert_int_equal(btime, 1732087654);
        assert_false(jd_parse_btime("cpu 1 2\nbtimes 5\nbtime\n", &btime));
        assert_false(jd_parse_btime("btime 17x\n", &btime));

        char user[32];
        assert_true(jd_passwd_name("root:x:0:0:root:/root:/bin/bash\nnvidia:x:1000:1000::/home/nvidia:/bin/bash\n",
                                   1000, user, sizeof(user)));
        assert_string_equal(user, "nvidia");
        assert_false(jd_passwd_name("root:x:0:0::/:/bin/sh\n", 5, user, sizeof(user)));
        /* a uid field that only starts like 1000, a line with no uid field */
        assert_false(jd_passwd_name("a:x:1000x:0::/:/bin/sh\nb:x\nc:x:1000\n", 1000, user, sizeof(user)));
        /* a name too long for the slot is not cut into another name */
        assert_false(jd_passwd_name("a_user_name_of_more_than_32_chars:x:7:7::/:/bin/sh\n", 7, user, sizeof(user)));

        /* Group membership: the primary group, or a member by name. */
        static const char passwd[] = "root:x:0:0::/:/bin/sh\nnvidia:x:1000:1000::/home/nvidia:/bin/bash\n"
                                     "ops:x:1001:998::/home/ops:/bin/bash\nbob:x:1002:1002::/:/bin/sh\n"
                                     "bo:x:1003:1003::/:/bin/sh\n";
        static const char group[] = "root:x:0:\nnvidia:x:1000:\njetson:x:998:nvidia,bob\nvideo:x:44:bo\n";
        assert_true(jd_uid_in_group(passwd, group, 1000, "jetson"));   /* listed */
        assert_true(jd_uid_in_group(passwd, group, 1001, "jetson"));   /* its primary group */
        assert_true(jd_uid_in_group(passwd, group, 1002, "jetson"));   /* the last member */
        assert_false(jd_uid_in_group(passwd, group, 1003, "jetson"));  /* "bo" is no "bob" */
        assert_true(jd_uid_in_group(passwd, group, 1003, "video"));
        assert_false(jd_uid_in_group(passwd, group, 0, "jetson"));     /* root: not by membership */
        assert_false(jd_uid_in_group(passwd, group, 4242, "jetson"));  /* no such user */
        assert_false(jd_uid_in_group(passwd, group, 1000, "jets"));    /* no such group */
        assert_false(jd_uid_in_group(passwd, "jetson:x:998\n", 1000, "jetson")); /* no member field */
        assert_true(jd_uid_in_group(passwd, "jetson:x:998\n", 1001, "jetson"));
}

static void test_system(void **state)
{
        (void) state;
        uint64_t r, w;
        char *disks[] = { "nvme0n1" };
        const char *ds = " 259       0 nvme0n1 100 0 2000 10 50 0 4000 20 0 0 0 0 0 0 0 0 0\n"
                         " 259       1 nvme0n1p1 90 0 1800 10 40 0 3000 20 0 0 0 0 0 0 0 0 0\n"
                         "   7       0 loop0 5 0 10 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n";
        assert_true(jd_parse_diskstats(ds, disks, 1, &r, &w));
        assert_int_equal(r, 2000 * 512);
        assert_int_equal(w, 4000 * 512);
        const char *nd = "Inter-|   Receive                                                |  Transmit\n"
                         " face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed\n"
                         "    lo: 1000 10 0 0 0 0 0 0 1000 10 0 0 0 0 0 0\n"
                         "  eth0: 5000 50 0 0 0 0 0 0 7000 70 0 0 0 0 0 0\n"
                         " wlan0: 300 3 0 0 0 0 0 0 200 2 0 0 0 0 0 0\n";
        assert_true(jd_parse_net_dev(nd, &r, &w));
        assert_int_equal(r, 5300);
        assert_int_equal(w, 7200);
        assert_false(jd_parse_net_dev("garbage\n", &r, &w));
}

static void test_identity_parsers(void **state)
{
        (void) state;
        char l4t[32], p[32];
        assert_true(jd_parse_nv_tegra_release(
                "# R36 (release), REVISION: 4.4, GCID: 41062509, BOARD: generic, EABI: aarch64, DATE: x\n", l4t,
                sizeof(l4t)));
        assert_string_equal(l4t, "36.4.4");
        assert_false(jd_parse_nv_tegra_release("garbage", l4t, sizeof(l4t)));
        assert_true(jd_pnumber_from_part_number("699-13668-0000-300 B.0", p, sizeof(p)));
        assert_string_equal(p, "p3668-0000");
        assert_false(jd_pnumber_from_part_number("\xff\xff\xff\xff", p, sizeof(p)));
        assert_false(jd_pnumber_from_part_number("699-1366", p, sizeof(p)));
        const char compat[] = "nvidia,p3768-0000+p3767-0005-super\0nvidia,p3767-0005\0nvidia,tegra234";
        assert_true(jd_pnumber_from_compatible(compat, sizeof(compat), p, sizeof(p)));
        assert_string_equal(p, "p3767-0005");
        const char pc[] = "nvidia,jetson-nano\0nvidia,tegra210";
        assert_false(jd_pnumber_from_compatible(pc, sizeof(pc), p, sizeof(p)));

        assert_string_equal(jd_jetpack_for_l4t("36.4.3"), "6.2");
        assert_string_equal(jd_jetpack_for_l4t("32.5"), "4.5");
        assert_null(jd_jetpack_for_l4t("36.9.9"));
        assert_string_equal(jd_module_for_pnumber("p3701-0005"), "NVIDIA Jetson AGX Orin (64GB ram)");
        assert_null(jd_module_for_pnumber("p3701-0001"));
        assert_string_equal(jd_cuda_arch_for_soc("tegra234"), "8.7");
        assert_string_equal(jd_cuda_arch_for_soc("tegra23x"), "8.7");
        assert_null(jd_cuda_arch_for_soc("x86"));
        assert_string_equal(jd_cpu_core_name(0x4e, 0x004), "NVIDIA Carmel");

        char v[32];
        jd_upstream_version("8.6.0.166-1+cuda11.4", v, sizeof(v));
        assert_string_equal(v, "8.6.0.166");
        jd_upstream_version("1:1.1.70+dfsg1-1ubuntu0.18.04.1", v, sizeof(v));
        assert_string_equal(v, "1.1.70");
        jd_upstream_version("6.2.1+b38", v, sizeof(v));
        assert_string_equal(v, "6.2.1");
}

static void test_names(void **state)
{
        (void) state;
        char g[16], k[48];
        assert_true(jd_engine_group("nvjpg1", g, sizeof(g)));
        assert_string_equal(g, "NVJPG");
        assert_true(jd_engine_group("dla1_falcon", g, sizeof(g)));
        assert_string_equal(g, "DLA1");
        assert_true(jd_engine_group("pva0_vps0", g, sizeof(g)));
        assert_string_equal(g, "PVA0");
        assert_true(jd_engine_group("vic03", g, sizeof(g)));
        assert_string_equal(g, "VIC");
        assert_true(jd_engine_group("se", g, sizeof(g)));
        assert_string_equal(g, "SE");
        assert_false(jd_engine_group("sel", g, sizeof(g)));
        assert_false(jd_engine_group("apex", g, sizeof(g)));
        assert_false(jd_engine_group("nvenc.emc", g, sizeof(g)));
        assert_false(jd_engine_group("emc", g, sizeof(g)));

        jd_thermal_key("CPU-therm", k, sizeof(k));
        assert_string_equal(k, "cpu");
        jd_thermal_key("cpu-thermal", k, sizeof(k));
        assert_string_equal(k, "cpu");
        jd_thermal_key("Tboard_tegra", k, sizeof(k));
        assert_string_equal(k, "tboard");
        jd_thermal_key("iwlwifi_1", k, sizeof(k));
        assert_string_equal(k, "iwlwifi");
        jd_thermal_key("x86_pkg_temp", k, sizeof(k));
        assert_string_equal(k, "x86");
        jd_thermal_key("acpitz", k, sizeof(k));
        assert_string_equal(k, "acpitz");
}

/* Names of sysfs tables (issue 31): PCI addresses and powercap zones
 * parsed by hand, exactly; what sscanf let through (0x, blanks, signs)
 * is refused. */
static void test_sysfs_names(void **state)
{
        (void) state;
        unsigned d, b, v, f, pkg, sub;
        assert_true(jd_parse_pci_address("0000:01:00.0", false, &d, &b, &v, &f));
        assert_int_equal(b, 1);
        assert_true(jd_parse_pci_address("000a:Bc:1f.7", false, &d, &b, &v, &f));
        assert_true(d == 10 && b == 0xbc && v == 0x1f && f == 7);
        assert_true(jd_parse_pci_address("00000000:02:00.0", true, &d, &b, &v, &f));
        assert_int_equal(b, 2);
        static const char *const bad[] = { "0x01:02:03.4", " 001:02:03.4", "0000:01:00.8", "0000:01:00.0 ",
                                           "0000:1:00.0", "00000000:01:00.0", "" };
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
                assert_false(jd_parse_pci_address(bad[i], false, &d, &b, &v, &f));
        assert_int_equal(jd_parse_rapl_zone("intel-rapl:0", &pkg, &sub), 1);
        assert_int_equal(jd_parse_rapl_zone("intel-rapl:1:2", &pkg, &sub), 2);
        assert_true(pkg == 1 && sub == 2);
        static const char *const not_zones[] = { "intel-rapl:+1", "intel-rapl: 1", "intel-rapl:1:-0",
                                                 "intel-rapl:99999999999", "intel-rapl-mmio:0", "intel-rapl:",
                                                 "intel-rapl:1:2:3" };
        for (size_t i = 0; i < sizeof(not_zones) / sizeof(not_zones[0]); i++)
                assert_int_equal(jd_parse_rapl_zone(not_zones[i], &pkg, &sub), 0);
        char rail[32];
        jd_rapl_rail_name(rail, sizeof(rail), NULL, "package-0");
        assert_string_equal(rail, "RAPL_PACKAGE_0");
        assert_false(jd_power_label_is_rail("NC"));
        assert_false(jd_power_label_is_rail("sum of shunt voltages"));
        assert_true(jd_power_label_is_rail("VDD_IN"));
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_proc_stat_and_load),
                cmocka_unit_test(test_meminfo),
                cmocka_unit_test(test_buddyinfo_and_nvmap_total),
                cmocka_unit_test(test_swaps_and_fstab), cmocka_unit_test(test_sysfs_names),
                cmocka_unit_test(test_nvpmodel),
                cmocka_unit_test(test_nvfancontrol),
                cmocka_unit_test(test_processes),
                cmocka_unit_test(test_system),
                cmocka_unit_test(test_identity_parsers),
                cmocka_unit_test(test_names),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
