/* NVLink's counters and rates (nvml.h): nvmlDeviceGetFieldValues. */
#include <string.h>

#include "nvml_private.h"

/* A field value's number, if NVML answered it. */
static bool field_number(const nvmlFieldValue_t *f, unsigned long long *out)
{
        if (f->nvmlReturn != NVML_SUCCESS)
                return false;
        if (f->valueType == NVML_VALUE_TYPE_UNSIGNED_INT)
                *out = f->value.uiVal;
        else if (f->valueType == NVML_VALUE_TYPE_UNSIGNED_LONG_LONG)
                *out = f->value.ullVal;
        else
                return false;
        return true;
}

static void fields_request(nvmlFieldValue_t *f, unsigned id, unsigned scope)
{
        memset(f, 0, sizeof(*f));
        f->fieldId = id;
        f->scopeId = scope;
}

/* NVLink's counters: first the link count and the sums over all links
 * (one call), then each link's (a second call, only on a GPU that has
 * links). A GPU without NVLink answers NOT_SUPPORTED for the fields. */
void jd_nvml_read_nvlink(jd_nvml *n, jd_nvml_gpu *g, nvmlDevice_t dev)
{
        jd_nvlink_counters *c = &g->nvlink;
        nvmlFieldValue_t f[2 * JD_MAX_NVLINKS];
        fields_request(&f[0], NVML_FI_DEV_NVLINK_LINK_COUNT, 0);
        fields_request(&f[1], NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX, NVML_SCOPE_ALL_LINKS);
        fields_request(&f[2], NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX, NVML_SCOPE_ALL_LINKS);
        nvmlReturn_t r = CALL(n->field_values, dev, 3, f);
        if (r == NVML_ERROR_GPU_IS_LOST)
                g->lost = true;
        if (r != NVML_SUCCESS)
                return;
        unsigned long long v = 0;
        if (field_number(&f[0], &v) && v > 0)
                c->links = v < JD_MAX_NVLINKS ? (unsigned) v : JD_MAX_NVLINKS;
        if (!c->links)
                return; /* no NVLink: whatever the sums say is no reading */
        if (field_number(&f[1], &v))
                JD_SET(c->rx_kib, v);
        if (field_number(&f[2], &v))
                JD_SET(c->tx_kib, v);
        c->at_us = f[1].timestamp;
        for (unsigned l = 0; l < c->links; l++) {
                fields_request(&f[2 * l], NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX, l);
                fields_request(&f[2 * l + 1], NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX, l);
        }
        r = CALL(n->field_values, dev, (int) (2 * c->links), f);
        if (r == NVML_ERROR_GPU_IS_LOST)
                g->lost = true;
        if (r != NVML_SUCCESS)
                return;
        c->links_at_us = f[0].timestamp;
        /* A driver without the all-links scope: the sum of the links. */
        bool sum_rx = !c->rx_kib.present, sum_tx = !c->tx_kib.present;
        for (unsigned l = 0; l < c->links; l++) {
                if (field_number(&f[2 * l], &v))
                        JD_SET(c->link_rx_kib[l], v);
                if (field_number(&f[2 * l + 1], &v))
                        JD_SET(c->link_tx_kib[l], v);
                if (sum_rx && c->link_rx_kib[l].present)
                        JD_SET(c->rx_kib, c->rx_kib.value + c->link_rx_kib[l].value);
                if (sum_tx && c->link_tx_kib[l].present)
                        JD_SET(c->tx_kib, c->tx_kib.value + c->link_tx_kib[l].value);
        }
        /* Only a sum of every link is the GPU's. */
        for (unsigned l = 0; l < c->links; l++) {
                if (sum_rx && !c->link_rx_kib[l].present)
                        c->rx_kib.present = false;
                if (sum_tx && !c->link_tx_kib[l].present)
                        c->tx_kib.present = false;
        }
        if (sum_rx || sum_tx)
                c->at_us = f[0].timestamp;
}

/* Bytes/s from two readings of a KiB counter DT µs apart. */
static jd_opt_u64 kib_rate(jd_opt_u64 before, jd_opt_u64 after, long long dt_us)
{
        jd_opt_u64 rate = { 0 };
        if (before.present && after.present && after.value >= before.value && dt_us > 0)
                JD_SET(rate, (uint64_t) ((double) (after.value - before.value) * 1024.0 * 1e6 / (double) dt_us + 0.5));
        return rate;
}

void jd_nvml_nvlink_rates(const jd_nvlink_counters *prev, const jd_nvlink_counters *cur, jd_nvlink_rates *out)
{
        memset(out, 0, sizeof(*out));
        if (prev->at_us && cur->at_us) {
                out->rx = kib_rate(prev->rx_kib, cur->rx_kib, cur->at_us - prev->at_us);
                out->tx = kib_rate(prev->tx_kib, cur->tx_kib, cur->at_us - prev->at_us);
        }
        if (!prev->links_at_us || !cur->links_at_us)
                return;
        long long dt = cur->links_at_us - prev->links_at_us;
        for (unsigned l = 0; l < cur->links && l < prev->links; l++) {
                out->link_rx[l] = kib_rate(prev->link_rx_kib[l], cur->link_rx_kib[l], dt);
                out->link_tx[l] = kib_rate(prev->link_tx_kib[l], cur->link_tx_kib[l], dt);
        }
}
