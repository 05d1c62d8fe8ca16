/* The filter of jetsonctl's --only, --only-visible, --owner and --pid,
 * resolved against what jetsond lists now (the DiscreteGpu objects and a
 * snapshot), for the commands that follow samples (top, watch). */
#include "gpu_filter.h"

#include "common/props.h"
#include "jetsond-dbus.h"
#include "jetsonctl.h"

int jc_gpu_filter_fetch(jc_ctx *c, const char *command, jc_gpu_filter *f)
{
        if (!jc_filter_only && !jc_filter_only_visible && !jc_filter_owners && !jc_filter_pids)
                return JC_EXIT_OK;
        g_autoptr(GPtrArray) dgpus = NULL;
        jc_sample s = { 0 };
        int ret = jc_objects_fetch(c, "listing the GPUs", JD_IFACE_DISCRETE_GPU, JD_DGPU_PATH_PREFIX, &dgpus);
        if (!ret)
                ret = jc_sample_fetch(c, &s);
        g_autofree char *error = NULL;
        if (!ret && !jc_gpu_filter_from_jetsonctl(f, dgpus, &s, &error))
                ret = jc_usage_error(command, "%s", error);
        jc_sample_clear(&s);
        return ret;
}
