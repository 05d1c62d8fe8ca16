/* Fans: JP6/JP5 hwmon PWM paired with a separate tachometer, nvfancontrol
 * profiles; JP4 tegra_pwmfan with temp_control; no fan on the PC; the
 * pairing rule by itself. */
#include <glib.h>
#include <math.h>
#include <string.h>

#include "fan.h"
#include "fixture.h"

static const jd_fan_sample *read_board(const char *board, jd_sysroot **sr, jd_fan_reader **r)
{
        *sr = fixture_open(board);
        *r = jd_fan_reader_new(*sr);
        return jd_fan_reader_sample(*r);
}

static bool has_profile(const jd_fan *f, const char *p)
{
        for (size_t i = 0; i < f->n_profiles; i++)
                if (strcmp(f->profiles[i], p) == 0)
                        return true;
        return false;
}

static void test_jp6(void **state)
{
        (void) state;
        jd_sysroot *sr;
        jd_fan_reader *r;
        const jd_fan_sample *s = read_board("agx-orin-jp62", &sr, &r);
        assert_int_equal(s->n, 1);
        const jd_fan *f = &s->fans[0];
        assert_string_equal(f->name, "pwmfan");
        assert_int_equal(f->pwm.value, 102);
        assert_dbl_equal(f->speed.value, 40.0);
        assert_int_equal(f->rpm.value, 2100); /* from the tachometer device */
        assert_int_equal(f->controller, JD_FAN_CONTROL_NVFANCONTROL);
        assert_string_equal(f->profile, "cool");
        assert_string_equal(f->default_profile, "cool");
        assert_string_equal(f->governor, "pid");
        assert_string_equal(f->control, "close_loop");
        assert_true(has_profile(f, "cool"));
        assert_true(has_profile(f, "quiet"));
        assert_true(has_profile(f, "manual"));
        assert_string_equal(f->pwm_path, "/sys/devices/platform/pwm-fan/hwmon/hwmon3/pwm1");
        jd_fan_reader_free(r);
        jd_sysroot_free(sr);

        s = read_board("orin-nano-jp62", &sr, &r);
        f = &s->fans[0];
        assert_int_equal(f->pwm.value, 60);
        assert_true(fabs(f->speed.value - 23.529) < 0.001);
        assert_int_equal(f->rpm.value, 1080);
        assert_string_equal(f->profile, "quiet");
        assert_string_equal(f->default_profile, "quiet");
        jd_fan_reader_free(r);
        jd_sysroot_free(sr);
}

/* Thor: the PWM in hwmon "pwmfan", the tachometer in a hwmon of its own
 * ("pwm_tach", file "rpm") with the INA238 between them: one fan. */
static void test_thor(void **state)
{
        (void) state;
        jd_sysroot *sr;
        jd_fan_reader *r;
        const jd_fan_sample *s = read_board("agx-thor-jp71", &sr, &r);
        assert_int_equal(s->n, 1);
        const jd_fan *f = &s->fans[0];
        assert_string_equal(f->name, "pwmfan");
        assert_int_equal(f->pwm.value, 58);
        assert_true(fabs(f->speed.value - 22.745) < 0.001);
        assert_true(f->rpm.present);
        assert_int_equal(f->rpm.value, 1786);
        assert_int_equal(f->controller, JD_FAN_CONTROL_NVFANCONTROL);
        assert_string_equal(f->default_profile, "quiet");
        assert_true(has_profile(f, "cool"));
        assert_string_equal(f->pwm_path, "/sys/devices/platform/pwm-fan/hwmon/hwmon1/pwm1");
        jd_fan_reader_free(r);
        jd_sysroot_free(sr);
}

static void test_jp5(void **state)
{
        (void) state;
        jd_sysroot *sr;
        jd_fan_reader *r;
        const jd_fan_sample *s = read_board("xavier-nx-jp51", &sr, &r);
        assert_int_equal(s->n, 1);
        assert_dbl_equal(s->fans[0].speed.value, 60.0);
        assert_int_equal(s->fans[0].rpm.value, 3728);
        assert_string_equal(s->fans[0].control, "open_loop");
        jd_fan_reader_free(r);
        jd_sysroot_free(sr);
}

static void test_jp4_temp_control(void **state)
{
        (void) state;
        char *dir;
        jd_sysroot *sr = fixture_copy("nano-jp46", &dir);
        jd_fan_reader *r = jd_fan_reader_new(sr);
        const jd_fan_sample *s = jd_fan_reader_sample(r);
        assert_int_equal(s->n, 1); /* the hwmon view and the platform device are one fan */
        const jd_fan *f = &s->fans[0];
        assert_int_equal(f->controller, JD_FAN_CONTROL_TEMP_CONTROL);
        assert_int_equal(f->pwm.value, 0);
        assert_true(f->speed.present);
        assert_dbl_equal(f->speed.value, 0.0);
        assert_int_equal(f->rpm.value, 0);
        assert_string_equal(f->profile, "temp_control");
        assert_int_equal(f->n_profiles, 2);
        assert_string_equal(f->profiles[1], "manual");
        g_autofree char *tc = g_strdup(f->temp_control_path + 1);
        fixture_write_str(dir, tc, "0\n");
        s = jd_fan_reader_sample(r);
        assert_string_equal(s->fans[0].profile, "manual");
        jd_fan_reader_free(r);
        fixture_remove_copy(sr, dir);
}

/* Fact sheet §7: "manual" while nvfancontrol is stopped; while it runs,
 * its status file, or the conf's default once the status is removed. */
static void test_nvfancontrol_service_state(void **state)
{
        (void) state;
        char *dir;
        jd_sysroot *sr = fixture_copy("agx-orin-jp62", &dir);
        jd_fan_reader *r = jd_fan_reader_new(sr);
        const jd_fan *f = &jd_fan_reader_sample(r)->fans[0];
        assert_string_equal(f->profile, "cool");      /* unknown: the status file */
        assert_string_equal(f->governor, "pid");

        jd_fan_reader_set_service_active(r, (jd_opt_bool) { .present = true, .value = false });
        f = &jd_fan_reader_sample(r)->fans[0];
        assert_string_equal(f->profile, "manual");
        assert_string_equal(f->control, "manual");
        assert_string_equal(f->governor, "");

        jd_fan_reader_set_service_active(r, (jd_opt_bool) { .present = true, .value = true });
        fixture_write_str(dir, "var/lib/nvfancontrol/status",
                          "FAN1:FAN_PROFILE:quiet\nFAN1:FAN_GOVERNOR:pid\nFAN1:FAN_CONTROL:close_loop\n");
        f = &jd_fan_reader_sample(r)->fans[0];
        assert_string_equal(f->profile, "quiet");
        fixture_unlink(dir, "var/lib/nvfancontrol/status");
        f = &jd_fan_reader_sample(r)->fans[0];
        assert_string_equal(f->profile, "cool");      /* FAN_DEFAULT_PROFILE */

        /* Unknown state and no status: nothing to say. */
        jd_fan_reader_set_service_active(r, (jd_opt_bool) { 0 });
        f = &jd_fan_reader_sample(r)->fans[0];
        assert_string_equal(f->profile, "");
        jd_fan_reader_free(r);
        fixture_remove_copy(sr, dir);
}

static void test_pc_has_no_fan(void **state)
{
        (void) state;
        jd_sysroot *sr;
        jd_fan_reader *r;
        const jd_fan_sample *s = read_board("x86-pc", &sr, &r);
        assert_int_equal(s->n, 0);
        jd_fan_reader_free(r);
        jd_sysroot_free(sr);
}

/* hwmon pairing by itself: PART_SPEC is one part per character, 'p' a
 * PWM, 't' a tachometer, 'b' both, '-' neither; the fans as "pwm:tach"
 * part indexes ('-' for none), space-separated. */
static char *pairing(const char *part_spec)
{
        jd_fan_part parts[8];
        jd_fan_pair pairs[8];
        size_t n = strlen(part_spec);
        assert_true(n <= 8);
        for (size_t i = 0; i < n; i++) {
                memset(&parts[i], 0, sizeof(parts[i]));
                if (part_spec[i] == 'p' || part_spec[i] == 'b')
                        strcpy(parts[i].pwm_file, "pwm1");
                if (part_spec[i] == 't' || part_spec[i] == 'b')
                        strcpy(parts[i].rpm_file, "rpm");
        }
        size_t k = jd_fan_pair_parts(parts, n, pairs);
        GString *out = g_string_new("");
        for (size_t i = 0; i < k; i++) {
                if (i)
                        g_string_append_c(out, ' ');
                if (pairs[i].pwm >= 0)
                        g_string_append_printf(out, "%ld:", pairs[i].pwm);
                else
                        g_string_append(out, "-:");
                if (pairs[i].tach >= 0)
                        g_string_append_printf(out, "%ld", pairs[i].tach);
                else
                        g_string_append_c(out, '-');
        }
        return g_string_free(out, FALSE);
}

static void test_pairing(void **state)
{
        (void) state;
        static const struct {
                const char *parts, *fans;
        } cases[] = {
                { "tp", "1:0" },             /* JP5/JP6: pwm_tach and pwmfan, one of each */
                { "pt-", "0:1" },            /* a part with neither is no fan */
                { "ppt", "0:- 1:- -:2" },    /* two PWMs: the tachometer is nobody's */
                { "ptt", "0:- -:1 -:2" },    /* two tachometers: neither is the PWM's */
                { "bt", "0:0 -:1" },         /* a PWM with its own tachometer keeps it */
                { "b", "0:0" },              /* JP4's tegra_pwmfan */
                { "tt", "-:0 -:1" },
                { "", "" },
                { "--", "" },
        };
        for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
                g_autofree char *fans = pairing(cases[i].parts);
                if (strcmp(fans, cases[i].fans) != 0)
                        fail_msg("parts \"%s\": fans \"%s\", not \"%s\"", cases[i].parts, fans, cases[i].fans);
        }
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_jp6), cmocka_unit_test(test_jp5), cmocka_unit_test(test_thor),
                cmocka_unit_test(test_jp4_temp_control), cmocka_unit_test(test_nvfancontrol_service_state),
                cmocka_unit_test(test_pc_has_no_fan), cmocka_unit_test(test_pairing),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
