/* jetsonctl doctor: the checks in order, each only when the one before
 * let it run (no bus: nothing else; jetsond not there: no Diagnose), then
 * the report. Exit status 0 when jetsond answered, whatever it lacks; 1
 * when it could not be asked. */
#include "doctor.h"

int jc_cmd_doctor(jc_ctx *c, int argc, char **argv)
{
        (void) argv;
        if (argc > 1)
                return jc_usage_error("doctor", "doctor takes no arguments");
        jc_doctor d;
        jc_doctor_init(&d);
        if (jc_doctor_check_bus(c, &d) && jc_doctor_check_service(c, &d) && jc_doctor_diagnose(c, &d))
                jc_doctor_check_client(c, &d);
        if (c->json)
                jc_doctor_print_json(&d);
        else
                jc_doctor_print_text(&d, c->color);
        int ret = d.reached ? JC_EXIT_OK : JC_EXIT_FAILURE;
        jc_doctor_clear(&d);
        return ret;
}
